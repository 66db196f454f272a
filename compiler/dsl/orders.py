"""Tile orders: the fixed menu of bijections from block ids to tiles (docs/design.md §3)."""

from __future__ import annotations

from dataclasses import dataclass

from ...diagnostics import messages as msg
from ...diagnostics.diagnostic import Span
from ...diagnostics.errors import LaunchError, expected_error


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
    detail = group_problem(group)
    if detail is not None:
        raise _bad_group(detail)
    return TileOrder("grouped", group)


def group_problem(group: object) -> str | None:
    """Why `group` is no group size (an int of at least 1), in words; None when it is one."""
    if isinstance(group, int) and not isinstance(group, bool) and group >= 1:
        return None
    return f"ct.grouped() needs a group size of at least 1, got {group!r}"


def _bad_group(detail: str) -> LaunchError:
    """CT408 at the user's call, worded as the checker words it (at the same line)."""
    import sys

    frame = sys._getframe(2)  # the caller of grouped()
    code = frame.f_code
    line = frame.f_lineno
    span = Span(code.co_filename, line, 0, line, 0)
    return expected_error(LaunchError, [msg.BAD_PARTITION.at(span, detail=detail)])
