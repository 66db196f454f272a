"""How blocks map to the tiles of a Mut partition: the one definition shared by the launcher
(grid), the interpreter (Python ints) and the lowering (which emits the same arithmetic).

- Default order (row_major, not persistent): the grid is the tile grid itself, padded to 3-D;
  block (b0, b1, b2) owns tile (b0, b1, b2). `ct.block_id(axis)` is the tile coordinate. A
  partition of rank 4 or 5 folds axes 2.. into the grid's third axis, row-major.
- Any other order, or `blocks=`: a 1-D grid. Linear tile numbers L in [0, tile_count) map to tile
  coordinates by the order; block b owns L = b (or, persistent, L = b, b + blocks, ... via
  `z.tiles()`).
  - row_major: the last axis varies fastest.
  - col_major: the first axis varies fastest.
  - grouped(g): over the last two axes, bands of g tile rows; inside a band, tiles go down a
    column of the band before moving right, so consecutive blocks share rows of A and columns
    of B in L2. Leading axes (a batch) vary slowest, row-major: each batch entry's tiles are
    grouped on their own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..diagnostics import messages as msg
from ..diagnostics.diagnostic import Diagnostic
from .dsl.orders import TileOrder, row_major
from .ir import KernelIR
from .launch.tiles import launch_grid
from .specialization import MutFacts, Specialization


@dataclass(frozen=True)
class Tiling:
    tile_grid: tuple[int, ...]  # ceil(shape / tile) per axis of the Mut partition
    order: TileOrder = row_major
    blocks: int | None = None  # persistent launch: this many blocks

    @property
    def linear(self) -> bool:
        """True when blocks are numbered linearly (any order but the default, or persistent)."""
        return self.blocks is not None or self.order != row_major

    @property
    def tile_count(self) -> int:
        return math.prod(self.tile_grid)

    def grid(self) -> tuple[int, int, int]:
        return launch_grid(self.tile_grid, self.linear, self.blocks)

    def coords(self, linear: int) -> tuple[int, ...]:
        return tile_coords(self.tile_grid, self.order, linear)

    def tiles_start_step(self, block: tuple[int, int, int]) -> tuple[int, int]:
        """Where `for zt in z.tiles()` starts and how it steps, in linear tile numbers: the
        block's linear id and the block count (row-major over the grid's axes when the grid
        is the tile grid itself), so every tile is visited by exactly one block."""
        grid = self.grid()
        if self.linear:
            return block[0], grid[0]
        return block[0] + grid[0] * (block[1] + grid[1] * block[2]), math.prod(grid)

    def tile_of_block(self, block: tuple[int, int, int]) -> tuple[int, ...]:
        if self.linear:
            return self.coords(block[0])
        if len(self.tile_grid) > 3:
            return (*block[:2], *tile_coords(self.tile_grid[2:], row_major, block[2]))
        return block[: len(self.tile_grid)]


def tile_coords(grid: tuple[int, ...], order: TileOrder, linear: int) -> tuple[int, ...]:
    if order.kind == "grouped" and len(grid) >= 2:
        rows, cols = grid[-2:]
        outer, linear = divmod(linear, rows * cols)
        band = order.group * cols
        first = (linear // band) * order.group
        height = min(rows - first, order.group)
        within = linear % band
        lead = tile_coords(grid[:-2], row_major, outer) if len(grid) > 2 else ()
        return (*lead, first + within % height, within // height)
    axes = range(len(grid)) if order.kind == "col_major" else reversed(range(len(grid)))
    out = [0] * len(grid)
    for axis in axes:
        out[axis] = linear % grid[axis]
        linear //= grid[axis]
    return tuple(out)


def persistent_misuse(ir: KernelIR, spec: Specialization) -> list[Diagnostic]:
    """A persistent partition (`blocks=`) gives each block several slabs; a kernel that reaches
    its slab by block (`z.store(t)` outside `for zt in z.tiles()`) would leave some unwritten."""
    out = []
    for param, facts in zip(ir.params, spec.args, strict=False):
        if not (isinstance(facts, MutFacts) and facts.persistent):
            continue
        use = next((op for op in ir.walk() if op.name == "tile_index" and
                    op.operands[0] is param.value), None)
        if use is not None:
            out.append(msg.PERSISTENT_WITHOUT_LOOP.at(use.span, name=param.name,
                                                      kernel=f"'{ir.name}'"))
    return out
