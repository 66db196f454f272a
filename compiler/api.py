"""Entry points of the compiler used by the checker, the language server and the JIT."""

from __future__ import annotations

from ..diagnostics.diagnostic import Diagnostic, Span, dedupe
from ..reader.imports import unread_decorators
from ..reader.source import ModuleInfo, analysis_guard, parse_module
from .analysis import analyze_guarded, failure, internal_error
from .frontend.context import TypedName
from .frontend.function import KernelResult, check_helper_syntax
from .frontend.params import read_signature
from .unit import kernel_unit


def check_source(source: str, path: str) -> list[Diagnostic]:
    """Every CT1/CT2 diagnostic of every kernel and helper in a module. Runs no user code."""
    try:
        info = parse_module(source, path)
    except Exception as err:  # a last resort: a bug in cutile must not crash the caller
        return [internal_error(err, "reading this file", Span(path, 1, 0, 1, 1))]
    if isinstance(info, Diagnostic):
        return [info]
    return check_module(info)


def check_module(info: ModuleInfo) -> list[Diagnostic]:
    diags: list[Diagnostic] = []
    for fn in info.functions.values():
        if fn.is_kernel:  # the unit's analysis: the checker's launches compare with it
            found = list(kernel_unit(info, fn.key).diagnostics)
        else:
            try:
                with analysis_guard():
                    found = read_signature(info, fn)[1] + check_helper_syntax(info, fn)
            except Exception as err:
                found = [failure(info, fn, err)]
        diags += found
    diags += unread_decorators(info)  # kernels whose `ct` comes from a module cutile cannot read
    return sorted(dedupe(diags), key=Diagnostic.sort_key)


def specialize(info: ModuleInfo, name: str, consts: dict[str, object]) -> KernelResult:
    """The typed IR of a kernel with its Const parameters bound (what backends execute)."""
    return analyze_guarded(info, info.functions[name], consts)


def typed_names(info: ModuleInfo, lines: tuple[int, int] | None = None) -> list[TypedName]:
    """Every tile-valued name bound in the module's kernels, with its type (hover, inlay hints);
    with `lines` (first, last), only in the kernels that overlap them."""
    names: list[TypedName] = []
    for fn in info.kernels:
        node = fn.node
        if lines is None or (node.lineno <= lines[1]
                             and lines[0] <= (node.end_lineno or node.lineno)):
            names += kernel_unit(info, fn.key).analysis.names
    return names
