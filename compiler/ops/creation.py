"""Tile creation: full, zeros, ones, arange."""

from __future__ import annotations

from .. import messages as msg
from ..dtypes import I32
from ..frontend.builder import Arg, Builder
from ..frontend.values import FValue, const_of
from ..types import TileType, fmt_shape
from .registry import Call, function


def _full(b: Builder, c: Call, value: Arg, name: str) -> FValue:
    shape = b.tile_shape(c["shape"], f"the shape of {name}()")
    dtype = b.dtype(c["dtype"], f"the dtype of {name}()")
    v = b.tile_or_const(value, name)
    if isinstance(v.type, TileType):
        if v.type.rank != 0:
            b.fail(msg.SCALAR_NEEDED, value.span, what=f"the value of {name}()",
                   shape=fmt_shape(v.type.shape))
        scalar = v if v.type.dtype == dtype else b.emit1(
            "astype", [v], TileType(dtype, ()), value.span, dtype=dtype)
    else:
        scalar = b.materialize(v, dtype, value.span)
    return b.broadcast(scalar, shape, c.span)


@function("full", "shape, value, dtype")
def _full_rule(b: Builder, c: Call) -> FValue:
    return _full(b, c, c["value"], "full")


@function("zeros", "shape, dtype")
def _zeros(b: Builder, c: Call) -> FValue:
    return _full(b, c, Arg(_lit(c, 0), c.span), "zeros")


@function("ones", "shape, dtype")
def _ones(b: Builder, c: Call) -> FValue:
    return _full(b, c, Arg(_lit(c, 1), c.span), "ones")


def _lit(c: Call, n: int) -> FValue:
    from ..frontend.values import const_value

    return const_value(c.span, n)


@function("arange", "n, dtype=None")
def _arange(b: Builder, c: Call) -> FValue:
    n = b.const_int(c["n"], "the length of arange()")
    b.check_pow2((n,), c["n"].span)
    given = const_of(b.known(c["dtype"])) is not None
    dtype = b.dtype(c["dtype"], "the dtype of arange()") if given else I32
    if not dtype.is_integer and not dtype.is_float:
        b.fail(msg.BAD_OPERAND, c["dtype"].span, op="arange", what=f"dtype {dtype}")
    return b.emit1("iota", [], TileType(dtype, (n,)), c.span)
