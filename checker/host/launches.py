"""One launch `kernel(args)` as the checker sees it, judged by the launch contract.

The rules live in compiler/launch (the runtime applies the same ones to concrete values): this
module only says what the analysis proved about each argument (`facts`) and where each
argument is (`CallLocator`). The interpreter applies the ownership effects.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...compiler.launch import ArgFacts
from ...compiler.launch.contract import At
from ...compiler.launch.facts import fmt_shape
from ...compiler.launch.moves import kernel_label
from ...compiler.launch.regions import Box
from ...diagnostics.diagnostic import Span
from .values import (
    DTypeVal,
    IntVal,
    OpVal,
    PartitionVal,
    TensorVal,
    TupleVal,
    Value,
)

__all__ = ["Arg", "CallLocator", "facts", "fmt_shape", "kernel_label"]


@dataclass(frozen=True)
class Arg:
    value: Value
    span: Span
    name: str  # the variable it came from, or its source text


class CallLocator:
    """Spans and names of one call's arguments, as the analysis saw them."""

    def __init__(self, call: Span, positional: list[Arg],
                 keywords: list[tuple[str, Span, Arg]]) -> None:
        self._call = call
        self.positional = positional
        self.keywords = {key: (key_span, arg) for key, key_span, arg in keywords}

    def call(self) -> Span:
        return self._call

    def _arg(self, at: At) -> Arg | None:
        if isinstance(at, int):
            return self.positional[at] if at < len(self.positional) else None
        found = self.keywords.get(at)
        return found[1] if found is not None else None

    def arg(self, at: At) -> Span:
        arg = self._arg(at)
        return arg.span if arg is not None else self._call

    def keyword(self, key: str) -> Span:
        found = self.keywords.get(key)
        return found[0] if found is not None else self._call

    def text(self, at: At, fallback: str) -> str:
        arg = self._arg(at)
        return arg.name if arg is not None else fallback


def facts(value: Value) -> ArgFacts:
    """What the analysis proved about an argument (kind None: nothing)."""
    if isinstance(value, TensorVal):
        return ArgFacts("tensor", value.dtype, value.shape, extent=_extent(value),
                        region=_region(value))
    if isinstance(value, PartitionVal):
        grid = _grid(value)
        return ArgFacts("partition", value.dtype, value.shape, value.tile, grid,
                        None if grid is None else str(grid), value.site,
                        persistent=value.persistent, extent=_extent(value),
                        region=_region(value))
    if isinstance(value, IntVal):
        return ArgFacts("int", value=value.value)
    if isinstance(value, DTypeVal):
        return ArgFacts("dtype", value=value.dtype)
    if isinstance(value, TupleVal):
        items = tuple(v.value for v in value.items if isinstance(v, IntVal))
        return ArgFacts("tuple", value=items if len(items) == len(value.items) else None)
    if isinstance(value, OpVal):
        return ArgFacts("op")
    return ArgFacts(None)


def _extent(value: TensorVal | PartitionVal) -> tuple[int, int, int] | None:
    """The storage; None for a view of unknown bounds (whether it overlaps is not known)."""
    return None if value.view and value.frame is None else (value.storage, 0, 1)


def _region(value: TensorVal | PartitionVal) -> tuple[int, Box] | None:
    """A view's box (arguments of one storage alias where boxes intersect); None: all of it."""
    return (value.storage, value.frame.box) if value.view and value.frame is not None else None


def _grid(value: PartitionVal) -> tuple[int, int, int] | None:
    """The 3-D launch grid a partition gives (trailing 1s), when every extent is known."""
    shape, tile = value.shape, value.tile
    if value.persistent or shape is None or tile is None or len(shape) != len(tile):
        return None
    dims: list[int] = []
    for s, t in zip(shape, tile, strict=True):
        if s is None or t is None or t <= 0:
            return None
        dims.append(math.ceil(s / t))
    g = (*dims, 1, 1, 1)
    return (g[0], g[1], g[2])
