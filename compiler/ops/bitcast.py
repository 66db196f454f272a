"""`t.bitcast(dtype)`: the same bits read as another dtype of the same width (i32 <-> f32,
u16 <-> f16 or bf16, i64 <-> f64, ...). bool, tf32 and the f8 formats have no bitcast (CT211):
bool is one bit, and tf32/f8 are rounded formats whose bits the interpreter does not keep."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ...diagnostics import messages as msg
from ..dtypes import DType
from ..frontend.builder import Builder
from ..frontend.values import FValue
from ..lower.types import OpCtx, scalar
from ..types import TileType, Type
from .defs import ir_op, numpy
from .registry import Call, method

if TYPE_CHECKING:
    from ..bytecode import Value as BcValue

NO_BITS = frozenset({"bool_", "tf32", "f8e4m3", "f8e5m2", "f4e2m1", "f8e8m0"})


@method("tile", "bitcast", "dtype: Any", "the same bits as `dtype` (of the same width)",
        "elementwise")
def _bitcast(b: Builder, c: Call) -> FValue:
    x = b.tile(c["self"], "bitcast")
    dtype = b.dtype(c["dtype"], "the dtype of bitcast()")
    assert isinstance(x.type, TileType)
    src = x.type.dtype
    for d, arg in ((src, c["self"]), (dtype, c["dtype"])):
        if d.name in NO_BITS:
            b.fail(msg.BAD_OPERAND, arg.span, op="bitcast()", what=f"{d} (only integer, f16, "
                   "bf16, f32 and f64 tiles have a bitcast)")
    if src.bits != dtype.bits:
        b.fail(msg.BITCAST_WIDTH, c["dtype"].span, src=src, sbits=src.bits, dst=dtype,
               dbits=dtype.bits)
    if src == dtype:
        return x
    return b.emit1("bitcast", [x], TileType(dtype, x.type.shape), c.span, src=src, dtype=dtype)


def _bits(x: Any, dtype: DType) -> Any:
    """The storage bits of a tile (bf16 computes in float32: its bits are the high half)."""
    np = numpy()
    if dtype.name == "bf16":
        return (np.asarray(x, np.float32).view(np.uint32) >> 16).astype(np.uint16)
    return np.array(x, copy=True).view(f"u{dtype.itemsize}")


def _from_bits(bits: Any, dtype: DType) -> Any:
    np = numpy()
    if dtype.name == "bf16":
        return (bits.astype(np.uint32) << 16).view(np.float32)
    return bits.view(dtype.storage)


def _interp(args: Sequence[Any], attrs: dict[str, Any], outs: Sequence[Type]) -> list[Any]:
    return [_from_bits(_bits(numpy().asarray(args[0]), attrs["src"]), attrs["dtype"])]


def _lower(c: OpCtx) -> list[BcValue]:
    if scalar(c.dtype()) == scalar(c.out_dtype):
        return [c.args[0]]  # i32 <-> u32: Tile IR integers are signless
    return [c.b.emit("bitcast", [c.out], c.args[0])]


ir_op("bitcast", _interp, _lower)
