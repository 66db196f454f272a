"""Tile orders: the fixed menu of bijections from block ids to tiles (DESIGN §2)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TileOrder:
    kind: str  # "row_major" | "col_major" | "grouped"
    group: int = 1

    def __repr__(self) -> str:
        return f"ct.grouped({self.group})" if self.kind == "grouped" else f"ct.{self.kind}"


row_major = TileOrder("row_major")
col_major = TileOrder("col_major")


def grouped(group: int) -> TileOrder:
    """Consecutive blocks walk `group` rows of tiles column by column (L2-friendly GEMM order)."""
    if isinstance(group, bool) or not isinstance(group, int) or group < 1:
        raise ValueError(f"grouped() needs a positive int, got {group!r}")
    return TileOrder("grouped", group)
