"""Entry points of the compiler used by the checker, the language server and the JIT."""

from __future__ import annotations

from ..diagnostics import messages as msg
from ..diagnostics.diagnostic import Diagnostic, Span, dedupe
from ..reader.source import (
    FunctionDef,
    ModuleInfo,
    analysis_guard,
    nesting_diagnostic,
    parse_module,
)
from .frontend.exprs import TypedName
from .frontend.function import KernelResult, analyze_kernel, check_helper_syntax
from .frontend.params import KernelSignature, read_signature


def check_source(source: str, path: str) -> list[Diagnostic]:
    """Every CT1/CT2 diagnostic of every kernel and helper in a module. Runs no user code."""
    try:
        info = parse_module(source, path)
    except Exception as err:  # a last resort: a bug in cutile must not crash the caller
        return [_internal(err, "reading this file", Span(path, 1, 0, 1, 1))]
    if isinstance(info, Diagnostic):
        return [info]
    return check_module(info)


def check_module(info: ModuleInfo) -> list[Diagnostic]:
    from .unit import kernel_unit  # unit builds on this module

    diags: list[Diagnostic] = []
    for fn in info.functions.values():
        if fn.is_kernel:  # the unit's analysis: the checker's launches compare with it
            found = list(kernel_unit(info, fn.name).diagnostics)
        else:
            try:
                with analysis_guard():
                    found = read_signature(info, fn)[1] + check_helper_syntax(info, fn)
            except RecursionError:
                span = info.name_span(fn.node)
                found = [nesting_diagnostic(info.path, span.line, info.lines[span.line - 1])]
            except Exception as err:
                found = [_internal(err, f"checking '{fn.name}'", info.name_span(fn.node))]
        diags += found
    return sorted(dedupe(diags), key=Diagnostic.sort_key)


def _analyze(info: ModuleInfo, fn: FunctionDef,
             consts: dict[str, object] | None = None) -> KernelResult:
    """analyze_kernel, with an unexpected exception turned into a CT999 at the kernel's name."""
    try:
        with analysis_guard():  # the JIT gets the checker's limits: the same verdicts
            return analyze_kernel(info, fn, consts)
    except Exception as err:
        span = info.name_span(fn.node)
        # parse_module's depth limit should prevent it; a deeper helper chain still may not
        diag = nesting_diagnostic(info.path, span.line, info.lines[span.line - 1]) \
            if isinstance(err, RecursionError) else _internal(err, f"checking '{fn.name}'", span)
        return KernelResult(None, [diag], [], KernelSignature(fn.name, span, (), fn.is_kernel))


def _internal(err: Exception, doing: str, span: Span) -> Diagnostic:
    text = str(err).strip().splitlines()
    what = text[0][:120] if text else ""
    detail = f"{doing} failed with {type(err).__name__}{': ' + what if what else ''}; please " \
        "report this with the file"
    return msg.INTERNAL_ERROR.at(span, detail=detail)


def specialize(info: ModuleInfo, name: str, consts: dict[str, object]) -> KernelResult:
    """The typed IR of a kernel with its Const parameters bound (what backends execute)."""
    return _analyze(info, info.functions[name], consts)


def typed_names(info: ModuleInfo, lines: tuple[int, int] | None = None) -> list[TypedName]:
    """Every tile-valued name bound in the module's kernels, with its type (hover, inlay hints);
    with `lines` (first, last), only in the kernels that overlap them."""
    names: list[TypedName] = []
    for fn in info.kernels:
        node = fn.node
        if lines is None or (node.lineno <= lines[1]
                             and lines[0] <= (node.end_lineno or node.lineno)):
            names += _analyze(info, fn).names
    return names
