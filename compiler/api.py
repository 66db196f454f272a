"""Entry points of the compiler used by the checker, the language server and the JIT."""

from __future__ import annotations

from .diagnostics import Diagnostic
from .frontend.module import ModuleInfo, parse_module
from .frontend.signature import read_signature


def check_source(source: str, path: str) -> list[Diagnostic]:
    """Every CT1/CT2 diagnostic of every kernel and helper in a module. Runs no user code."""
    info = parse_module(source, path)
    if isinstance(info, Diagnostic):
        return [info]
    return check_module(info)


def check_module(info: ModuleInfo) -> list[Diagnostic]:
    diags: list[Diagnostic] = []
    for fn in info.functions.values():
        _, sig_diags = read_signature(info, fn)
        diags += sig_diags
    return sorted(diags, key=Diagnostic.sort_key)


def check_kernel(source: str, path: str, name: str) -> list[Diagnostic]:
    """The diagnostics of one kernel (and the helpers it uses), as the JIT reports them."""
    info = parse_module(source, path)
    if isinstance(info, Diagnostic):
        return [info]
    fn = info.functions.get(name)
    if fn is None:
        return []
    start, end = info.span(fn.node), info.span(fn.node)
    return [d for d in check_module(info) if start.line <= d.span.line <= end.end_line]
