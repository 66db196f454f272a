"""`ct.argmax(x, axis=None)` / `ct.argmin(x, axis=None)`: the i32 index of the largest / smallest
element along `axis` (without it: the flat row-major index in the whole tile), the first one on
ties, NaN counting as the extreme (NumPy's semantics).

Lowered as one Tile IR `reduce` over two operands, the values and their indices (an iota along
the axis): the body keeps the candidate that is more extreme, or equal with the lower index.
That combination is associative and commutative, so the reduction order Tile IR picks does not
change the result."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ...diagnostics import messages as msg
from ..bytecode.attrs import CmpOrdering, CmpPredicate, FloatAttr, IntegerAttr, Signedness
from ..bytecode.types import Scalar
from ..bytecode.types import TileType as BcTile
from ..dtypes import I32, DType, arithmetic_refusal, integer_range
from ..frontend.builder import Builder as FBuilder
from ..frontend.values import FValue
from ..intervals import I32_MAX
from ..lower.arith import sign
from ..lower.types import OpCtx, scalar
from ..types import TileType, Type
from .defs import ir_op, numpy
from .reduce import flattened, reduced_shape
from .registry import Call, function

if TYPE_CHECKING:
    from ..bytecode import Builder
    from ..bytecode import Value as BcValue


def _rule(kind: str) -> Any:
    def rule(b: FBuilder, c: Call) -> FValue:
        x = b.tile(c["x"], kind)
        assert isinstance(x.type, TileType)
        whole = b.is_none(c["axis"])
        if x.type.rank == 0 and not whole:
            b.fail(msg.RANK_NEEDED, c["x"].span, what=f"{kind}()", want="1 or more", shape="()")
        if x.type.dtype.is_bool:
            b.fail(msg.BAD_OPERAND, c["x"].span, op=f"{kind}()",
                   what="bool tiles (use .astype())")
        refusal = arithmetic_refusal(x.type.dtype)
        if refusal is not None:
            b.fail(msg.BAD_OPERAND, c["x"].span, op=f"{kind}()",
                   what=f"{x.type.dtype} tiles ({refusal}: .astype(f32) first)")
        axis, keep, shape = reduced_shape(b, c, x.type, kind)
        return b.emit1("argreduce", [x], TileType(I32, shape), c.span, kind=kind,
                       axis=axis, keepdims=keep)
    return rule


for _kind, _word in (("argmax", "largest"), ("argmin", "smallest")):
    function(_kind, "x: Any, axis: int | None = None, keepdims: bool = False",
             f"index (i32) of the {_word} element along `axis`, or the flat (row-major) index "
             "in the whole tile without it; the first on ties, NaN counts as extreme",
             "reductions")(_rule(_kind))


def _interp(args: Sequence[Any], attrs: dict[str, Any], outs: Sequence[Type]) -> list[Any]:
    fn = getattr(numpy(), attrs["kind"])
    return [fn(args[0], axis=attrs["axis"], keepdims=attrs["keepdims"])]


def _identity(kind: str, dtype: DType) -> FloatAttr | IntegerAttr:
    s = scalar(dtype)
    if dtype.is_float:
        return FloatAttr(s, float("-inf") if kind == "argmax" else float("inf"))
    lo, hi = integer_range(dtype)
    return IntegerAttr(s, lo if kind == "argmax" else hi)


def _body(b: Builder, kind: str, dtype: DType, e: BcValue, acc: BcValue, ei: BcValue,
          ai: BcValue) -> list[BcValue]:
    """Keeps (e, ei) if e is more extreme than acc, or equally so with a lower index."""
    i1 = BcTile(Scalar.I1)
    pred = CmpPredicate.GT if kind == "argmax" else CmpPredicate.LT

    def cmp(p: CmpPredicate, x: BcValue, y: BcValue) -> BcValue:
        if dtype.is_float:
            return b.emit("cmpf", [i1], x, y, comparison_predicate=p,
                          comparison_ordering=CmpOrdering.ORDERED)
        return b.emit("cmpi", [i1], x, y, comparison_predicate=p, signedness=sign(dtype))

    better = cmp(pred, e, acc)
    tie = cmp(CmpPredicate.EQ, e, acc)
    if dtype.is_float:  # NaN is the extreme: a NaN beats a number, NaNs tie with each other
        e_nan = b.emit("cmpf", [i1], e, e, comparison_predicate=CmpPredicate.NE,
                       comparison_ordering=CmpOrdering.UNORDERED)
        a_nan = b.emit("cmpf", [i1], acc, acc, comparison_predicate=CmpPredicate.NE,
                       comparison_ordering=CmpOrdering.UNORDERED)
        a_num = b.emit("xori", [i1], a_nan, b.constant(True, i1))
        better = b.emit("ori", [i1], better, b.emit("andi", [i1], e_nan, a_num))
        tie = b.emit("ori", [i1], tie, b.emit("andi", [i1], e_nan, a_nan))
    first = b.emit("cmpi", [i1], ei, ai, comparison_predicate=CmpPredicate.LT,
                   signedness=Signedness.SIGNED)
    take = b.emit("ori", [i1], better, b.emit("andi", [i1], tie, first))
    return [b.emit("select", [e.type], take, e, acc), b.emit("select", [ei.type], take, ei, ai)]


def _lower(c: OpCtx) -> list[BcValue]:
    kind, dtype = c.attrs["kind"], c.dtype()
    x, axis = flattened(c)
    xt = x.type
    assert isinstance(xt, BcTile)
    rank = len(xt.shape)
    n = xt.shape[axis]
    idx_t = BcTile(Scalar.I32, xt.shape)
    along = BcTile(Scalar.I32, tuple(n if i == axis else 1 for i in range(rank)))
    idx = c.b.emit("iota", [BcTile(Scalar.I32, (n,))])
    if along.shape != (n,):
        idx = c.b.emit("reshape", [along], idx)
    if along.shape != xt.shape:
        idx = c.b.emit("broadcast", [idx_t], idx)
    dropped = tuple(d for i, d in enumerate(xt.shape) if i != axis)
    elem, ielem = BcTile(xt.elem), BcTile(Scalar.I32)
    op = c.b.op("reduce", [BcTile(xt.elem, dropped), BcTile(Scalar.I32, dropped)], [x, idx],
                regions=[[elem, elem, ielem, ielem]], dim=axis,
                identities=(_identity(kind, dtype), IntegerAttr(Scalar.I32, I32_MAX)))
    with c.b.at(op.regions[0]) as (e, acc, ei, ai):
        c.b.op("yield", [], _body(c.b, kind, dtype, e, acc, ei, ai))
    result = op.results[1]
    if c.out.shape != dropped:  # keepdims
        result = c.b.emit("reshape", [c.out], result)
    return [result]


ir_op("argreduce", _interp, _lower)
