"""Accumulators (docs/design.md §3): `Acc[Tensor[dt, shape], "add"]` parameters that every block may
accumulate into, with the declared op only, and never read inside the launch.

`acc.add(t, index)` accumulates a tile at a tile index (elements outside the tensor are
dropped); `acc.add_at(indices, values)` scatters: one integer tile per axis, broadcast with the
values (out-of-range elements are dropped). Both emit one IR op: `acc_tile` (the tensor, the
tile, the index scalars) or `acc_scatter` (the tensor, the values and the indices, broadcast to
one shape). The interpreter applies them in block order (runtime/interpreter/ops.py); the
lowering turns them into Tile IR atomic read-modify-writes (lower/atomics.py).
"""

from __future__ import annotations

from ...diagnostics import messages as msg
from ...diagnostics.diagnostic import Span
from ..frontend.builder import Arg, Builder
from ..frontend.values import FValue, TupleVal, none_value
from ..ir import Value
from ..types import Shape, TensorType, TileType, describe, fmt_shape
from .defs import ir_op
from .indices import index_values
from .registry import Call, method

# The method name of each op (`or`/`and` are Python keywords, hence `or_`/`and_`).
METHOD_OF = {"add": "add", "max": "max", "min": "min", "or": "or_", "and": "and_",
             "xor": "xor"}
OP_OF = {m: op for op, m in METHOD_OF.items()}

ir_op("acc_tile")  # memory and atomics: the interpreter and the lowerer implement them
ir_op("acc_scatter")


def acc_read(b: Builder, arg: Arg, what: str, span: Span) -> None:
    """CT216: an Acc used where its value would be read."""
    v = arg.value
    assert isinstance(v, Value) and isinstance(v.type, TensorType) and v.type.acc is not None
    name = v.name or "acc"
    b.fail(msg.ACC_READ, span, name=name, what=f"'{what}'", op=METHOD_OF[v.type.acc])


def _target(b: Builder, c: Call, method_name: str) -> tuple[Value, TensorType, str]:
    """The Acc receiver; CT216 when the method's op is not the declared one."""
    acc = b.known(c["self"])
    assert isinstance(acc, Value) and isinstance(acc.type, TensorType)
    t = acc.type
    assert t.acc is not None
    name = acc.name or "acc"
    called = method_name.removesuffix("_at") if method_name.endswith("_at") else \
        OP_OF[method_name]
    if called != t.acc:
        b.fail(msg.ACC_OTHER_OP, c.span, name=name, declared=t.acc, op=METHOD_OF[t.acc],
               called=method_name)
    return acc, t, name


def _values(b: Builder, arg: Arg, t: TensorType, name: str, shape: Shape | None,
            method_name: str) -> Value:
    """The tile to accumulate (a literal takes the accumulator's dtype), broadcast to `shape`
    when one is given (scatter); for the tile form its rank must be the accumulator's."""
    v = b.tile_or_const(arg, f"{name}.{method_name}()")
    if not isinstance(v.type, TileType):
        if shape is None:
            b.fail(msg.ACC_VALUE_TYPE, arg.span, got=describe(v.type), name=name, rank=t.rank,
                   dtype=t.dtype, hint=f"; it needs a tile of rank {t.rank}")
        v = b.materialize(v, t.dtype, arg.span)
    assert isinstance(v.type, TileType)
    hint = ""
    if v.type.dtype != t.dtype:
        hint = f"; convert with .astype({t.dtype})"
    elif shape is None and v.type.rank != t.rank:
        hint = f"; it needs a tile of rank {t.rank}"
    if hint:
        b.fail(msg.ACC_VALUE_TYPE, arg.span, got=describe(v.type), name=name, rank=t.rank,
               dtype=t.dtype, hint=hint)
    return v


def _tile_form(b: Builder, c: Call, method_name: str) -> FValue:
    acc, t, name = _target(b, c, method_name)
    tile = _values(b, c["tile"], t, name, None, method_name)
    idx = index_values(b, c["index"], t.rank, f"{name}.{method_name}()")
    assert t.acc is not None
    b.emit("acc_tile", [acc, tile, *idx], [], c.span, {"op": t.acc})
    return none_value(c.span)


def _index_tiles(b: Builder, c: Call, t: TensorType, name: str, method_name: str
                 ) -> list[Value]:
    v = b.known(c["indices"])
    items = list(v.items) if isinstance(v, TupleVal) else [v]
    if len(items) != t.rank:
        want = "an index tile" if t.rank == 1 else f"a tuple of {t.rank} index tiles"
        b.fail(msg.INDEX_RANK, c["indices"].span, what=f"{name}.{method_name}()", want=want,
               rank=t.rank, given=f"{len(items)} ind{'ex' if len(items) == 1 else 'ices'}")
    out = []
    for item in items:
        arg = Arg(item, c["indices"].span)
        x = b.tile_or_const(arg, f"{name}.{method_name}()")
        if isinstance(x.type, TileType) and not x.type.dtype.is_integer:
            b.fail(msg.ACC_INDEX_TYPE, arg.span, name=name, method=method_name,
                   got=describe(x.type))
        out.append(b.scalar_int(arg, f"an index of {name}.{method_name}()")
                   if not isinstance(x.type, TileType) else x)
    return out


def _scatter_form(b: Builder, c: Call, method_name: str) -> FValue:
    acc, t, name = _target(b, c, method_name)
    idx = _index_tiles(b, c, t, name, method_name)
    values = _values(b, c["values"], t, name, (), method_name)
    shape: Shape = ()
    for x in (*idx, values):
        assert isinstance(x.type, TileType)
        new = b.broadcast_shapes(shape, x.type.shape)
        if new is None:
            b.fail(msg.NOT_BROADCASTABLE, c.span, op=f"{name}.{method_name}()",
                   a=fmt_shape(shape), b=fmt_shape(x.type.shape))
        shape = new
    assert t.acc is not None
    operands = [acc, b.broadcast(values, shape, c.span),
                *(b.broadcast(x, shape, c.span) for x in idx)]
    b.emit("acc_scatter", operands, [], c.span, {"op": t.acc})
    return none_value(c.span)


def _define(op: str) -> None:
    name = METHOD_OF[op]
    words = {"add": "adds", "max": "takes the maximum of", "min": "takes the minimum of",
             "or": "ors", "and": "ands", "xor": "xors"}[op]

    @method("acc", name, "tile: Any, index: Any",
            f'{words} a tile into an Acc (op "{op}") at tile `index`, masked outside it',
            "accumulators", returns="None")
    def _tile(b: Builder, c: Call) -> FValue:
        return _tile_form(b, c, name)

    @method("acc", f"{op}_at", "indices: Any, values: Any",
            f'{words} `values` into an Acc (op "{op}") at element `indices` (one integer tile '
            "per axis); out-of-range elements are dropped", "accumulators", returns="None")
    def _at(b: Builder, c: Call) -> FValue:
        return _scatter_form(b, c, f"{op}_at")


for _op in METHOD_OF:
    _define(_op)
