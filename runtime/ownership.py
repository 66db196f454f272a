"""Ownership of host handles (tensors, partitions): live, moved, shared-leased, exclusively-leased.

Every `Tensor` and `Partition` object is a handle. Moving (partition, unpartition, reshape, a
`Mut` argument) kills the handle and gives the value a new one, as a Rust move does; the old
handle remembers where and into what it was moved. A read-only launch argument takes a shared
lease that ends when the launch hands its arguments back. Errors use the checker's CT3xx wording.

The record is kept on the handle itself (`Owned`, the base of `Tensor` and `Partition`), so a
move that makes a new handle makes one object, not two.
"""

from __future__ import annotations

import enum
import sys
import weakref
from types import CodeType, FrameType
from typing import TYPE_CHECKING, Any, Self

from ..compiler.launch import MoveFacts, leased_diagnostic, moved_diagnostic
from ..compiler.launch.moves import kernel_label
from ..diagnostics.diagnostic import Span
from ..diagnostics.errors import OwnershipError, error_for, expected_error
from .sites import Site, caller_site, in_loop, is_internal

if TYPE_CHECKING:
    from .ops import LaunchOp


class State(enum.Enum):
    LIVE = "live"
    MOVED = "moved"
    SHARED = "shared-leased"
    EXCLUSIVE = "exclusively-leased"


OpRef = weakref.ref["LaunchOp"]

_LIVE, _MOVED, _SHARED = State.LIVE, State.MOVED, State.SHARED


class Owned:
    """The ownership record of one handle, in the handle's own slots.

    `_state` is LIVE, MOVED or EXCLUSIVE (a launch's handle of its Mut partition); shared-leased
    is not stored but read off `_leases` (`state`), so taking and ending a lease is one store.
    When moved: `_how` ("into a partition", "into a launch of add", ...), `_site` (where) and
    `_op` (the launch it was moved into, weakly, or None). `_leases`: the pending launches
    reading it, weakly (a launch dropped without running frees its leases): None for none,
    the launch's reference itself for one reader (the usual case: a launch takes and ends
    the lease with one compare and one store, no list), a list from a second reader on."""

    __slots__ = ("_how", "_leases", "_op", "_site", "_state")

    def __init__(self, state: State = _LIVE) -> None:
        self._state = state
        self._how = ""
        self._site: Site | None = None
        self._op: OpRef | None = None
        self._leases: OpRef | list[OpRef] | None = None

    @property
    def _own(self) -> Self:
        """The handle's ownership record: the handle itself (kept for callers that ask for it)."""
        return self

    @property
    def state(self) -> State:
        """Live, moved, shared-leased (a pending launch reads it) or exclusively-leased."""
        state = self._state
        if state is _LIVE and self._leases is not None and self.active_leases():
            return _SHARED
        return state

    def _move(self, how: str, site: Site, op: OpRef | None = None) -> None:
        self._state = _MOVED
        self._how = how
        self._site = site
        self._op = op

    def _lease(self, op: OpRef) -> None:
        """A shared lease to the launch `op` (launch.py inlines the first reader's case)."""
        leases = self._leases
        if leases is None:
            self._leases = op
        elif isinstance(leases, list):
            leases.append(op)
        elif leases() is None:  # a dropped launch's
            self._leases = op
        else:
            self._leases = [leases, op]

    def _release(self, op: OpRef) -> None:
        """Ends `op`'s leases (all of them: a launch may read one tensor twice), forgetting
        those of dropped launches (LaunchOp._complete inlines the one reader's case)."""
        leases = self._leases
        if leases is None or leases is op:
            self._leases = None
            return
        if isinstance(leases, list):
            rest = [r for r in leases if r is not op and r() is not None]
            self._leases = rest if len(rest) > 1 else rest[0] if rest else None

    def active_leases(self) -> list[LaunchOp]:
        """The pending launches reading this handle (forgetting finished or dropped ones)."""
        leases = self._leases
        if leases is None:
            return []
        refs = leases if isinstance(leases, list) else [leases]
        pairs = [(r, r()) for r in refs]
        live = [(r, op) for r, op in pairs if op is not None and not op.finished]
        self._leases = ([r for r, _ in live] if len(live) > 1 else live[0][0] if live else None)
        return [op for _, op in live]

    @property
    def readers(self) -> int:
        return len(self.active_leases())


def check_usable(own: Owned, name: str, site: Site | Span | None = None) -> None:
    """Raises CT301 (CT306 in a loop) if the handle was moved; reading a shared-leased handle
    is fine."""
    if own._state is _MOVED:
        raise use_after_move(own, name, site)


def check_writable(own: Owned, name: str, action: str, site: Site | None = None) -> None:
    """Raises CT301 if moved, CT303 if a pending launch reads it."""
    check_usable(own, name, site)
    leases = own.active_leases() if own._leases is not None else None
    if leases:
        op = leases[0]
        where = site or caller_site()
        raise error_for([leased_diagnostic(name, action, where.span(), kernel_label(
            op.kernel_name), op.site.span())])


def use_after_move(own: Owned, name: str, site: Site | Span | None) -> OwnershipError:
    use = site if isinstance(site, Site) else None
    lifted = _lift(own._site, use)
    if lifted is not None:  # a helper that moves its argument, run twice: say it at its calls
        moved_at, call, loop = lifted
        callee = own._site.code if own._site is not None else None
        shown, use_span = _argument(call, callee, name)
        moved_span = _argument(moved_at, callee, name)[1]
        how = f"{own._how} in '{callee.co_name}'" if callee is not None else own._how
        facts = MoveFacts(how, moved_span, shown, None, loop)
        return expected_error(OwnershipError, [moved_diagnostic(shown, use_span, facts)])
    span = site if isinstance(site, Span) else (site or caller_site()).span()
    facts = move_facts(own, use)
    return expected_error(OwnershipError, [moved_diagnostic(
        facts.use_name or name, facts.use_at or span, facts)])


def _called_again(moved_at: Site | None, use: Site) -> bool:
    """The use is at or before the move's instruction in the same function, and no loop of
    that function encloses the move: only another call of the function gets there (a move
    whose caller was not recorded, such as a launch's: recording it would slow every launch)."""
    return (moved_at is not None and moved_at.parent is None and moved_at.code is use.code
            and use.lasti <= moved_at.lasti and not in_loop(moved_at))


def _earlier_call(own: Owned, use: Site, pending: str | None) -> MoveFacts:
    """Moved by an earlier call of the function running `use`: reported at the later call
    (its argument, when the handle came in as a parameter), with the move's note inside the
    function."""
    moved_at = own._site
    assert moved_at is not None
    callee = moved_at.code
    frame = _frame_running(use)
    back = frame.f_back if frame is not None else None
    param = _parameter_holding(frame, own) if frame is not None else None
    use_name: str | None = None
    use_at: Span | None = None
    if back is not None and not is_internal(back.f_code.co_filename):
        call = Site((back.f_code, back.f_lasti))
        if param is not None:
            use_name, use_at = _argument(call, callee, param)
        else:
            use_at = call.span()
    return MoveFacts(f"{own._how} by an earlier call of '{callee.co_name}'", moved_at.span(),
                     param, pending, use_at=use_at, use_name=use_name)


def _frame_running(use: Site) -> FrameType | None:
    """The frame running `use` now (the error is raised from inside it)."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and not (frame.f_code is use.code and frame.f_lasti == use.lasti):
        frame = frame.f_back
    return frame


def _parameter_holding(frame: FrameType, own: Owned) -> str | None:
    code = frame.f_code
    params = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    return next((p for p in params if frame.f_locals.get(p) is own), None)


def _argument(call: Site, callee: CodeType | None, param: str) -> tuple[str, Span]:
    """The argument a call passes for `param` of `callee`, as written and where (else the
    parameter's name and the whole call)."""
    text = call.call()
    params = callee.co_varnames[:callee.co_argcount] if callee is not None else ()
    if text is not None and param in text.keywords:
        return text.keywords[param]
    if text is not None and param in params and params.index(param) < len(text.args):
        return text.args[params.index(param)]
    return param, call.span()


def _lift(moved_at: Site | None, use: Site | None) -> tuple[Site, Site, bool] | None:
    """Where a move and a use at the same spot of one function really differ: at the calls of
    that function (their parents), when those are what tells the runs apart. Returns the move's
    and the use's call, and whether a loop carried the move to the use (CT306) or the function
    was simply called again (CT301). None: the spot itself says it (the usual case)."""
    if moved_at is None or use is None or moved_at.code is not use.code:
        return None
    mp, up = moved_at.parent, use.parent
    if mp is None or up is None or not _same_scope(mp, up):
        return None
    if _order(mp) != _order(up):  # two calls of the helper: the later one uses what it moved
        return mp, up, _order(up) < _order(mp)
    if use.lasti <= moved_at.lasti and not in_loop(moved_at) and in_loop(up):
        return mp, up, True  # one call, in a loop of the caller: its next iteration
    return None


def _same_scope(a: Site, b: Site) -> bool:
    """One function's code, or the top level of one file (compiled a statement at a time by
    a REPL or a notebook: one code object per statement)."""
    return a.code is b.code or (a.code.co_name == b.code.co_name == "<module>"
                                and a.path == b.path)


def _order(site: Site) -> tuple[int, int, int]:
    """Where a call is in its scope: source position, then the instruction."""
    span = site.span()
    return span.line, span.col, site.lasti


def move_facts(own: Owned, use: Site | None) -> MoveFacts:
    """A moved handle's record for the launch contract, seen from the use at `use`."""
    op = own._op() if own._op is not None else None
    pending = kernel_label(op.kernel_name) if op is not None and not op.finished else None
    moved_at = own._site
    if use is not None and _called_again(moved_at, use):
        return _earlier_call(own, use, pending)
    name, span = _moved_where(own, op, moved_at)
    return MoveFacts(own._how, span, name, pending, _loop_back(moved_at, use),
                     _within(moved_at, use))


def _moved_where(own: Owned, op: Any, moved_at: Site | None) -> tuple[str | None, Span | None]:
    """The name the handle had where it was moved and that place, as the checker's note says
    them: the receiver of a method (`t` in `t.partition(...)`, though the use says `u`) and
    the call; for a launch, the argument it was passed as while the launch still holds it
    (else the use's name, None, and the call)."""
    call = moved_at.call() if moved_at is not None else None
    span = moved_at.span() if moved_at is not None else None
    if call is None:
        return None, span
    if not own._how.startswith(INTO_LAUNCH):  # moved by a method of its own
        return call.receiver, span
    at = next((i for i, a in enumerate(op._args) if _copy_of(a, own)), None) if op else None
    return call.args[at] if at is not None and at < len(call.args) else (None, span)


INTO_LAUNCH = "into a launch"


def launch_move(kernel_name: str) -> str:
    """How a handle moved into a launch says it was moved (every launch path writes this)."""
    return f"{INTO_LAUNCH} of {kernel_label(kernel_name)}"


def _copy_of(a: object, own: Owned) -> bool:
    """Whether a launch argument is the handle the launch made of `own`: the same class on
    the same tensor (a partition) or the same bytes (a tensor)."""
    if type(a) is not type(own):
        return False
    x: Any = a
    y: Any = own
    if hasattr(y, "_tensor"):
        return bool(x._tensor is y._tensor)
    return bool(x._buf is y._buf and x._offset == y._offset)


def _loop_back(moved_at: Site | None, use: Site | None) -> bool:
    """The use runs at or before the move's instruction in the same code, after the move: only
    a loop's jump back gets there (the next iteration uses what the last one moved)."""
    return (moved_at is not None and use is not None and moved_at.code is use.code
            and use.lasti <= moved_at.lasti)


def _within(moved_at: Site | None, use: Site | None) -> bool:
    """Moved while the arguments of the call at `use` were evaluated (`k(z.partition(t), z)`)."""
    if moved_at is None or use is None or moved_at.code is not use.code:
        return False
    a, b = moved_at.span(), use.span()
    return (a.line, a.col) >= (b.line, b.col) and (a.end_line, a.end_col) <= (
        b.end_line, b.end_col) and a != b
