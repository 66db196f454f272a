"""One launch `kernel(args)` as the checker sees it, judged by the launch contract.

The rules live in compiler/launch (the runtime applies the same ones to concrete values): this
module only says what the analysis proved about each argument (`facts`) and where each
argument is (`CallLocator`). The interpreter applies the ownership effects.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from ...compiler.launch import ArgFacts
from ...compiler.launch.contract import At
from ...compiler.launch.facts import array_text, fmt_shape, literal_facts, partition_grid
from ...compiler.launch.moves import kernel_label
from ...compiler.launch.regions import Box
from ...compiler.launch.tiles import launch_grid
from ...diagnostics.diagnostic import Span
from .values import (
    DTypeVal,
    HostArrayVal,
    IntVal,
    LiteralVal,
    OpVal,
    PartitionVal,
    Shape,
    TensorVal,
    TupleVal,
    Value,
)

__all__ = ["Arg", "CallLocator", "facts", "fmt_shape", "kernel_label", "slab_grid"]


@dataclass(frozen=True)
class Arg:
    value: Value
    span: Span
    name: str  # the variable it came from, or its source text
    key: str | None = None  # the name or place (`s.p`) it is as a whole, if it is one
    items: int | None = None  # a list display's length (the run refuses a list by its length)


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
                        meta=value.meta, region=_region(value), strides=_strides(value))
    if isinstance(value, PartitionVal):
        grid, text = _grid(value)
        return ArgFacts("partition", value.dtype, value.shape, value.tile, grid, text, value.site,
                        persistent=value.persistent, extent=_extent(value), meta=value.meta,
                        region=_region(value), strides=_strides(value))
    if isinstance(value, IntVal):
        return ArgFacts("int", value=value.value)
    if isinstance(value, LiteralVal):
        return literal_facts(value.value)
    if isinstance(value, DTypeVal):
        return ArgFacts("dtype", value=value.dtype)
    if isinstance(value, TupleVal):
        items = tuple(v.value for v in value.items if isinstance(v, (IntVal, LiteralVal)))
        return ArgFacts("tuple", value=items if len(items) == len(value.items) else None)
    if isinstance(value, OpVal):
        return ArgFacts("op")
    if isinstance(value, HostArrayVal):  # `np.ones(...)` where a tensor goes: the run's words
        return ArgFacts("other", text=array_text("numpy.ndarray", value.dtype, value.shape))
    return ArgFacts(None)


_ALL = 2**63  # past the end of any storage: "somewhere in it"


def _extent(value: TensorVal | PartitionVal) -> tuple[int, int, int] | None:
    """The elements of its storage it spans, as the runtime's byte extents are compared: exact
    where its layout is known; the whole storage for a whole tensor, or for a view whose box
    is exact (two such boxes that meet share elements of a contiguous base, so the boxes
    decide); None (no rule reports) when neither is known."""
    shape = value.shape
    if value.meta:  # no memory to share
        return None
    if value.layout is not None and shape is not None and None not in shape:
        lo, hi = value.layout.extent(cast(tuple[int, ...], shape))
        return (value.storage, lo, hi)
    if not value.view or (value.frame is not None and value.frame.exact):
        return (value.storage, 0, _ALL)
    return None


def _strides(value: TensorVal | PartitionVal) -> tuple[int, ...] | None:
    return value.layout.strides if value.layout is not None else None


def _region(value: TensorVal | PartitionVal) -> tuple[int, Box] | None:
    """A view's box (arguments of one storage alias where boxes intersect); None: all of it."""
    return (value.storage, value.frame.box) if value.view and value.frame is not None else None


def slab_grid(shape: Shape | None, tile: Shape | None) -> tuple[int, ...] | None:
    """How many tiles cover the shape along each axis (the runtime's partition grid), when
    every extent and tile extent is known (and positive)."""
    if shape is None or tile is None or len(shape) != len(tile):
        return None
    dims: list[int] = []
    for s, t in zip(shape, tile, strict=True):
        if s is None or t is None or t <= 0:
            return None
        dims.append(-(-s // t))
    return tuple(dims)


def _grid(value: PartitionVal) -> tuple[tuple[int, ...] | None, str | None]:
    """The grid facts of a partition (`partition_grid`, as the runtime gives them), when its
    extents, tile and order are known (a persistent one's block count is not followed)."""
    order = value.order
    slab = None if value.persistent or order is None else slab_grid(value.shape, value.tile)
    if slab is None or order is None:
        return None, None
    return partition_grid(slab, launch_grid(slab, order != "ct.row_major", None), order, None)
