"""Entry points of the compiler used by the checker, the language server and the JIT."""

from __future__ import annotations

from .diagnostics import Diagnostic
from .frontend.exprs import TypedName
from .frontend.function import KernelResult, analyze_kernel, check_helper_syntax
from .frontend.module import ModuleInfo, parse_module
from .frontend.signature import read_signature


def check_source(source: str, path: str) -> list[Diagnostic]:
    """Every CT1/CT2 diagnostic of every kernel and helper in a module. Runs no user code."""
    info = parse_module(source, path)
    if isinstance(info, Diagnostic):
        return [info]
    return check_module(info)


def check_module(info: ModuleInfo) -> list[Diagnostic]:
    diags: dict[tuple[str, object, str], Diagnostic] = {}
    for fn in info.functions.values():
        found = analyze_kernel(info, fn).diagnostics if fn.is_kernel else (
            read_signature(info, fn)[1] + check_helper_syntax(info, fn))
        for d in found:
            diags.setdefault((d.code, d.span, d.message), d)
    return sorted(diags.values(), key=Diagnostic.sort_key)


def check_kernel(source: str, path: str, name: str) -> list[Diagnostic]:
    """The diagnostics of one kernel (and the helpers it inlines), as the JIT reports them."""
    info = parse_module(source, path)
    if isinstance(info, Diagnostic):
        return [info]
    fn = info.functions.get(name)
    return analyze_kernel(info, fn).diagnostics if fn is not None else []


def specialize(info: ModuleInfo, name: str, consts: dict[str, object]) -> KernelResult:
    """The typed IR of a kernel with its Const parameters bound (what backends execute)."""
    return analyze_kernel(info, info.functions[name], consts)


def typed_names(info: ModuleInfo) -> list[TypedName]:
    """Every tile-valued name bound in the module's kernels, with its type (hover, inlay hints)."""
    names: list[TypedName] = []
    for fn in info.kernels:
        names += analyze_kernel(info, fn).names
    return names
