"""The builder API: append ops (validated against the op table) to blocks of a module.

    mod = Module()
    fn, b = entry(mod, "vadd", [tile(PtrType(F32)), tile(I32)])
    tok = b.emit("make_token", [TOKEN])
    loop = b.op("for", [acc_t], lo, hi, one, [acc0], regions=[[tile(I32), acc_t]])
    with b.at(loop.regions[0]) as (k, acc):
        ...
        b.op("continue", [], [acc2])
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from .attrs import Dense, Hints
from .ir import Block, Function, Module, Op, OperandGroup, Value
from .opspec import A, O, OpSpec
from .optable import OPS
from .types import Scalar, TileType, Type


class BuildError(ValueError):
    """An op that does not fit its row of the op table (a bug in the caller)."""


def entry(module: Module, name: str, param_types: Sequence[Type],
          hints: Hints | None = None) -> tuple[Function, Builder]:
    """Add a kernel entry function and return it with a builder at the start of its body."""
    params = [Value(t, f"arg{i}") for i, t in enumerate(param_types)]
    fn = Function(name, params, Block(params), entry=True, hints=hints)
    module.functions.append(fn)
    return fn, Builder(fn.body)


class Builder:
    def __init__(self, block: Block) -> None:
        self.block = block

    @contextmanager
    def at(self, block: Block) -> Iterator[list[Value]]:
        """Build inside `block` (a region of an op made earlier); yields its arguments."""
        saved, self.block = self.block, block
        try:
            yield block.args
        finally:
            self.block = saved

    def op(self, name: str, result_types: Sequence[Type], *operands: OperandGroup | Sequence[
            Value], regions: Sequence[Sequence[Type]] = (), **attrs: Any) -> Op:
        spec = OPS.get(name)
        if spec is None:
            raise BuildError(f"unknown op {name!r}")
        if spec.results is not None and len(result_types) != spec.results:
            raise BuildError(f"{name} has {spec.results} results, got {len(result_types)} types")
        if len(regions) != spec.regions:
            raise BuildError(f"{name} has {spec.regions} regions, got {len(regions)}")
        groups = _operands(spec, operands)
        op = Op(spec, [Value(t) for t in result_types], groups, _attrs(spec, attrs, groups),
                [Block([Value(t) for t in r]) for r in regions])
        self.block.ops.append(op)
        return op

    def emit(self, name: str, result_types: Sequence[Type],
             *operands: OperandGroup | Sequence[Value], **attrs: Any) -> Value:
        """An op with exactly one result; returns that result."""
        return self.op(name, result_types, *operands, regions=(), **attrs).result

    # A few shorthands for what every kernel needs.
    def constant(self, value: float | int | bool, ty: TileType) -> Value:
        if not isinstance(ty.elem, Scalar):
            raise BuildError("constants of pointer tiles are not supported")
        return self.emit("constant", [ty], value=Dense.splat(value, ty.elem))

    def block_ids(self) -> list[Value]:
        return self.op("get_tile_block_id", [TileType(Scalar.I32)] * 3).results


def _operands(spec: OpSpec, given: Sequence[OperandGroup | Sequence[Value]]
              ) -> list[OperandGroup]:
    if len(given) > len(spec.operands):
        raise BuildError(f"{spec.name} takes {len(spec.operands)} operand groups, "
                         f"got {len(given)}")
    out: list[OperandGroup] = []
    for i, field in enumerate(spec.operands):
        g = given[i] if i < len(given) else None
        if field.kind is O.ONE:
            if not isinstance(g, Value):
                raise BuildError(f"{spec.name}: operand {field.name!r} must be a Value")
            out.append(g)
        elif field.kind is O.OPT:
            if g is not None and not isinstance(g, Value):
                raise BuildError(f"{spec.name}: operand {field.name!r} must be a Value or None")
            out.append(g)
        else:
            seq = [] if g is None else g
            if isinstance(seq, Value) or not all(isinstance(v, Value) for v in seq):
                raise BuildError(f"{spec.name}: operand {field.name!r} must be a list of Values")
            out.append(list(seq))
    return out


def sized_default(spec: OpSpec, operand: str, groups: Sequence[OperandGroup]) -> tuple[bool, ...]:
    """All-false flags, one per value of the named operand list (e.g. `inbounds` per index)."""
    for field, group in zip(spec.operands, groups, strict=True):
        if field.name == operand and isinstance(group, list):
            return (False,) * len(group)
    raise BuildError(f"{spec.name} has no operand list {operand!r}")


_KIND_TYPES: dict[A, type | tuple[type, ...]] = {
    A.BOOL: bool, A.INT: int, A.STR: str, A.I32S: tuple, A.BOOLS: tuple, A.DENSE: Dense,
    A.TAGGED_LIST: tuple, A.HINTS: Hints, A.UNIT: bool,
}


def _attrs(spec: OpSpec, given: dict[str, object], groups: list[OperandGroup]
           ) -> dict[str, object]:
    out: dict[str, object] = {}
    rest = dict(given)
    for a in spec.attrs:
        v = rest.pop(a.name, None)
        if isinstance(v, list):
            v = tuple(v)
        if a.sized_like is not None:
            v = sized_default(spec, a.sized_like, groups) if v is None else v
        if v is None:
            v = False if a.kind is A.UNIT else a.default
        if v is None:
            if a.flag is not None:
                out[a.name] = None  # optional and absent
                continue
            raise BuildError(f"{spec.name} needs attribute {a.name!r}")
        if a.kind is A.ENUM:
            assert a.enum is not None
            if not isinstance(v, a.enum):
                raise BuildError(f"{spec.name}.{a.name} must be a {a.enum.__name__}")
        elif a.kind in _KIND_TYPES and not isinstance(v, _KIND_TYPES[a.kind]):
            raise BuildError(f"{spec.name}.{a.name} has the wrong kind: {v!r}")
        out[a.name] = v
    if rest:
        raise BuildError(f"{spec.name} has no attribute(s) {sorted(rest)}")
    return out
