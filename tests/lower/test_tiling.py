"""The lowered block -> tile arithmetic equals compiler/tiling.py for every order and grid."""

from __future__ import annotations

import itertools

import pytest

from cutile.compiler.bytecode import Block, Builder, Value
from cutile.compiler.bytecode.attrs import Dense
from cutile.compiler.dsl.orders import TileOrder, col_major, grouped, row_major
from cutile.compiler.lower.emit import _coords
from cutile.compiler.lower.types import I32_TILE
from cutile.compiler.tiling import tile_coords

_INT = {
    "addi": lambda a, b: a + b, "subi": lambda a, b: a - b, "muli": lambda a, b: a * b,
    "mini": min,
    "divi": lambda a, b: int(a / b),  # signed, rounding toward zero (operands are >= 0)
    "remi": lambda a, b: a - b * int(a / b),
}


def _run(block: Block, env: dict[Value, int]) -> None:
    """A scalar i32 evaluator for the few ops the tile mapping uses."""
    for op in block.ops:
        if op.name == "constant":
            value = op.attrs["value"]
            assert isinstance(value, Dense)
            env[op.result] = int.from_bytes(value.data, "little", signed=True)
        else:
            x, y = op.operands
            assert isinstance(x, Value) and isinstance(y, Value)
            env[op.result] = _INT[op.name](env[x], env[y])


@pytest.mark.parametrize("order", [row_major, col_major, grouped(1), grouped(2), grouped(3)],
                         ids=repr)
@pytest.mark.parametrize("grid", [(7,), (3, 5), (5, 3), (8, 2), (2, 3, 4)], ids=str)
def test_coords_match_tiling(order: TileOrder, grid: tuple[int, ...]) -> None:
    block = Block([])
    b = Builder(block)
    dims = [Value(I32_TILE, f"g{i}") for i in range(len(grid))]
    linear = Value(I32_TILE, "L")
    out = _coords(b, dims, order, linear)
    total = 1
    for g in grid:
        total *= g
    seen = set()
    for lin in range(total):
        env: dict[Value, int] = {linear: lin, **dict(zip(dims, grid, strict=True))}
        _run(block, env)
        got = tuple(env[v] for v in out)
        assert got == tile_coords(grid, order, lin), (lin, got)
        seen.add(got)
    assert seen == set(itertools.product(*map(range, grid)))  # a bijection onto the grid
