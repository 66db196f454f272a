"""Emits typed IR ops and turns type errors into diagnostics; shared by the op rules."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

from ...diagnostics import messages as msg
from ...diagnostics.diagnostic import Note, Span
from ...diagnostics.messages import Message
from ..dtypes import BOOL, F32, I32, DType, integer_range
from ..ir import Block, ConstVal, Op, Value
from ..types import (
    ConstType,
    Dim,
    PartitionType,
    Shape,
    SymInt,
    TensorType,
    TileType,
    Type,
    describe,
    fmt_shape,
    num_elements,
)
from .ranges import Ranges
from .values import FValue, Poisoned, Reject, TupleVal, Unknown, const_of, has_unknown


@dataclass(frozen=True)
class Arg:
    value: FValue
    span: Span


MAX_TILE_ELEMENTS = 2**24  # tileiras: "tile would exceed the maximum of 16777216 elements"


def is_pow2(n: int) -> bool:
    return n >= 1 and n & (n - 1) == 0


class Builder:
    def __init__(self, unsafe: bool = False) -> None:
        self.blocks: list[Block] = [Block()]
        self.unsafe = unsafe  # @ct.kernel(unsafe=True): index-addressed stores are allowed
        self.ranges = Ranges()  # integer ranges of index values (CT404)

    # -- emitting -------------------------------------------------------------------------------
    @property
    def block(self) -> Block:
        return self.blocks[-1]

    def emit(self, name: str, operands: Sequence[Value], types: Sequence[Type], span: Span,
             attrs: dict[str, Any] | None = None, regions: list[Block] | None = None) -> Op:
        for t in types:
            if isinstance(t, TileType) and t.shape:
                self.check_tile_size(t.shape, span)
        results = [Value(t, span) for t in types]
        op = Op(name, list(operands), results, span, attrs or {}, regions or [])
        self.block.ops.append(op)
        self.ranges.observe(op)
        return op

    def emit1(self, name: str, operands: Sequence[Value], type_: Type, span: Span,
              **attrs: Any) -> Value:
        return self.emit(name, operands, [type_], span, attrs).result

    # -- failing --------------------------------------------------------------------------------
    def fail(self, message: Message, span: Span, *, notes: Sequence[Note] = (),
             **kwargs: Any) -> NoReturn:
        raise Reject(message.at(span, notes, **kwargs))

    # -- operand kinds --------------------------------------------------------------------------
    def known(self, arg: Arg) -> Value | TupleVal:
        if isinstance(arg.value, Unknown):
            raise Poisoned
        return arg.value

    def is_none(self, arg: Arg) -> bool:
        """Whether the argument is None (an optional one left at its default)."""
        v = self.known(arg)
        return isinstance(v, Value) and isinstance(v.type, ConstType) and v.type.kind == "none"

    def tile_or_const(self, arg: Arg, op: str) -> Value:
        v = self.known(arg)
        if isinstance(v, TupleVal):
            self.fail(msg.BAD_OPERAND, arg.span, op=op, what="a tuple")
        if isinstance(v.type, (TensorType, PartitionType)):
            name = v.name or "the tensor"
            self.fail(msg.TENSOR_AS_TILE, arg.span, what=f"'{name}'", name=name)
        if isinstance(v.type, ConstType) and v.type.kind == "dtype":
            if v.name is not None:
                self.fail(msg.CONST_DTYPE_AS_VALUE, arg.span, name=v.name)
            self.fail(msg.BAD_OPERAND, arg.span, op=op, what=f"the dtype {v.const}")
        if isinstance(v.type, ConstType) and v.type.kind not in ("int", "float", "bool"):
            self.fail(msg.BAD_OPERAND, arg.span, op=op, what=describe_const(v))
        if not isinstance(v.type, (TileType, ConstType)):
            self.fail(msg.BAD_OPERAND, arg.span, op=op, what=describe(v.type))
        return v

    def tile(self, arg: Arg, op: str) -> Value:
        """A tile operand; a literal becomes a rank-0 tile of its natural dtype."""
        v = self.tile_or_const(arg, op)
        if isinstance(v.type, ConstType):
            return self.materialize(v, const_dtype(v), arg.span)
        return v

    def const(self, arg: Arg, what: str) -> ConstVal:
        v = self.known(arg)
        if has_unknown(v):
            raise Poisoned
        c = const_of(v)
        if c is None:
            self.fail(msg.NOT_CONSTANT, arg.span, what=what)
        return c

    def dtype(self, arg: Arg, what: str) -> DType:
        """A dtype operand. A `Const[DType]` not yet specialized leaves the result unknown
        (it is checked again once specialized), so it reports nothing here."""
        v = self.known(arg)
        c = const_of(v)
        if isinstance(c, SymInt) and isinstance(v, Value) and isinstance(v.type, ConstType) \
                and v.type.kind == "dtype":
            raise Poisoned
        if not isinstance(c, DType):
            self.fail(msg.NOT_CONSTANT, arg.span, what=f"{what} (a dtype such as f32)")
        return c

    def const_int(self, arg: Arg, what: str) -> int | SymInt:
        c = self.const(arg, what)
        if isinstance(c, bool) or not isinstance(c, (int, SymInt)):
            self.fail(msg.NOT_CONSTANT, arg.span, what=f"{what} (an int)")
        return c

    def static_int(self, arg: Arg, what: str) -> int:
        """An int needed now (an axis): a Const not yet specialized leaves the result unknown."""
        c = self.const_int(arg, what)
        if isinstance(c, SymInt):
            raise Poisoned
        return c

    def static_const(self, arg: Arg, what: str) -> ConstVal:
        """Like const(), but a Const not yet specialized leaves the result unknown."""
        c = self.const(arg, what)
        if isinstance(c, SymInt) or (isinstance(c, tuple) and any(
                isinstance(i, SymInt) for i in c)):
            raise Poisoned
        return c

    def shape(self, arg: Arg, what: str = "a tile shape") -> Shape:
        c = self.const(arg, what)
        items = c if isinstance(c, tuple) else (c,)
        dims: list[Dim] = []
        for d in items:
            if isinstance(d, bool) or not isinstance(d, (int, SymInt)):
                self.fail(msg.NOT_CONSTANT, arg.span, what=f"{what} (a tuple of ints)")
            dims.append(d)
        return tuple(dims)

    def tile_shape(self, arg: Arg, what: str = "a tile shape") -> Shape:
        shape = self.shape(arg, what)
        self.check_pow2(shape, arg.span)
        return shape

    def check_tile_size(self, shape: Shape, span: Span) -> None:
        """CT218: tileiras takes tiles of up to 2**24 elements (a Const may make one larger:
        checked once the Consts are known)."""
        count = num_elements(shape)
        if count is not None and count > MAX_TILE_ELEMENTS:
            self.fail(msg.TILE_TOO_LARGE, span, shape=fmt_shape(shape), count=count,
                      limit=f"{MAX_TILE_ELEMENTS} (2**24)")

    def check_pow2(self, shape: Shape, span: Span) -> None:
        for d in shape:
            if isinstance(d, int) and not is_pow2(d):
                lo = 1 << max(0, d.bit_length() - 1) if d > 0 else 1
                self.fail(msg.NOT_POW2, span, dim=d, shape=fmt_shape(shape), lo=lo,
                          hi=max(lo * 2, 1))

    def scalar_int(self, arg: Arg, what: str) -> Value:
        """An integer index or bound: an int literal/Const or an integer rank-0 tile, as i32."""
        v = self.tile_or_const(arg, what)
        if isinstance(v.type, ConstType):
            if v.type.kind != "int":
                self.fail(msg.BAD_OPERAND, arg.span, op=what, what=describe_const(v))
            return self.materialize(v, I32, arg.span)
        assert isinstance(v.type, TileType)
        if v.type.rank != 0:
            self.fail(msg.SCALAR_NEEDED, arg.span, what=what, shape=fmt_shape(v.type.shape))
        if not v.type.dtype.is_integer:
            self.fail(msg.BAD_OPERAND, arg.span, op=what, what=describe(v.type))
        return v

    # -- conversions ----------------------------------------------------------------------------
    def materialize(self, v: Value, dtype: DType, span: Span) -> Value:
        """A compile-time constant as a rank-0 tile of `dtype` (checking that it fits)."""
        c = v.const
        is_float = isinstance(c, float) or (
            isinstance(v.type, ConstType) and v.type.kind == "float")
        if is_float and not dtype.is_float:
            shown = f"Const '{c}'" if isinstance(c, SymInt) else f"literal {c}"
            self.fail(msg.FLOAT_LITERAL_INT, span, value=shown, dtype=dtype)
        if isinstance(c, int) and not isinstance(c, bool) and dtype.is_integer:
            lo, hi = integer_range(dtype)
            if not lo <= c <= hi:
                self.fail(msg.LITERAL_RANGE, span, value=c, dtype=dtype)
        return self.emit1("constant", [], TileType(dtype, ()), span, value=c)

    def broadcast(self, v: Value, shape: Shape, span: Span) -> Value:
        assert isinstance(v.type, TileType)
        src = v.type.shape
        if src == shape:
            return v
        dtype = v.type.dtype
        if len(src) < len(shape):
            padded = (1,) * (len(shape) - len(src)) + src
            v = self.emit1("reshape", [v], TileType(dtype, padded), span, shape=padded)
        return self.emit1("broadcast", [v], TileType(dtype, shape), span, shape=shape)

    def broadcast_shapes(self, a: Shape, b: Shape) -> Shape | None:
        out: list[Dim] = []
        for i in range(max(len(a), len(b))):
            da = a[len(a) - 1 - i] if i < len(a) else 1
            db = b[len(b) - 1 - i] if i < len(b) else 1
            if da == db or db == 1:
                out.append(da)
            elif da == 1:
                out.append(db)
            elif isinstance(da, SymInt) or isinstance(db, SymInt):
                out.append(da if isinstance(db, SymInt) else db)  # unknown: stay silent
            else:
                return None
        return tuple(reversed(out))

    def unify(self, op: str, args: Sequence[Arg], span: Span) -> list[Value]:
        """Elementwise operands: one dtype (literals adopt it), one broadcast shape."""
        values = [self.tile_or_const(a, op) for a in args]
        tiles = [(v, a) for v, a in zip(values, args, strict=True) if isinstance(v.type, TileType)]
        if not tiles:
            dtype = natural_dtype(next((v.const for v in values if isinstance(v.const, float)),
                                       values[0].const))
        else:
            first, first_arg = tiles[0]
            assert isinstance(first.type, TileType)
            dtype = first.type.dtype
            for v, a in tiles[1:]:
                assert isinstance(v.type, TileType)
                if v.type.dtype != dtype:
                    self.fail(msg.DTYPE_MIX, a.span, op=op, a=dtype, b=v.type.dtype,
                              notes=[Note(f"this is {describe(first.type)}", first_arg.span)])
        shape: Shape = ()
        for v in values:
            if isinstance(v.type, TileType):
                new = self.broadcast_shapes(shape, v.type.shape)
                if new is None:
                    self.fail(msg.NOT_BROADCASTABLE, span, op=op, a=fmt_shape(shape),
                              b=fmt_shape(v.type.shape))
                shape = new
        out = []
        for v, a in zip(values, args, strict=True):
            t = self.materialize(v, dtype, a.span) if isinstance(v.type, ConstType) else v
            out.append(self.broadcast(t, shape, span))
        return out


def const_dtype(v: Value) -> DType:
    """The dtype a compile-time number takes alone (a Const's declared kind decides)."""
    kind = v.type.kind if isinstance(v.type, ConstType) else ""
    return {"bool": BOOL, "float": F32}.get(kind, natural_dtype(v.const))


def describe_const(v: Value) -> str:
    """A compile-time value in messages: "the Const 'D'", "a string", "None"."""
    if v.name is not None:
        return f"the Const '{v.name}'"
    kind = v.type.kind if isinstance(v.type, ConstType) else ""
    if kind == "dtype":
        return f"the dtype {v.const}"
    return {"str": "a string", "none": "None", "bool": "a bool", "int": "an int",
            "float": "a float"}.get(kind, "this value")


def natural_dtype(c: ConstVal) -> DType:
    """The dtype a bare literal takes when no tile gives it one."""
    if isinstance(c, bool):
        return BOOL
    if isinstance(c, float):
        return F32
    return I32
