"""The typed IR's operations, one `IrOp` each: what the interpreter computes and how the op lowers.

An op file in this package defines a user-facing operation once (`registry.function`/`method`:
its signature, typing rule and doc line) next to the `IrOp`s its rule emits (NumPy semantics and
Tile IR lowering). The frontend, the interpreter (`runtime/interpreter/ops.py`), the lowering
(`lower/emit.py`), the stubs (`dsl/ops.py`) and the op table of `docs/language.md` all read these
tables; `scripts/gen_ops.py` writes the generated files and `tests/test_op_table.py` checks that
every op has every face.

Interpreter semantics are plain NumPy functions of the operands (NumPy arrays), the op's
attributes and its result types; they return one array per result, which the runtime rounds to
the result dtype. The compiler never imports the runtime, and NumPy is imported on first use
only, so the checker stays light. Ops whose meaning needs the runtime's state (memory, block
coordinates, printing) or the lowerer's state (views, tokens, the tile grid) leave that face to
those components: `interp=None` / `lower=None`, and the faces test checks they implement them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ..types import TileType, Type

if TYPE_CHECKING:
    from ..bytecode import Value as BcValue
    from ..lower.types import OpCtx

Interp = Callable[[Sequence[Any], dict[str, Any], Sequence[Type]], list[Any]]
Lower = Callable[["OpCtx"], "list[BcValue]"]


@dataclass(frozen=True, eq=False)
class IrOp:
    """One typed-IR op. `interp`/`lower` None: the runtime's interpreter / the lowerer itself
    implement it (they need memory, block coordinates or tokens)."""

    name: str
    interp: Interp | None = None
    lower: Lower | None = None


IR_OPS: dict[str, IrOp] = {}


def ir_op(name: str, interp: Interp | None = None, lower: Lower | None = None) -> IrOp:
    if name in IR_OPS:
        raise ValueError(f"IR op {name!r} is defined twice")
    op = IR_OPS[name] = IrOp(name, interp, lower)
    return op


def numpy() -> ModuleType:
    """NumPy, imported when the interpreter first runs an op (the checker never does)."""
    import numpy as np

    return np


def out_tile(outs: Sequence[Type], i: int = 0) -> TileType:
    t = outs[i]
    assert isinstance(t, TileType)
    return t


# Ops that need the runtime's memory and block state, or the lowerer's views and tokens:
# declared here so the tables are complete; the faces test checks both components handle them.
for _name in ("block_id", "num_blocks", "tile_index", "tile_coords", "tile_count",
              "tiles_start_step", "partition",
              "num_tiles", "load", "store", "slab_load", "slab_store", "slab_extent",
              "tensor_extent", "printf"):
    ir_op(_name)
