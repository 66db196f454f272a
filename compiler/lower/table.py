"""Lowering rules as data: a Tile IR opcode per dtype family plus the attributes each needs
(each elementwise op's entry in `ops/elementwise.py` holds its Rule)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Rule:
    float_op: str | None = None
    int_op: str | None = None  # also used for bool (i1) operands
    signed: bool = False  # the int op takes `signedness` from the operand dtype
    float_attrs: dict[str, object] = field(default_factory=dict)
    int_attrs: dict[str, object] = field(default_factory=dict)
    f32_attrs: dict[str, object] = field(default_factory=dict)  # over float_attrs for f32
