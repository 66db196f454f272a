"""The rules for a partition's tile shape, at `t.partition(tile_shape)`: one place for both the
checker (at the call, with what it knows) and the runtime (with the values)."""

from __future__ import annotations

from typing import Any

from ...diagnostics import messages as msg
from .facts import Dim

MAX_RANK = 5  # slabs take any positive extents (DESIGN §7); kernels round them up to tiles

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


def _show(tile: tuple[object, ...]) -> str:
    parts = ["?" if d is None else repr(d) for d in tile]
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
