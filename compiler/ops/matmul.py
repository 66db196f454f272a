"""Matrix multiply-accumulate: ct.mma(a, b, acc) and a @ b."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ...diagnostics import messages as msg
from ...diagnostics.diagnostic import Span
from ..dtypes import BF16, F8E4M3, F8E5M2, F16, F32, F64, I8, I32, TF32, U8, DType
from ..frontend.builder import Arg, Builder
from ..frontend.values import FValue, const_value
from ..lower import arith
from ..lower.types import OpCtx
from ..types import Dim, TileType, Type, fmt_shape
from .defs import ir_op, numpy
from .registry import Call, function

if TYPE_CHECKING:
    from ..bytecode import Value as BcValue

# operand dtype -> accumulator dtypes it may use (the first is what `a @ b` accumulates in)
MMA_PAIRS: dict[DType, tuple[DType, ...]] = {
    F16: (F32, F16), BF16: (F32,), TF32: (F32,), F32: (F32,), F64: (F64,),
    F8E4M3: (F32, F16), F8E5M2: (F32, F16), I8: (I32,), U8: (I32,),
}


def _supported() -> str:
    return ", ".join(f"{a}->{'/'.join(map(str, accs))}" for a, accs in MMA_PAIRS.items())


def _differ(x: Dim, y: Dim) -> bool:
    return isinstance(x, int) and isinstance(y, int) and x != y


def check_mma(b: Builder, a: TileType, w: TileType, acc: TileType, span: Span) -> None:
    def bad(why: str) -> None:
        b.fail(msg.MMA_SHAPE, span, a=fmt_shape(a.shape), b=fmt_shape(w.shape),
               c=fmt_shape(acc.shape), why=why)

    if not (a.rank == w.rank == acc.rank and a.rank in (2, 3)):
        bad("operands must all be rank 2 (or 3, batched)")
    if _differ(a.shape[-1], w.shape[-2]):
        bad(f"K differs ({a.shape[-1]} vs {w.shape[-2]})")
    batch_differs = a.rank == 3 and (_differ(a.shape[0], w.shape[0]) or
                                     _differ(a.shape[0], acc.shape[0]))
    if _differ(a.shape[-2], acc.shape[-2]) or _differ(w.shape[-1], acc.shape[-1]) or \
            batch_differs:
        bad("acc must have shape (M, N)")
    if a.dtype != w.dtype or acc.dtype not in MMA_PAIRS.get(a.dtype, ()):
        b.fail(msg.MMA_DTYPE, span, a=a.dtype, b=w.dtype, c=acc.dtype, supported=_supported())


@function("mma", "a: Any, b: Any, acc: Any, fast_acc: bool = False",
          "acc + a @ b (f16->f16/f32, bf16->f32, tf32->f32, f32->f32, f8->f16/f32, f64->f64, "
          "i8/u8->i32; both operands one dtype); `fast_acc=True` (f8 only) lets the tensor cores "
          "keep the running sum",
          "matmul")
def _mma(b: Builder, c: Call) -> FValue:
    x, y, acc = (b.tile(c[k], "mma") for k in ("a", "b", "acc"))
    assert isinstance(x.type, TileType) and isinstance(y.type, TileType)
    assert isinstance(acc.type, TileType)
    check_mma(b, x.type, y.type, acc.type, c.span)
    fast = b.static_const(c["fast_acc"], "fast_acc of mma()")
    if not isinstance(fast, bool):
        b.fail(msg.NOT_CONSTANT, c["fast_acc"].span, what="fast_acc of mma() (a bool)")
    if fast and x.type.dtype not in (F8E4M3, F8E5M2):
        b.fail(msg.MMA_FAST_ACC, c["fast_acc"].span, a=x.type.dtype)
    # the attribute only when set: an mma without it keeps its IR (and its cache keys)
    return b.emit1("mma", [x, y, acc], acc.type, c.span, **({"fast_acc": True} if fast else {}))


def matmul(b: Builder, lhs: Arg, rhs: Arg, span: Span) -> FValue:
    """`a @ b`: accumulate in the widest supported accumulator, return the operand dtype."""
    x, y = b.tile(lhs, "matmul"), b.tile(rhs, "matmul")
    assert isinstance(x.type, TileType) and isinstance(y.type, TileType)
    if x.type.rank not in (2, 3) or y.type.rank != x.type.rank:
        b.fail(msg.MMA_SHAPE, span, a=fmt_shape(x.type.shape), b=fmt_shape(y.type.shape),
               c="?", why="operands must both be rank 2 (or 3, batched)")
    acc_dtype = MMA_PAIRS.get(x.type.dtype, (x.type.dtype,))[0]
    shape = (*x.type.shape[:-1], y.type.shape[-1])
    acc_type = TileType(acc_dtype, shape)
    check_mma(b, x.type, y.type, acc_type, span)
    zero = b.materialize(const_value(span, 0 if acc_dtype.is_integer else 0.0), acc_dtype, span)
    acc = b.broadcast(zero, shape, span)
    out = b.emit1("mma", [x, y, acc], acc_type, span)
    if acc_dtype == x.type.dtype or x.type.dtype.is_integer:
        return out
    return b.emit1("astype", [out], TileType(x.type.dtype, shape), span, dtype=x.type.dtype)


# -- interpreter and lowering of the IR op these rules emit -------------------------------------
def _mma_np(args: Sequence[Any], attrs: dict[str, Any], outs: Sequence[Type]) -> list[Any]:
    np = numpy()
    a, b, acc = args
    wide = np.int64 if a.dtype.kind in "iu" else (np.float64 if a.dtype == np.float64
                                                  else np.float32)
    return [np.matmul(a.astype(wide), b.astype(wide)) + acc.astype(wide)]


def _mma_lower(c: OpCtx) -> list[BcValue]:
    return [arith.mma(c.b, c.args[0], c.args[1], c.args[2], c.dtype(0), c.dtype(1),
                      fast_acc=c.attrs.get("fast_acc", False))]


ir_op("mma", _mma_np, _mma_lower)
