"""The compiled launch path (`_native.c`), used where it is built and the launch is the usual one.

Compiled twins of the launch path's Python, each handing what it does not take to its twin,
so none adds a rule (docs/runtime.md, "The compiled launch path"):
- `runner`: a plan's launcher (fastpath.py's `run`): checks, handoffs, the `LaunchOp`, moves
  and leases;
- `linker`: launch.py's `_launch` for `kernel(*args)` and `.then` links (and the unchecked
  launch): the plan by the handles' descriptor ids, then its runner;
- `configure`: `LaunchOp._complete` and `__del__`, `DeviceOp.then`, `Kernel.__call__` (the
  call's site from the caller's frame, the plan by the handles' ids and keyword Consts, then
  its runner) and `chain_step`, one link of a chain (complete, launch, enqueue) in one call;
- `configure_handles`: the usual `reshape`, `partition` (`partition_fast`) and `unpartition`;
- `launcher`: a CUDA executable's enqueue (pack.py's `runner`): the parameter block packed on
  the C stack and `cuLaunchKernel` called with the GIL released.

The extension is built by `pip install` where a C compiler is found (setup.py; optional).
`CUTILE_NATIVE=0` before cutile's runtime is imported leaves it out; `python_path()` turns it
off for a block. `tests/runtime/test_native.py` runs both paths on the same launches and
compares what they leave behind.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from ..compiler.dtypes import BY_NAME

if TYPE_CHECKING:
    from ..compiler.lower.abi import EntrySlot

# The runtime's own types stay unimported here (this module is below fastpath.py and the CUDA
# backend): a plan's launcher `run(kernel, args, site)`, a LaunchPlan and a Packer are Any.
Runner = Callable[[Any, tuple[Any, ...], Any], Any]

try:
    from . import _native  # type: ignore[attr-defined]
except ImportError:  # not built (no C compiler at install): the Python path
    _native = None

ENV = "CUTILE_NATIVE"
VERSION = 11  # _native.c's: a stale build from older source is not used
_INT64 = (-(2**63), 2**63 - 1)
_configured: list[bool] = []

# _native.c's F_ codes, by slot field or scalar ctype
_FIELDS = {"ptr": 0, "shape": 1, "stride": 2, "status": 3}
_SCALARS = {"i64": 4, "i32": 4, "i16": 4, "i8": 4, "u64": 5, "u32": 5, "u16": 5, "u8": 5,
            "f32": 6, "f64": 7, "bool_": 8}
_SIZES = {"i64": 8, "u64": 8, "i32": 4, "u32": 4, "i16": 2, "u16": 2, "i8": 1, "u8": 1,
          "f32": 4, "f64": 8, "bool_": 1}


@contextlib.contextmanager
def python_path() -> Iterator[None]:
    """Inside the block every launch takes the Python path, including the compiled pieces
    already installed (plans' runners, `then`, `_complete`, enqueues): each hands its call to
    its Python twin (what `--backend python-path` of the host fuzzer compares)."""
    was = _native.set_enabled(False) if _native is not None else None
    try:
        yield
    finally:
        if _native is not None:
            _native.set_enabled(was)


def available() -> bool:
    """Whether launches take the compiled path."""
    return (_native is not None and getattr(_native, "VERSION", None) == VERSION
            and os.environ.get(ENV, "1").strip() != "0")


# the handle classes a compiled runner takes (`configure`): (Partition, Tensor)
_handles: list[type] = []
# ChainOp._run_start's compiled step (link, first, done, results) -> results or None, once
# `configure` has run
chain_step: Callable[[Any, Any, Any, tuple[Any, ...]], tuple[Any, ...] | None] | None = None
# Tensor.partition's usual call (t, tile_shape, order, blocks) -> the partition or None, once
# `configure_handles` has run
partition_fast: Callable[[Any, Any, Any, Any], Any] | None = None


def configure(partition: type, tensor: type, owned: type, op: type, device_op: type,
              chain: type, kernel: type, constants: tuple[Any, ...],
              calls: tuple[Any, ...]) -> None:
    """Hands _native.c the classes whose slots it reads and writes by offset and what it
    compares with or calls, then installs the compiled methods (once: fastpath's
    `configure_native`, which kernel.py calls before any plan or executable exists).
    `constants`: State.MOVED, State.EXCLUSIVE, Phase.CREATED, the context module, its
    thread-local, launch_target, functools.partial, State.LIVE and Phase.DONE. `calls`:
    LinkSite, sites.internal_files (user code from cutile's), Phase.ENQUEUED, the function
    behind `Kernel.unchecked`, Site, launch.py's launch_linked and plans.py's handle_id.
    `op._complete`, `op.__del__`, `device_op.then` and `kernel.__call__` become the compiled
    ones; the Python methods stay as `_complete_py`, `_del_py`, `_then_py` and `_call_py`,
    their fallbacks."""
    global chain_step
    if _configured or not available():
        return
    slots = tuple(f for f in vars(partition)["__slots__"] if f != "__weakref__")
    _native.configure(partition, tensor, op, owned, slots, *constants)
    link_site, internal_files, enqueued, unchecked, site, linked, handle_id = calls
    then = _native.then_method(device_op, chain, link_site, internal_files, kernel, enqueued,
                               unchecked, site, linked, handle_id)
    op._complete_py, op._complete = op._complete, _native.complete_method()  # type: ignore
    op._del_py, op.__del__ = op.__del__, _native.finalize_method()  # type: ignore
    device_op._then_py, device_op.then = device_op.then, then  # type: ignore[attr-defined]
    kernel._call_py = vars(kernel)["__call__"]  # type: ignore[attr-defined]
    kernel.__call__ = _native.call_method()  # type: ignore[method-assign]
    chain_step = _native.step
    _handles[:] = (partition, tensor)
    _configured.append(True)


def configure_handles(tensor: type, partition: type, order: type, reshapes: dict[Any, Any],
                      layouts: dict[Any, Any]) -> None:
    """`tensor.reshape` and `partition.unpartition` become the compiled ones for their usual
    call (the Python methods stay as `_reshape_py` and `_unpartition_py`), and
    `partition_fast` takes `tensor.partition`'s; the usual call is a layout the Python method
    accepted before (`reshapes`, `layouts`: tensor.py's and partition.py's memos)."""
    global partition_fast
    if not _configured or partition_fast is not None:
        return
    reshape, partition_fast, unpartition = _native.handle_methods(order, reshapes, layouts)
    for cls, name, method in ((tensor, "reshape", reshape), (partition, "unpartition",
                                                              unpartition)):
        setattr(cls, f"_{name}_py", vars(cls)[name])
        setattr(cls, name, method)


def runner(plan: Any, kernel_name: str, python: Runner, classes: tuple[type, ...]) -> Runner:
    """The plan's compiled launcher, which hands what it does not take to `python` (the
    generated one); `python` itself where the path is off or an owned handle (`classes`: per
    parameter, the class the plan was recorded with) is not exactly a partition or a
    tensor."""
    if not _configured or any(classes[i] not in _handles for i in plan.owned):
        return python
    partitions = tuple(classes[i] is _handles[0] for i in plan.owned)
    lo, hi = _INT64
    ints = tuple((i, max(a, lo), min(b, hi)) for i, a, b in plan.int_scalars)
    floats = tuple((i, None if bound is None else float(bound))
                   for i, _, bound in plan.float_scalars)
    native: Runner = _native.Runner(plan, python, plan.prefix, kernel_name, plan.how,
                                    plan.grid, tuple(plan.tail), plan.muts, plan.tensors,
                                    plan.owned, partitions, ints, floats, plan.alias_pairs)
    return native


Link = TypeVar("Link", bound=Callable[[Any, Any, tuple[Any, ...]], Any])


def linker(python: Link, unchecked: bool = False) -> Link:
    """launch.py's `_launch` (kernel, site, args) for a `.then` link, compiled: the plan found
    by the handles' descriptor ids and its compiled runner called, in one C call; `python`
    for any other call, or where the path is off. It is chosen at import, before any plan
    exists: until `configure`, every call goes to `python`. `unchecked`: the link of a
    `kernel.unchecked` bound method (launch_unchecked_linked), launched without checks."""
    if not available():
        return python
    compiled: Link = _native.Linker(python, unchecked)
    return compiled


Enqueue = Callable[[Sequence[Any], tuple[int, int, int], int], None]


def launcher(packer: Any, address: int | None, function: int, fallback: Enqueue,
             enter: Callable[[], None], fail: Callable[[int], None]) -> Enqueue | None:
    """A compiled enqueue of `function` through the launch function at `address` (libcuda's
    cuLaunchKernel), or None where the path is off or a per-launch slot has a type it does
    not pack (narrow floats: `fallback` keeps those). `fail(code)` raises the driver's error."""
    if not available() or address is None or not _configured:
        return None
    rows = []
    for slot, at in zip(packer.dynamic, packer.dynamic_offsets, strict=True):
        row = _dynamic_row(slot, at)
        if row is None:
            return None
        rows.append(row)
    image = bytes(packer.buffer)
    launch: Enqueue = _native.Launcher(address, function, image, packer.offsets, tuple(rows),
                                       packer.tensor_args, fallback, enter, fail)
    return launch


def _dynamic_row(slot: EntrySlot, at: int) -> tuple[int, int, int, int, int] | None:
    """(parameter, F_ code, axis, offset, size) of one per-launch slot, or None."""
    field = _FIELDS.get(slot.field)
    if field is None:
        dt = BY_NAME.get(slot.ctype)
        field = _SCALARS.get(slot.ctype)
        if field is None or (dt is not None and dt.is_float and dt.rounded):
            return None
    size = _SIZES.get(slot.ctype)
    return None if size is None else (slot.arg, field, slot.axis, at, size)


def null_launch_address() -> int | None:
    """A launch function that does nothing (the null driver's), or None without the build."""
    return int(_native.null_launch_address()) if _native is not None else None
