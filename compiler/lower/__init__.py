"""Lowering: the typed kernel IR of one specialization -> a Tile IR bytecode module.

`abi` fixes the entry parameters (and the launcher's slots), `table` maps elementwise ops to
opcodes, `arith` builds elementwise/cast/reduction code, `contract` picks the mul + add/sub
pairs that become one `fma` (always on, like nvcc -fmad=true), `emit` walks the IR.
"""

from .abi import EntrySlot
from .emit import Lowered, lower
from .types import LowerError

__all__ = ["EntrySlot", "LowerError", "Lowered", "lower"]
