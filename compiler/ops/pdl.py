"""Programmatic dependent launch: `ct.wait_for_predecessor()` (docs/runtime.md).

The typing rule only records the wait; where it may stand (a statement of a `pdl=True`
kernel's own body, once) and what may come before it are compiler/pdl.py's rules, which see
the whole kernel. The interpreter runs launches one after another, so the wait has nothing to
wait for there; the lowering (lower/emit.py) orders every later memory access after it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..frontend.builder import Builder
from ..frontend.values import FValue, none_value
from ..pdl import WAIT
from ..types import Type
from .defs import ir_op
from .registry import Call, function


@function("wait_for_predecessor", "", "in a `pdl=True` kernel: wait until the launch before it "
          "has ended and its writes are visible", "pdl", returns="None")
def _wait(b: Builder, c: Call) -> FValue:
    b.emit(WAIT, [], [], c.span)
    return none_value(c.span)


def _nothing(args: Sequence[Any], attrs: dict[str, Any], outs: Sequence[Type]) -> list[Any]:
    return []


ir_op(WAIT, _nothing)  # lowered by lower/emit.py: it rewires the memory tokens
