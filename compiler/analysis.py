"""One kernel's analysis as the compiler's entry points run it (api.py for the checker and the
language server, unit.py for the JIT): under the reader's analysis limits, with an unexpected
exception turned into one CT999 at the kernel's name instead of a traceback."""

from __future__ import annotations

from ..diagnostics import messages as msg
from ..diagnostics.diagnostic import Diagnostic, Span
from ..reader.source import FunctionDef, ModuleInfo, analysis_guard, nesting_diagnostic
from .frontend.function import KernelResult, analyze_kernel
from .frontend.params import KernelSignature


def analyze_guarded(info: ModuleInfo, fn: FunctionDef,
                    consts: dict[str, object] | None = None) -> KernelResult:
    """analyze_kernel, with an unexpected exception turned into a CT999 at the kernel's name."""
    try:
        with analysis_guard():  # the JIT gets the checker's limits: the same verdicts
            return analyze_kernel(info, fn, consts)
    except Exception as err:
        return KernelResult(None, [failure(info, fn, err)], [],
                            KernelSignature(fn.name, info.name_span(fn.node), (), fn.is_kernel))


def failure(info: ModuleInfo, fn: FunctionDef, err: Exception) -> Diagnostic:
    """What an unexpected exception met checking `fn` reports, at its name: a nesting too deep
    for Python (parse_module's depth limit should prevent it; a deeper helper chain still may
    not), else CT999."""
    span = info.name_span(fn.node)
    if isinstance(err, RecursionError):
        return nesting_diagnostic(info.path, span.line, info.lines[span.line - 1])
    return internal_error(err, f"checking '{fn.name}'", span)


def internal_error(err: Exception, doing: str, span: Span) -> Diagnostic:
    """CT999: a bug in cutile met while `doing` something, at `span`."""
    text = str(err).strip().splitlines()
    what = text[0][:120] if text else ""
    detail = f"{doing} failed with {type(err).__name__}{': ' + what if what else ''}; please " \
        "report this with the file"
    return msg.INTERNAL_ERROR.at(span, detail=detail)
