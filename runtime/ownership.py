"""Ownership of host handles (tensors, partitions): live, moved, shared-leased, exclusively-leased.

Every `Tensor` and `Partition` object is a handle. Moving (partition, unpartition, reshape, a
`Mut` argument) kills the handle and gives the value a new one, as a Rust move does; the old
handle remembers where and into what it was moved. A read-only launch argument takes a shared
lease that ends when the launch hands its arguments back. Errors use the checker's CT3xx wording.
"""

from __future__ import annotations

import enum
import weakref
from typing import TYPE_CHECKING

from ..compiler import messages as msg
from ..compiler.diagnostics import Note, Span
from ..compiler.errors import OwnershipError
from .errors import ownership_error
from .sites import Site, caller_site

if TYPE_CHECKING:
    from .ops import LaunchOp


class State(enum.Enum):
    LIVE = "live"
    MOVED = "moved"
    SHARED = "shared-leased"
    EXCLUSIVE = "exclusively-leased"


OpRef = weakref.ref["LaunchOp"]


class Ownership:
    """The state of one handle. `leases` holds the pending launches reading it, weakly (a
    launch dropped without running frees its leases); the lease's site is the launch's."""

    __slots__ = ("how", "leases", "op", "site", "state")

    def __init__(self, state: State = State.LIVE) -> None:
        self.state = state
        self.site: Site | None = None  # where it was moved
        self.how = ""  # "into a partition", "into a launch of add", ...
        self.op: weakref.ref[LaunchOp] | None = None  # the launch it was moved into
        self.leases: list[OpRef] = []

    def move(self, how: str, site: Site, op: OpRef | None = None) -> None:
        self.state = State.MOVED
        self.how = how
        self.site = site
        self.op = op

    def lease(self, op: OpRef) -> None:
        self.leases.append(op)
        self.state = State.SHARED

    def release(self, op: OpRef) -> None:
        leases = self.leases
        if len(leases) == 1 and leases[0] is op:  # the common case: one reader
            leases.clear()
        else:
            self.leases = [r for r in leases if r is not op and r() is not None]
        if not self.leases and self.state is State.SHARED:
            self.state = State.LIVE

    def active_leases(self) -> list[LaunchOp]:
        """The pending launches reading this handle (forgetting finished or dropped ones)."""
        pairs = [(r, r()) for r in self.leases]
        self.leases = [r for r, op in pairs if op is not None and not op.finished]
        live = [op for _, op in pairs if op is not None and not op.finished]
        if not self.leases and self.state is State.SHARED:
            self.state = State.LIVE
        return live

    @property
    def readers(self) -> int:
        return len(self.active_leases())


def check_usable(own: Ownership, name: str, site: Site | Span | None = None) -> None:
    """Raises CT301 if the handle was moved (reading a shared-leased handle is fine)."""
    if own.state is State.MOVED:
        raise use_after_move(own, name, site)


def check_writable(own: Ownership, name: str, action: str, site: Site | None = None) -> None:
    """Raises CT301 if moved, CT303 if a pending launch reads it."""
    check_usable(own, name, site)
    leases = own.active_leases() if own.leases else None
    if leases:
        op = leases[0]
        note = Note(msg.LEASED_HERE.format(kernel=op.kernel_name), op.site.span())
        raise ownership_error(msg.WRITE_WHILE_LEASED, site or caller_site(), (note,), name=name,
                              kernel=op.kernel_name, action=action)


def use_after_move(own: Ownership, name: str, site: Site | Span | None) -> OwnershipError:
    notes = (Note(msg.MOVED_HERE.format(name=name), own.site.span()),) if own.site else ()
    op = own.op() if own.op is not None else None
    if op is not None and not op.finished:
        return ownership_error(msg.USE_AFTER_MOVE_LAUNCH, site, notes, name=name,
                               kernel=op.kernel_name)
    return ownership_error(msg.USE_AFTER_MOVE, site, notes, name=name, how=own.how)
