"""Running a specialized kernel's typed IR with NumPy, one tile block after another.

Control flow follows the IR's structured regions: `for` (lb, ub, step, inits; body ends in
`continue`), `loop` (inits; exits by `break`), `if` (two regions ending in `yield`, `break` or
`continue`). Blocks run in row-major order of the grid; within a block, ops run in program order,
which is the order Tile IR's memory tokens impose.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ...compiler import api
from ...compiler.ir import Block as IRBlock
from ...compiler.ir import KernelIR, Value
from ...compiler.specialization import Specialization
from .memory import tensor_ref
from .numeric import fit
from .ops import Block, run_op

if TYPE_CHECKING:
    from ..kernel import Kernel

Signal = tuple[str, list[Any]] | None  # ("yield" | "continue" | "break" | "return", values)


class Program:
    def __init__(self, ir: KernelIR, kinds: list[str]) -> None:
        self.ir = ir
        self.kinds = kinds  # per IR parameter: tensor, mut, scalar, const

    def run(self, args: Sequence[Any], grid: tuple[int, int, int]) -> None:
        env: dict[int, Any] = {}
        for p, kind, value in zip(self.ir.params, self.kinds, args, strict=True):
            env[id(p.value)] = self._param(kind, p.value, value)
        with np.errstate(all="ignore"):  # device arithmetic wraps and overflows silently
            for coords in itertools.product(*(range(g) for g in grid)):
                block = Block((coords[0], coords[1], coords[2]), grid)
                _run(self.ir.body, dict(env), block)

    @staticmethod
    def _param(kind: str, v: Value, value: Any) -> Any:
        if kind in ("tensor", "mut"):
            return tensor_ref(value)
        if kind == "scalar":
            t = v.type
            return fit(value, t.dtype) if hasattr(t, "dtype") else value
        return value


def build_program(kernel: Kernel, spec: Specialization) -> Program:
    ir = api.specialized_ir(kernel.module(), kernel.__name__, spec)
    return Program(ir, [p.kind for p in ir.params])


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
            results = _for(op.regions[0], args, env, blk)
        elif name == "loop":
            results = _loop(op.regions[0], args, env, blk, len(op.results))
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


def _for(body: IRBlock, args: list[Any], env: dict[int, Any], blk: Block) -> list[Any]:
    lb, ub, step, *carried = args
    i, end, inc = int(lb), int(ub), int(step)
    while i < end:
        signal = _enter(body, [np.int32(i), *carried], env, blk)
        if signal is not None and signal[0] == "break":
            return signal[1]
        carried = signal[1] if signal is not None else carried
        i += inc
    return carried


def _loop(body: IRBlock, args: list[Any], env: dict[int, Any], blk: Block,
          n_results: int) -> list[Any]:
    state = args
    while True:
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
