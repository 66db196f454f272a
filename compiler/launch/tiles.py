"""The rules for a partition's tile shape, at `t.partition(tile_shape)`: one place for both the
checker (at the call, with what it knows) and the runtime (with the values)."""

from __future__ import annotations

import math
from typing import Any

from ...diagnostics import messages as msg
from ..dsl.orders import TileOrder
from .facts import Dim

MAX_RANK = 5  # slabs take any positive extents (docs/design.md §3); kernels round them up to tiles
# the largest launch grid a device takes (CUDA's limits on gridDim x, y, z); the interpreter
# holds to them too, so a launch that fails on one backend fails on both, with one code
MAX_GRID = (2**31 - 1, 65535, 65535)

Problem = tuple[msg.Message, dict[str, Any]]


def partition_tile_problem(tile: tuple[Dim, ...] | tuple[object, ...],
                           unknown_ok: bool = True) -> Problem | None:
    """What is wrong with a tile shape, as a message and its fields; None when nothing is known
    to be wrong (the checker's unknown extents are None and pass unless `unknown_ok` is off)."""
    if not 1 <= len(tile) <= MAX_RANK:
        return msg.MUT_RANK, {"rank": len(tile)}
    for dim in tile:
        if dim is None and unknown_ok:
            continue
        if isinstance(dim, bool) or not isinstance(dim, int) or dim < 1:
            return msg.BAD_PARTITION, {
                "detail": f"tile dimensions are positive ints, got {dim!r} in {_show(tile)}"}
    return None


def as_tile(tile_shape: object) -> tuple[object, ...] | None:
    """`t.partition(tile_shape)`'s tile as a tuple (an int is one axis); None when it is not
    an int or a sequence of ints' kind at all (`tile_kind_problem` says so)."""
    if isinstance(tile_shape, int):
        return (tile_shape,)
    if isinstance(tile_shape, tuple | list):
        return tuple(tile_shape)
    return None


def tile_kind_problem(tile_shape: object) -> Problem:
    """CT408 for a tile shape that is no int and no tuple (None, a float, a string)."""
    return msg.BAD_PARTITION, {
        "detail": f"the tile shape must be an int or a tuple of ints, not {tile_shape!r}"}


def tile_rank_problem(tile: tuple[object, ...], shape: tuple[object, ...],
                      name: str) -> Problem | None:
    """CT408 for a tile shape whose rank is not the tensor's (`name` as the call shows it)."""
    if len(tile) == len(shape):
        return None
    return msg.BAD_PARTITION, {"detail": f"tile shape {_show(tile)} has rank {len(tile)} but the "
                               f"tensor {name} has shape {_show(shape)}"}


def blocks_problem(blocks: object) -> Problem | None:
    """CT408 for a `blocks=` that is not a positive int (None: not persistent)."""
    if blocks is None or (isinstance(blocks, int) and not isinstance(blocks, bool)
                          and blocks >= 1):
        return None
    return msg.BAD_PARTITION, {"detail": f"blocks must be a positive int, not {blocks!r}"}


def order_problem(order: object, rank: int | None) -> Problem | None:
    """CT408 for an `order=` that is no tile order, or `ct.grouped(n)` of a partition of rank 1
    (`rank` None: not known)."""
    if not isinstance(order, TileOrder):
        return msg.BAD_PARTITION, {"detail": "order must be ct.row_major, ct.col_major or "
                                   f"ct.grouped(n), not {order!r}"}
    if order.kind == "grouped" and rank is not None and rank < 2:
        return msg.BAD_PARTITION, {
            "detail": "ct.grouped(n) orders tiles of a rank-2 or rank-3 partition"}
    return None


def _show(tile: tuple[object, ...]) -> str:
    parts = ["?" if d is None else repr(d) for d in tile]
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


def launch_grid(slab_grid: tuple[int, ...], linear: bool, blocks: int | None
                ) -> tuple[int, int, int]:
    """The launch grid of a partition (compiler/tiling.py's `Tiling.grid`; the checker calls
    it with what it knows): `blocks` for a persistent one, all tiles in x for another order
    than row_major, else the tile grid with axes 3.. folded into z."""
    if blocks is not None:
        return (blocks, 1, 1)
    count = math.prod(slab_grid)
    if linear:
        return (count, 1, 1)
    g = (*slab_grid, 1, 1, 1)
    return (g[0], g[1], math.prod(slab_grid[2:]) if len(slab_grid) > 3 else g[2])


def grid_problem(slab_grid: tuple[int, ...], launch: tuple[int, int, int]) -> Problem | None:
    """CT408 when a partition would need a launch grid beyond the device's limits."""
    if all(g <= m for g, m in zip(launch, MAX_GRID, strict=True)):
        return None
    shown = "" if launch == (*slab_grid, 1, 1)[:3] else f" (launched as {launch})"
    return msg.BAD_PARTITION, {"detail": f"the partition grid {_show(slab_grid)}{shown} exceeds "
                               f"the device limit {MAX_GRID}"}


def grid_keyword_problem(grid: tuple[int, int, int]) -> str | None:
    """What is wrong with a `grid=` launch keyword's value, worded for CT406's `got`."""
    if all(g <= m for g, m in zip(grid, MAX_GRID, strict=True)):
        return None
    return f"{grid}, beyond the device limit {MAX_GRID}"
