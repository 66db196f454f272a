"""Lowering: the typed kernel IR of one specialization -> a Tile IR bytecode module.

`abi` fixes the entry parameters (and the launcher's slots), `table` holds the lowering rules
the op definitions use, `arith` builds elementwise/cast/reduction code, `contract` picks the
mul + add/sub pairs that become one `fma` (always on, like nvcc -fmad=true), `emit` walks the
IR; `gathers`, `atomics` and `loops` lower their op families through the lowerer's interface
(`context.LowerCtx`), without importing `emit`. The names below load `emit` on first use: the
op definitions import `arith` and `table` without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_getattr

if TYPE_CHECKING:
    from .abi import EntrySlot
    from .emit import Lowered, lower
    from .types import LowerError

_HOMES = {"EntrySlot": "abi", "Lowered": "emit", "lower": "emit", "LowerError": "types"}


__getattr__ = lazy_getattr(__name__, _HOMES, globals())


__all__ = ["EntrySlot", "LowerError", "Lowered", "lower"]
