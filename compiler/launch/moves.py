"""Ownership diagnostics about one value (CT301, CT303, CT306), worded once for both sides."""

from __future__ import annotations

from ...diagnostics import messages as msg
from ...diagnostics.diagnostic import Diagnostic, Note, Span
from .facts import MoveFacts


def kernel_label(name: str) -> str:
    """How messages name a kernel: quoted, as Python names things ('add')."""
    return f"'{name}'"


def moved_diagnostic(name: str, span: Span, moved: MoveFacts) -> Diagnostic:
    """A use of `name` after its value was moved: CT306 when a loop carried the move into this
    use (the next iteration), CT301 otherwise (naming the unsynced launch when there is one)."""
    notes = ((Note(msg.MOVED_HERE.format(name=moved.name or name), moved.site),)
             if moved.site else ())
    if moved.in_loop:
        return msg.MOVE_IN_LOOP.at(span, notes, name=name)
    if moved.pending is not None:
        return msg.USE_AFTER_MOVE_LAUNCH.at(span, notes, name=name, kernel=moved.pending)
    return msg.USE_AFTER_MOVE.at(span, notes, name=name, how=moved.how)


def leased_diagnostic(name: str, action: str, span: Span, kernel: str,
                      leased_at: Span | None) -> Diagnostic:
    """CT303: a write (partitioning) to a tensor that a pending launch of `kernel` reads."""
    notes = (Note(msg.LEASED_HERE.format(kernel=kernel), leased_at),) if leased_at else ()
    return msg.WRITE_WHILE_LEASED.at(span, notes, name=name, kernel=kernel, action=action)
