"""`t.bitcast(dtype)`: the same bits read as another dtype of the same width (i32 <-> f32,
u16 <-> f16 or bf16, i64 <-> f64, u8 <-> f8e4m3, f8e5m2 or f8e8m0: an fp8 quantizer stores its
bytes). bool (one bit), tf32 (stored as 32 bits, computed on 19) and f4e2m1 (4 bits, no integer
of that width) have no bitcast (CT211).

The interpreter keeps narrow floats as float32 values (runtime/interpreter/numeric.py); an f8
NaN keeps its code in the float32's payload, so every code, NaNs included, reads back as the
bytes the GPU holds. That representation is the runtime's, so the interpreter's face of this op
is there (runtime/interpreter/ops.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...diagnostics import messages as msg
from ..frontend.builder import Builder
from ..frontend.values import FValue
from ..lower.types import OpCtx, scalar
from ..types import TileType
from .defs import ir_op
from .registry import Call, method

if TYPE_CHECKING:
    from ..bytecode import Value as BcValue

NO_BITS = frozenset({"bool_", "tf32", "f4e2m1"})
F8 = frozenset({"f8e4m3", "f8e5m2", "f8e8m0"})


@method("tile", "bitcast", "dtype: Any", "the same bits as `dtype` of the same width (integers, "
        "f16, bf16, f32, f64 and the f8 formats: `t.astype(f8e4m3).bitcast(u8)` gives bytes)",
        "elementwise")
def _bitcast(b: Builder, c: Call) -> FValue:
    x = b.tile(c["self"], "bitcast")
    dtype = b.dtype(c["dtype"], "the dtype of bitcast()")
    assert isinstance(x.type, TileType)
    src = x.type.dtype
    for d, arg in ((src, c["self"]), (dtype, c["dtype"])):
        if d.name in NO_BITS:
            b.fail(msg.BAD_OPERAND, arg.span, op="bitcast()", what=f"{d} (only integer, f8, "
                   "f16, bf16, f32 and f64 tiles have a bitcast)")
    if src.bits != dtype.bits:
        b.fail(msg.BITCAST_WIDTH, c["dtype"].span, src=src, sbits=src.bits, dst=dtype,
               dbits=dtype.bits)
    if src == dtype:
        return x
    return b.emit1("bitcast", [x], TileType(dtype, x.type.shape), c.span, src=src, dtype=dtype)


def _lower(c: OpCtx) -> list[BcValue]:
    if scalar(c.dtype()) == scalar(c.out_dtype):
        return [c.args[0]]  # i32 <-> u32: Tile IR integers are signless
    return [c.b.emit("bitcast", [c.out], c.args[0])]


# the interpreter face is runtime/interpreter/ops.py's: it needs the runtime's representation of
# narrow floats (runtime/floats.py)
ir_op("bitcast", None, _lower)
