"""Reductions and scans along one axis."""

from __future__ import annotations

from .. import messages as msg
from ..frontend.builder import Builder
from ..frontend.values import FValue
from ..types import TileType
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
    function(_name, "x, axis, keepdims=False")(_reduce_rule(_name))
for _name in SCANS:
    function(_name, "x, axis")(_scan_rule(_name))
