"""Tile creation: full, zeros, ones, arange."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ...diagnostics import messages as msg
from ..bytecode.attrs import Dense
from ..bytecode.types import TileType as BcTile
from ..dtypes import I32
from ..frontend.builder import Arg, Builder
from ..frontend.values import FValue, const_of
from ..lower import arith
from ..lower.types import LowerError, OpCtx, scalar
from ..types import TileType, Type, fmt_shape
from .defs import ir_op, numpy, out_tile
from .registry import Call, function

if TYPE_CHECKING:
    from ..bytecode import Value as BcValue


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


@function("full", "shape: Any, value: Any, dtype: Any", "a tile of one value", "creation")
def _full_rule(b: Builder, c: Call) -> FValue:
    return _full(b, c, c["value"], "full")


@function("zeros", "shape: Any, dtype: Any", "a tile of zeros", "creation")
def _zeros(b: Builder, c: Call) -> FValue:
    return _full(b, c, Arg(_lit(c, 0), c.span), "zeros")


@function("ones", "shape: Any, dtype: Any", "a tile of ones", "creation")
def _ones(b: Builder, c: Call) -> FValue:
    return _full(b, c, Arg(_lit(c, 1), c.span), "ones")


def _lit(c: Call, n: int) -> FValue:
    from ..frontend.values import const_value

    return const_value(c.span, n)


@function("arange", "n: int, dtype: Any = None", "0, 1, ..., n-1 (i32 unless `dtype` is given)",
          "creation")
def _arange(b: Builder, c: Call) -> FValue:
    n = b.const_int(c["n"], "the length of arange()")
    b.check_pow2((n,), c["n"].span)
    given = const_of(b.known(c["dtype"])) is not None
    dtype = b.dtype(c["dtype"], "the dtype of arange()") if given else I32
    if not dtype.is_integer and not dtype.is_float:
        b.fail(msg.BAD_OPERAND, c["dtype"].span, op="arange", what=f"dtype {dtype}")
    return b.emit1("iota", [], TileType(dtype, (n,)), c.span)


# -- interpreter and lowering of the IR ops these rules emit ------------------------------------
def _constant_np(args: Sequence[Any], attrs: dict[str, Any], outs: Sequence[Type]) -> list[Any]:
    return [numpy().asarray(attrs["value"])]


def _constant_lower(c: OpCtx) -> list[BcValue]:
    value = c.attrs["value"]
    if not isinstance(value, (int, float, bool)):
        raise LowerError(f"constant {value!r} is not a number")
    return [c.b.emit("constant", [c.out], value=Dense.splat(value, scalar(c.out_dtype)))]


def _iota_np(args: Sequence[Any], attrs: dict[str, Any], outs: Sequence[Type]) -> list[Any]:
    return [numpy().arange(int(out_tile(outs).shape[0]))]  # type: ignore[arg-type]


def _iota_lower(c: OpCtx) -> list[BcValue]:
    if scalar(c.out_dtype) == scalar(I32):
        return [c.b.emit("iota", [c.out])]
    base = c.b.emit("iota", [BcTile(scalar(I32), c.out.shape)])
    return [arith.astype(c.b, base, I32, c.out_dtype)]


ir_op("constant", _constant_np, _constant_lower)
ir_op("iota", _iota_np, _iota_lower)
