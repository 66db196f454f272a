"""`kernel(*args)`: validate, check ownership, and build the lazy launch (nothing runs yet)."""

from __future__ import annotations

import operator
import sys
import weakref
from functools import partial
from typing import TYPE_CHECKING, Any

from . import context as _context
from . import native
from .backends.base import for_grid
from .binding import Bound
from .context import backend, launch_target, stream_of
from .fastpath import same_device
from .ops import LaunchOp
from .ownership import State, launch_move
from .plans import Key, LaunchPlan, access_indices, float_in_range, handle_key
from .sites import Site, caller_of, internal_files, site_of
from .views import check_launch, lease_launch

if TYPE_CHECKING:
    from .kernel import Kernel

_MOVED = State.MOVED


def launch(kernel: Kernel, *args: Any, **kwargs: Any) -> LaunchOp:
    """`kernel(*args)` (this is `Kernel.__call__`): validates and takes ownership now, runs
    nothing: run it with .sync(), await, .then(fn) or .graph()."""
    frame = sys._getframe(1)
    code = frame.f_code  # caller_of(frame), inlined: a user's file needs no walk
    site = (Site((code, frame.f_lasti)) if internal_files.get(code.co_filename) is False
            else site_of(frame))
    if kwargs:
        return _launch(kernel, site, args, kwargs)
    return launch_linked(kernel, site, args)  # compiled where it is built


_NO_KEYWORDS: dict[str, Any] = {}  # read only
_cached_id = operator.attrgetter("_kid")  # a handle's descriptor id, 0 until computed


def _full_launch(kernel: Kernel, key: Key | None, args: tuple[Any, ...],
                 kwargs: dict[str, Any], site: Site) -> LaunchOp:
    """The first launch with these argument kinds, or one whose checks failed: binds and
    checks everything (raising the error with its wording and sites), then records a plan."""
    plans = kernel._plans or kernel.plans()
    bound = kernel.binder().bind(args, dict(kwargs), site)
    # a plan the fast path declined is kept (views whose bytes overlap but regions do not)
    if key is not None:
        plan = plans.plans.get(key) or plans.record(key, bound, kwargs, kernel.__name__)
        viewed = any(bound.values[i]._region is not None for i in plan.owned)
        return _start_launch(kernel, plan, bound.values, len(args), site, viewed)
    muts, reads = access_indices([p.kind for p in kernel.binder().sig.params])
    regions = check_launch(list(bound.values), muts, reads, dict(enumerate(bound.where)), site)
    op = _unplanned_op(kernel, bound, [], site)
    lease_launch(regions, op)
    _commit(kernel, bound, op, site, len(args), muts, reads)
    return op


def launch_unchecked(kernel: Kernel, *args: Any, **kwargs: Any) -> LaunchOp:
    """`kernel.unchecked(*args)`: no ownership, no aliasing or value checks: the arguments are
    passed as they are and come back as the same objects. The first call per argument
    descriptor still binds (that is how the specialization and grid are found), so a wrong
    kind or shape still fails there. Two launches writing the same memory, or a tensor freed
    while one runs, are then the caller's problem."""
    site = caller_of(sys._getframe(1))
    if kwargs:
        return _launch_unchecked(kernel, site, args, kwargs)
    op: LaunchOp = launch_unchecked_linked(kernel.unchecked, site, args)  # compiled if built
    return op


def _unchecked_linked(method: Any, site: Site, args: tuple[Any, ...]) -> Any:
    """A `.then` link calling a bound method: `kernel.unchecked` launches with the link's site
    (as `launch_linked`), any other method is called as usual."""
    if method.__func__ is launch_unchecked:
        return _launch_unchecked(method.__self__, site, args, {})
    return method(*args)


launch_unchecked_linked = native.linker(_unchecked_linked, unchecked=True)  # compiled if built


def _launch_unchecked(kernel: Kernel, site: Site, args: tuple[Any, ...],
                      kwargs: dict[str, Any]) -> LaunchOp:
    plans = kernel._plans or kernel.plans()
    key, plan = plans.lookup(args, kwargs)
    if plan is None:
        bound = kernel.binder().bind(args, dict(kwargs), site)
        if key is None:
            op = _unplanned_op(kernel, bound, bound.values, site)
            op._results = tuple(bound.values[:len(args)])
            return op
        plan = plans.record(key, bound, kwargs, kernel.__name__)
    op = _new_op(kernel, plan, plan.values(args, kwargs), site)
    op._results = args
    return op


def _unplanned_op(kernel: Kernel, bound: Bound, values: list[Any], site: Site) -> LaunchOp:
    """A launch whose arguments cannot have a plan (e.g. an unhashable Const): compiled when
    started, on the current backend."""
    be = backend()
    spec = bound.spec
    return LaunchOp(kernel.__name__, be, None,
                    lambda: for_grid(kernel.executable(be, spec), bound.grid), values,
                    bound.grid, site, stream_of(be))


def _new_op(kernel: Kernel, plan: LaunchPlan, values: list[Any], site: Site) -> LaunchOp:
    be, stream = launch_target()
    if plan.backend is be and plan.exe is not None:  # compiled already: no preparer needed
        return LaunchOp(kernel.__name__, be, plan.exe, None, values, plan.grid, site, stream)
    return LaunchOp(kernel.__name__, be, None, partial(plan.executable, kernel, be), values,
                    plan.grid, site, stream)


def _launch(kernel: Kernel, site: Site, args: tuple[Any, ...],
            kwargs: dict[str, Any] = _NO_KEYWORDS) -> LaunchOp:
    """The plan for these arguments, the checks that depend on the values, then the launch.
    It is also `launch_linked`: a `.then(kernel)` link calls it with the previous op's results
    and its own site (the `.then` call), so it looks for no caller.

    The usual call (tensors and partitions, positionally) finds its plan by one dict lookup
    keyed on the handles' descriptor ids and runs the plan's own generated launcher
    (fastpath.py). Otherwise, or when that launcher declines (a view, a failed check), the
    generic path below: the checks inlined (this runs on every such launch), then
    `_start_launch`. Without a plan, or when a check fails, the full path (which raises the
    error)."""
    plans = kernel._plans or kernel.plans()
    key: Key | None = None
    plan: LaunchPlan | None = None
    if not kwargs and len(args) <= plans.handles:  # Plans.lookup's usual case, inlined
        try:
            key = tuple(map(_cached_id, args))
        except AttributeError:  # not a handle (the binder will say so)
            key = None
        if key and 0 in key:  # 0: an id not computed yet (a new handle)
            key = handle_key(args)
        if key:
            plan = plans.plans.get(key)
        else:
            key = None
    if key is None:
        key, plan = plans.lookup(args, kwargs)
    if plan is None:
        return _full_launch(kernel, key, args, kwargs, site)
    run = plan.run
    # keywords too: the key holds their names and values, so this plan's calls pass the same
    # Consts (in its tail) and the same grid
    if run is not None and plan.prefix == len(args):
        op = run(kernel, args, site)
        if op is not None:
            return op
    if plan.prefix == len(args) and not kwargs:  # plan.values, inlined for the usual call
        values = [*args, *plan.tail]
    else:
        values = plan.values(args, kwargs)
    moved = _MOVED
    viewed = False  # an argument of a view family: its region is checked (views.py)
    for i in plan.owned:
        v = values[i]
        if v._state is moved:
            return _full_launch(kernel, key, args, kwargs, site)
        if v._region is not None:
            viewed = True
    for i, lo, hi in plan.int_scalars:
        if not lo <= int(values[i]) <= hi:
            return _full_launch(kernel, key, args, kwargs, site)
    for i, limit, bound in plan.float_scalars:
        if not float_in_range(values[i], limit, bound):  # past the range: the binder says
            return _full_launch(kernel, key, args, kwargs, site)
    for i, j, lo, hi in plan.alias_pairs:
        a, b = values[i], values[j]
        # Tensor and Partition both cache their base address
        if lo < b._base - a._base < hi and same_device(a, b):
            return _full_launch(kernel, key, args, kwargs, site)
    return _start_launch(kernel, plan, values, len(args), site, viewed)


# `.then(kernel)` links: (kernel, the link's site, the results); compiled where it is built
launch_linked = native.linker(_launch)


def _start_launch(kernel: Kernel, plan: LaunchPlan, values: list[Any], positional: int,
                  site: Site, viewed: bool) -> LaunchOp:
    """Moves the Mut partitions into the launch and leases the inputs (all checks passed);
    `viewed`: some argument belongs to a view family, so its region is checked and leased.
    Owned._move and ._lease (its first reader's case), launch_target and _new_op are inlined:
    this runs on every launch."""
    target = _context._target
    if target is None:
        be, stream = launch_target()
    else:
        be, stream = target
        current = _context._local.stream
        if current is not None:
            stream = current
    regions = (check_launch(values, plan.muts, plan.tensors, dict(plan.sources), site)
               if viewed else None)
    exe = plan.exe if plan.backend is be else None  # None: prepared (compiled) when started
    op = LaunchOp(kernel.__name__, be, exe, None if exe else partial(plan.executable, kernel, be),
                  values, plan.grid, site, stream)
    ref = op._ref = weakref.ref(op)  # op._own_ref(), inlined
    if regions:
        lease_launch(regions, op)
    how = plan.how
    for i in plan.muts:
        v = values[i]
        values[i] = v._handoff()  # the launch's handle, exclusively leased
        # the caller's handle is moved into the launch
        v._state, v._how, v._site, v._op = _MOVED, how, site, ref
    for i in plan.tensors:
        v = values[i]
        if v._leases is None:  # the only reader
            v._leases = ref
        else:
            v._lease(ref)
    op._muts, op._reads = plan.muts, plan.tensors
    # positional arguments fill parameters in order
    pick = plan.pick
    op._results = (pick(values) if pick is not None and positional == plan.prefix
                   else tuple(values[:positional]))
    return op


def _commit(kernel: Kernel, bound: Bound, op: LaunchOp, site: Site, positional: int,
            muts: tuple[int, ...], reads: tuple[int, ...]) -> None:
    how = launch_move(kernel.__name__)
    values = list(bound.values)
    for i, v in enumerate(values):
        if i in muts:  # exclusively leased to the launch, back from .sync()
            new = v._handoff()
            v._move(how, site, op._own_ref())
            values[i] = new
        elif i in reads:
            v._lease(op._own_ref())
    results: list[Any] = [None] * positional
    for i, at in enumerate(bound.where):
        if isinstance(at, int) and at < positional:
            results[at] = values[i]
    op._args = values
    op._muts, op._reads = muts, reads
    op._results = tuple(results)
