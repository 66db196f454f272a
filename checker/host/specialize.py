"""Kernel errors that only a launch's Const values reveal, reported where the host code shows them.

A kernel whose shapes name Consts (`Mut[Tensor[f32, (1, "N")]]`, `w.load_tile((N,), 0)`) checks
clean on its own: its Consts are symbols and the checks that need their values stay silent. The
launch then fixes them (from a partition's tile shape, a tensor's shape or a keyword) and the
runtime types the kernel again with the values: `N = 100` makes that load CT208. Where the
analysis knows every Const of an accepted launch, the checker runs that same specialized
analysis (`compiler.unit.specialized_ir` is the runtime's) and reports its errors that the
kernel's own check did not, at their lines in the kernel, with a note at the launch. A Const
it does not know means no report at all (it would guess), and so does a kernel of another file
(its lines are that file's)."""

from __future__ import annotations

from dataclasses import replace

from ...compiler.api import specialize
from ...compiler.launch.contract import Verdict, launch_consts
from ...compiler.unit import kernel_unit
from ...diagnostics import messages as msg
from ...diagnostics.diagnostic import Diagnostic, Note, Severity, Span
from ...reader.source import ModuleInfo
from .context import Ctx
from .values import KernelVal


def report_specialized(ctx: Ctx, kernel: KernelVal, verdict: Verdict, call: Span) -> None:
    """The launch's kernel errors that its Const values reveal (nothing when one is unknown)."""
    sig = kernel.sig
    if sig is None or sig.span.path != ctx.info.path or kernel.name not in ctx.info.functions:
        return
    names = [p.name for p in sig.params if p.kind == "const"]
    if not names or any(n not in verdict.consts for n in names):
        return
    consts = launch_consts(sig, verdict.consts)
    shown = ", ".join(f"{n}={consts[n]}" for n in names)
    note = Note(msg.CONSTS_AT_LAUNCH.format(consts=shown), call)
    for diag in _new_errors(ctx.info, kernel.name, consts):
        ctx.report(replace(diag, notes=(*diag.notes, note)), here=False)  # at its compile


def _new_errors(info: ModuleInfo, name: str, consts: dict[str, object]) -> list[Diagnostic]:
    """Errors of the kernel typed with `consts` that its edit-time check does not report (one
    analysis per kernel and Const values per parse: a launch in a loop is met several times)."""
    key = f"specialized:{name}:{sorted(consts.items(), key=lambda kv: kv[0])!r}"
    got = info.derived.get(key)
    if got is None:
        unit = kernel_unit(info, name)
        seen = {(d.code, d.span) for d in unit.diagnostics}
        got = [d for d in specialize(info, name, consts).diagnostics
               if d.severity is Severity.ERROR and (d.code, d.span) not in seen]
        info.derived[key] = got
    assert isinstance(got, list)
    return got
