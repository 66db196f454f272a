"""Reductions and scans along one axis."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import messages as msg
from ..bytecode import Value as BcValue
from ..frontend.builder import Builder
from ..frontend.values import FValue
from ..lower import arith
from ..lower.types import OpCtx
from ..types import TileType, Type
from .defs import ir_op, numpy
from .registry import Call, Rule, function
from .shape import norm_axis

REDUCTIONS = ("sum", "max", "min", "prod")
SCANS = ("cumsum",)


def _reduce(b: Builder, c: Call, kind: str) -> FValue:
    x = b.tile(c["x"], kind)
    assert isinstance(x.type, TileType)
    if x.type.rank == 0:
        b.fail(msg.RANK_NEEDED, c["x"].span, what=f"{kind}()", want="1 or more", shape="()")
    if x.type.dtype.is_bool:
        b.fail(msg.BAD_OPERAND, c["x"].span, op=f"{kind}()", what="bool tiles (use .astype())")
    axis = norm_axis(b, c["axis"], x.type.rank, f"the axis of {kind}()")
    keep = b.static_const(c["keepdims"], f"keepdims of {kind}()")
    if not isinstance(keep, bool):
        b.fail(msg.NOT_CONSTANT, c["keepdims"].span, what=f"keepdims of {kind}() (a bool)")
    shape = list(x.type.shape)
    if keep:
        shape[axis] = 1
    else:
        del shape[axis]
    return b.emit1("reduce", [x], TileType(x.type.dtype, tuple(shape)), c.span, kind=kind,
                   axis=axis, keepdims=keep)


def _scan(b: Builder, c: Call, kind: str) -> FValue:
    x = b.tile(c["x"], kind)
    assert isinstance(x.type, TileType)
    if x.type.rank == 0:
        b.fail(msg.RANK_NEEDED, c["x"].span, what=f"{kind}()", want="1 or more", shape="()")
    if x.type.dtype.is_bool:
        b.fail(msg.BAD_OPERAND, c["x"].span, op=f"{kind}()", what="bool tiles (use .astype())")
    axis = norm_axis(b, c["axis"], x.type.rank, f"the axis of {kind}()")
    return b.emit1("scan", [x], x.type, c.span, kind=kind, axis=axis)


def _reduce_rule(kind: str) -> Rule:
    return lambda b, c: _reduce(b, c, kind)


def _scan_rule(kind: str) -> Rule:
    return lambda b, c: _scan(b, c, kind)


for _name in REDUCTIONS:
    function(_name, "x: Any, axis: int, keepdims: bool = False",
             f"{_name} along `axis` (f16/bf16 accumulate in f32)", "reductions")(
                 _reduce_rule(_name))
for _name in SCANS:
    function(_name, "x: Any, axis: int", "running sum along `axis`", "reductions")(
        _scan_rule(_name))


# -- interpreter and lowering of the IR ops these rules emit ------------------------------------
def _wide(x: Any) -> Any:
    np = numpy()
    return x.astype(np.float32) if x.dtype == np.float16 else x  # narrow floats add in f32


def _reduce_np(args: Sequence[Any], attrs: dict[str, Any], outs: Sequence[Type]) -> list[Any]:
    fn = getattr(numpy(), attrs["kind"])
    return [fn(_wide(args[0]), axis=attrs["axis"], keepdims=attrs["keepdims"])]


def _scan_np(args: Sequence[Any], attrs: dict[str, Any], outs: Sequence[Type]) -> list[Any]:
    return [numpy().cumsum(_wide(args[0]), axis=attrs["axis"])]


def _reduce_lower(c: OpCtx) -> list[BcValue]:
    return [arith.reduce(c.b, c.attrs["kind"], c.args[0], c.attrs["axis"], c.dtype(), c.out)]


def _scan_lower(c: OpCtx) -> list[BcValue]:
    return [arith.reduce(c.b, "cumsum", c.args[0], c.attrs["axis"], c.dtype(), c.out)]


ir_op("reduce", _reduce_np, _reduce_lower)
ir_op("scan", _scan_np, _scan_lower)
