"""A plan's own launcher: one straight-line function generated per `LaunchPlan`.

`launch.py`'s generic fast path loops over the plan's index tuples (moved handles, value checks,
moves, leases) on every launch. A plan knows all of those tuples when it is recorded, so it
writes them out once as Python source: the arguments unpacked into locals, each check one
line with its bounds as constants, the ownership moves and leases one block per argument, and
the `LaunchOp` filled in place (no `__init__` call). The generated function covers the common
call (every parameter but the Consts given positionally, Consts inferred or by keyword, no
argument in a view family) and returns None for anything else, or when a check fails: the
caller then takes the generic path, which redoes the launch with every check and raises the
error with its usual wording. So this file adds no rule of its own;
`tests/runtime/test_fastpath.py` compares both paths. Where the extension is built, the
compiled twin of this function (native.py) runs first and hands it what it does not take.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from ..compiler.dsl.orders import TileOrder
from . import context as _context
from . import native
from .context import launch_target
from .ops import ChainOp, DeviceOp, LaunchOp, Phase
from .ownership import Owned, State
from .partition import Partition, _valid
from .sites import LinkSite, Site, internal_files

if TYPE_CHECKING:
    from .kernel import Kernel
    from .plans import LaunchPlan

# (kernel, positional arguments, site) -> the started-ready launch, or None: take the generic path
Runner = Callable[["Kernel", tuple[Any, ...], Site], LaunchOp | None]

_GLOBALS: dict[str, Any] = {
    "_MOVED": State.MOVED, "_EXCLUSIVE": State.EXCLUSIVE, "_CREATED": Phase.CREATED,
    "_ctx": _context, "_launch_target": launch_target, "_LaunchOp": LaunchOp,
    "_new": object.__new__, "_Partition": Partition, "_weakref": weakref.ref, "_partial": partial,
    "_isfinite": math.isfinite,
}


def build_runner(plan: LaunchPlan, kernel_name: str, kinds: tuple[type, ...]) -> Runner | None:
    """The plan's generated launcher, or None when its calls are not the common one. `kinds`:
    per parameter, the class of the value the plan was recorded with (a descriptor fixes it:
    a tensor's and a partition's ids differ)."""
    n = plan.prefix
    if n <= 0:
        return None
    lines = _source(plan, n, kinds)
    namespace: dict[str, Any] = {
        **_GLOBALS, "_plan": plan, "_NAME": kernel_name, "_HOW": plan.how, "_GRID": plan.grid,
        "_TAIL": tuple(plan.tail), "_MUTS": plan.muts, "_READS": plan.tensors,
        "_same_device": same_device,
        **{f"_F{i}": bound for i, _, bound in plan.float_scalars},
        **{f"_N{i}": -bound for i, _, bound in plan.float_scalars if bound is not None},
    }
    filename = f"<cutile launch plan of {kernel_name}>"
    internal_files[filename] = True  # cutile's frame, not the user's (sites, tracebacks)
    code = compile("\n".join(lines), filename, "exec")
    exec(code, namespace)  # our own text, built above from ints and names
    runner: Runner = namespace["run"]
    return runner


def configure_native(kernel: type, tensor: type, unchecked: Callable[..., Any],
                     linked: Callable[..., Any], handle_id: Callable[[Any], int]) -> None:
    """Tells the compiled path (native.py) the classes and constants it works with (kernel.py
    calls this once its class exists, before any plan or executable is made); `unchecked` and
    `linked`: launch.py's launch_unchecked and launch_linked; `handle_id`: plans.py's."""
    native.configure(Partition, tensor, Owned, LaunchOp, DeviceOp, ChainOp, kernel,
                     (State.MOVED, State.EXCLUSIVE, Phase.CREATED, _context, _context._local,
                      launch_target, partial, State.LIVE, Phase.DONE),
                     (LinkSite, internal_files, Phase.ENQUEUED, unchecked, Site, linked, handle_id))
    from .tensor import _reshapes  # tensor.py imports this module's importers: loaded by now
    native.configure_handles(tensor, Partition, TileOrder, _reshapes.table, _valid.table)


def _source(plan: LaunchPlan, n: int, kinds: tuple[type, ...]) -> list[str]:
    a = [f"a{i}" for i in range(n)]
    owned = plan.owned
    lines = ["def run(kernel, args, site):",
             f"    {', '.join(a)}{',' if n == 1 else ''} = args"]
    if owned:
        moved = " or ".join(f"a{i}._state is _MOVED" for i in owned)
        viewed = " or ".join(f"a{i}._region is not None" for i in owned)
        lines += [f"    if {moved} or {viewed}:", "        return None"]
    for i, lo, hi in plan.int_scalars:
        lines += [f"    if not {lo} <= int(a{i}) <= {hi}:", "        return None"]
    for i, limit, bound in plan.float_scalars:  # plans.float_in_range, written out
        floats = "True" if bound is None else f"_N{i} < a{i} < _F{i} or not _isfinite(a{i})"
        lines += [f"    if not (-{limit} < a{i} < {limit} if type(a{i}) is int else {floats}):",
                  "        return None"]
    for i, j, lo, hi in plan.alias_pairs:
        lines += [f"    if {lo} < a{j}._base - a{i}._base < {hi} and _same_device(a{i}, a{j}):",
                  "        return None"]
    lines += _target_lines()
    for i in plan.muts:  # the launch's own handle
        lines += _handoff_lines(i, kinds[i])
    values = [f"n{i}" if i in plan.muts else a[i] for i in range(n)]
    lines += _op_lines(values, bool(plan.tail))
    for i in plan.muts:
        lines.append(f"    a{i}._state, a{i}._how, a{i}._site, a{i}._op = _MOVED, _HOW, site, ref")
    for i in plan.tensors:
        lines += [f"    if a{i}._leases is None:", f"        a{i}._leases = ref",
                  "    else:", f"        a{i}._lease(ref)"]
    lines += [f"    op._results = ({', '.join(values)}{',' if n == 1 else ''})", "    return op"]
    return lines


def _target_lines() -> list[str]:
    """`launch_target()`, inlined: the active backend, its stream, or the thread's current one."""
    return ["    target = _ctx._target",
            "    if target is None:",
            "        be, stream = _launch_target()",
            "    else:",
            "        be, stream = target",
            "        current = _ctx._local.stream",
            "        if current is not None:",
            "            stream = current",
            "    exe = _plan.exe if _plan.backend is be else None"]


def _handoff_lines(i: int, cls: type) -> list[str]:
    """`n{i} = a{i}._handoff()`; for a partition its body, inlined: every slot copied (so a
    slot added to Partition is copied too), then exclusively leased. The runner has checked
    that the partition is in no view family, so its region is None."""
    if cls is not Partition:
        return [f"    n{i} = a{i}._handoff()"]
    fields = [f for f in Partition.__slots__ if f != "__weakref__"]
    return [f"    n{i} = _new(_Partition)",
            *(f"    n{i}.{f} = a{i}.{f}" for f in fields),
            f"    n{i}._state, n{i}._leases = _EXCLUSIVE, None"]


def _op_lines(values: list[str], tail: bool) -> list[str]:
    """A `LaunchOp` filled in place: the slots `LaunchOp.__init__` sets, in one block."""
    args = f"[{', '.join(values)}{', *_TAIL' if tail else ''}]"
    return ["    op = _new(_LaunchOp)",
            "    op.phase, op.backend, op.stream, op.site = _CREATED, be, stream, site",
            "    op._graphed, op._graph_site, op.kernel_name = False, None, _NAME",
            "    op._exe = exe",
            "    op._get_exe = None if exe is not None else _partial(_plan.executable, kernel, be)",
            f"    op._args, op._grid, op._done_event = {args}, _GRID, None",
            "    op._muts, op._reads = _MUTS, _READS",
            "    ref = op._ref = _weakref(op)"]


def same_device(a: Any, b: Any) -> bool:
    """Whether two handles' memory is on one device (an alias check's second half: equal
    addresses on two devices are two buffers)."""
    abuf, bbuf = tensor_of(a)._buf, tensor_of(b)._buf
    return abuf is not None and bbuf is not None and abuf.device == bbuf.device


def tensor_of(v: Any) -> Any:
    """A partition's tensor, or the tensor itself."""
    return v._tensor if type(v) is Partition else v


def float_bound(limit: int) -> np.float64 | None:
    """A float scalar's overflow limit (launch contract's OVERFLOW) as a float64, for the
    runner's test of NumPy and Python floats; None when it is past every float64 (f64's:
    only an int can reach it)."""
    try:
        return np.float64(limit)
    except OverflowError:
        return None
