"""Running a specialized kernel's typed IR with NumPy, one tile block after another.

Control flow follows the IR's structured regions: `for` (lb, ub, step, inits; body ends in
`continue`), `loop` (inits; exits by `break`), `if` (two regions ending in `yield`, `break`,
`continue` or `return`: a kernel's return ends its block, outside loops only). Blocks run in
row-major order of the grid; within a block, ops run in program order, which is the order Tile
IR's memory tokens impose.

Limits (CT412/CT411, see docs/runtime.md): a run-time loop step below 1 (`range_check`; the
frontend rejects a constant one) runs that loop 0 times and fails the launch once all its blocks
ran, as the GPU's status word does (the launch's waiter raises it: backends/host.HostReport); a
launch runs at most CUTILE_INTERPRETER_MAX_ITERATIONS
steps (default 2**24): each block is one, each loop iteration one, a `for` loop's counted when
it starts (its trip count is known then) and a `while` loop's per iteration, so a huge grid or
trip count fails at once instead of seeming to hang; a tile that cannot fit in the host's memory
fails before any block runs.
"""

from __future__ import annotations

import itertools
import math
import os
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import numpy as np

from ...compiler.ir import Block as IRBlock
from ...compiler.ir import KernelIR, Op, Param
from ...compiler.specialization import Specialization
from ...compiler.types import TileType
from ...compiler.unit import kernel_unit, specialized_ir
from ...diagnostics import messages as msg
from ...diagnostics.diagnostic import Span
from ...diagnostics.errors import CutileError, error_for
from .. import limits
from .memory import tensor_ref
from .numeric import fit
from .ops import Block, run_op

if TYPE_CHECKING:
    from ..backends.base import KernelSource

Signal = tuple[str, list[Any]] | None  # ("yield" | "continue" | "break" | "return", values)


class Program:
    def __init__(self, ir: KernelIR, kinds: list[str]) -> None:
        self.ir = ir
        self.kinds = kinds  # per IR parameter: tensor, mut, scalar, const

    def run(self, args: Sequence[Any], grid: tuple[int, int, int]) -> CutileError | None:
        """Runs every block; returns the launch's first bad range() step (CT411), which its
        waiter raises (backends/host.HostReport), as the GPU's status word reports it."""
        env: dict[int, Any] = {}
        # device arithmetic wraps and overflows silently
        with np.errstate(all="ignore"), _budget(self.ir.name):
            for p, kind, value in zip(self.ir.params, self.kinds, args, strict=True):
                env[id(p.value)] = self._param(kind, p, value)
            _spend(grid[0] * grid[1] * grid[2], self.ir.span)  # each block is a step too
            try:
                for coords in itertools.product(*(range(g) for g in grid)):
                    block = Block((coords[0], coords[1], coords[2]), grid)
                    _run(self.ir.body, dict(env), block)
                failure: CutileError | None = _local.budget.failure
            except MemoryError:  # temporaries of large tiles: a coded error, not a crash
                raise _error(msg.INTERPRETER_OUT_OF_MEMORY, self.ir.span,
                             kernel=self.ir.name) from None
        return failure

    def _param(self, kind: str, p: Param, value: Any) -> Any:
        if kind in ("tensor", "mut", "acc"):
            return tensor_ref(value)
        t = p.value.type
        if kind == "scalar" and hasattr(t, "dtype"):
            try:
                return fit(value, t.dtype)
            except OverflowError:  # an int beyond float64 for a float parameter
                raise _error(msg.ARGUMENT_MISMATCH, self.ir.span, param=p.name,
                             kernel=f"'{self.ir.name}'", want=f"a {t.dtype} number",
                             got=f"int {value}") from None
        return value


def build_program(kernel: KernelSource, spec: Specialization) -> Program:
    ir = specialized_ir(kernel_unit(kernel.module(), kernel.qualname), spec)
    _check_tiles(ir.body, ir.name)
    return Program(ir, [p.kind for p in ir.params])


def _error(message: msg.Message, span: Span, **fields: Any) -> CutileError:
    return error_for([message.at(span, **fields)])


def _check_tiles(block: IRBlock, kernel: str) -> None:
    """CT412 for a tile the host cannot hold (a Const made it huge), before any block runs."""
    host = limits.host_memory()
    for op in block.ops:
        for value in op.results:
            t = value.type
            dims = [d for d in t.shape if isinstance(d, int)] if isinstance(t, TileType) else []
            if isinstance(t, TileType) and len(dims) == len(t.shape):
                count = math.prod(dims)
                nbytes = count * t.dtype.itemsize
                if count > limits.MAX_ELEMENTS or (host is not None and nbytes > host):
                    raise _error(msg.TOO_LARGE, op.span, what=f"a tile in {kernel}",
                                 shape=tuple(dims), dtype=t.dtype,
                                 size=limits.format_bytes(nbytes),
                                 limit=f"the host's memory ({limits.format_bytes(host or 0)})")
        for region in op.regions:
            _check_tiles(region, kernel)


DEFAULT_MAX_ITERATIONS = 2**24
_local = threading.local()  # the running launch's budget (launches may run on worker threads)


class _Budget:
    __slots__ = ("failure", "kernel", "left", "limit")

    def __init__(self, kernel: str, limit: int) -> None:
        self.kernel, self.left, self.limit = kernel, limit, limit
        self.failure: CutileError | None = None  # the first bad range() step of the launch


def max_iterations() -> int:
    raw = os.environ.get("CUTILE_INTERPRETER_MAX_ITERATIONS", "").strip()
    if not raw:
        return DEFAULT_MAX_ITERATIONS
    if raw.isdigit() and int(raw) > 0:
        return int(raw)
    raise error_for([msg.BAD_ITERATION_LIMIT.at(Span("<environment>", 1, 0, 1, 0), value=raw)])


@contextmanager
def _budget(kernel: str) -> Iterator[None]:
    outer = getattr(_local, "budget", None)
    _local.budget = _Budget(kernel, max_iterations())
    try:
        yield
    finally:
        _local.budget = outer


def _spend(n: int, span: Span) -> None:
    budget: _Budget = _local.budget
    budget.left -= n
    if budget.left < 0:
        raise _error(msg.INTERPRETER_LIMIT, span, kernel=budget.kernel, limit=budget.limit)


def _run(block: IRBlock, env: dict[int, Any], blk: Block) -> Signal:
    for op in block.ops:
        name = op.name
        if name in ("yield", "continue", "break", "return"):
            return name, [env[id(v)] for v in op.operands]
        args = [env[id(v)] for v in op.operands]
        if name == "if":
            results, signal = _if(op.regions, args, env, blk)
            if signal is not None:
                return signal
        elif name == "for":
            results = _for(op, args, env, blk)
        elif name == "loop":
            results = _loop(op, args, env, blk)
        elif name == "range_check":
            results = [_range_check(op, args)]
        else:
            results = run_op(op, args, blk)
        for value, result in zip(op.results, results, strict=True):
            env[id(value)] = result
    return None


def _if(regions: list[IRBlock], args: list[Any], env: dict[int, Any], blk: Block
        ) -> tuple[list[Any], Signal]:
    region = regions[0] if bool(np.asarray(args[0])) else regions[1]
    signal = _run(region, env, blk)
    if signal is None or signal[0] == "yield":
        return (signal[1] if signal else []), None
    return [], signal  # break / continue of the enclosing loop


def _range_check(op: Op, args: list[Any]) -> Any:
    """A range() step that arrived at run time must be at least 1 (the GPU checks the same:
    compiler/lower/loops.py); the loop's upper bound passes through. A bad step is noted (the
    launch's first) and its loop runs 0 times, as on the GPU; the launch fails once all its
    blocks ran."""
    lb, ub, step = args
    if int(step) < 1:
        budget: _Budget = _local.budget
        if budget.failure is None:
            budget.failure = _error(msg.LOOP_STEP, op.span, step=int(step), kernel=budget.kernel)
        return lb
    return ub


def _for(op: Op, args: list[Any], env: dict[int, Any], blk: Block) -> list[Any]:
    body = op.regions[0]
    lb, ub, step, *carried = args
    i, end, inc = int(lb), int(ub), int(step)
    if inc < 1:  # only after a failed range_check (its loop runs 0 times): others are >= 1
        return list(carried)
    trips = max(0, -(-(end - i) // inc))
    _spend(trips, op.span)  # all at once: a huge trip count fails before it starts
    while i < end:
        trips -= 1
        signal = _enter(body, [np.int32(i), *carried], env, blk)
        if signal is not None and signal[0] == "break":
            _local.budget.left += trips  # the iterations it did not run
            return signal[1]
        carried = signal[1] if signal is not None else carried
        i += inc
    return carried


def _loop(op: Op, args: list[Any], env: dict[int, Any], blk: Block) -> list[Any]:
    body = op.regions[0]
    state = args
    while True:
        _spend(1, op.span)
        signal = _enter(body, state, env, blk)
        if signal is not None and signal[0] == "break":
            return signal[1]
        if signal is None:
            raise RuntimeError("loop body ended without continue or break")
        state = signal[1]


def _enter(body: IRBlock, values: list[Any], env: dict[int, Any], blk: Block) -> Signal:
    for arg, value in zip(body.args, values, strict=True):
        env[id(arg)] = value
    return _run(body, env, blk)
