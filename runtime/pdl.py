"""Programmatic dependent launch at run time (compiler/pdl.py has the rule and why it holds).

A `.then` link whose launch is of a `pdl=True` kernel, right after a launch of the same chain,
is checked here before it is enqueued: what the kernel touches before its wait
(`Executable.pdl`, from the specialized IR) against the memory of the launch before it, whose
leases the chain has just ended by ordering. Memory is compared as the aliasing checks compare
it: views of one family by their boxes, anything else by the bytes it spans. Then it is enqueued
with the programmatic-serialization attribute (`Executable.enqueue_dependent`; the interpreter
runs launches one after another, so only the check applies there). In a graph capture the same
happens, and the attribute becomes a programmatic edge of the graph.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from ..compiler.launch.moves import kernel_label
from ..compiler.launch.regions import boxes_intersect
from ..compiler.pdl import PdlFacts, access_diagnostic, first_conflict
from ..diagnostics.errors import error_for
from .layout import byte_range

if TYPE_CHECKING:
    from .backends.base import Event, Executable
    from .sites import Site


class LaunchOp(Protocol):
    """What this module reads of an ops.LaunchOp (ops.py imports this module, not the reverse)."""

    kernel_name: str
    site: Site
    stream: int
    _args: list[Any] | tuple[()]
    _grid: tuple[int, int, int]
    _muts: tuple[int, ...]
    _reads: tuple[int, ...]
    _done_event: Event | None

    def _fail(self, err: BaseException) -> None: ...


def start_dependent(nxt: LaunchOp, exe: Executable, facts: PdlFacts, prev: LaunchOp,
                    prev_args: Sequence[Any]) -> None:
    """Checks `nxt` (marked enqueued by the caller) against `prev` and enqueues it as a
    dependent; CT308 fails `nxt` before anything of it runs."""
    args = nxt._args
    found = first_conflict(facts, lambda i: _memory(args[i]) if i < len(args) else None,
                           _theirs(prev, prev_args), _meet)
    try:
        if found is not None:
            access, they_write = found
            raise error_for([access_diagnostic(
                access, they_write, kernel_label(nxt.kernel_name),
                kernel_label(prev.kernel_name), nxt.site.span(), prev.site.span())])
        nxt._done_event = exe.enqueue_dependent(nxt._args, nxt._grid, nxt.stream)
    except BaseException as err:
        nxt._fail(err)
        raise


def _theirs(prev: LaunchOp, prev_args: Sequence[Any]) -> list[tuple[Any, bool]]:
    """The memory `prev` touches, each with whether it writes it."""
    writes, reads = prev._muts, prev._reads
    if not writes and not reads:  # an unchecked launch: every tensor it got may be written
        writes = tuple(range(len(prev_args)))
    touched = [(_memory(prev_args[i]), True) for i in writes]
    touched += [(_memory(prev_args[i]), False) for i in reads]
    return [(memory, w) for memory, w in touched if memory is not None]


def _memory(value: Any) -> Any:
    """The tensor handle an argument reaches memory through (a partition's tensor), or None."""
    t = getattr(value, "_tensor", value)
    return t if getattr(t, "_buf", None) is not None else None


def _meet(a: Any, b: Any) -> bool:
    if a._buf.device != b._buf.device:
        return False
    ra, rb = a._region, b._region
    if ra is not None and rb is not None and ra.root is rb.root:
        return boxes_intersect(ra.box, rb.box)
    # handle.byte_extent, written out: handle's imports reach ops, which imports this module
    lo_a, hi_a = byte_range(a._shape, a._strides, a._dtype.itemsize)
    lo_b, hi_b = byte_range(b._shape, b._strides, b._dtype.itemsize)
    return bool(a._base + lo_a < b._base + hi_b and b._base + lo_b < a._base + hi_a)
