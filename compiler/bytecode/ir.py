"""A small in-memory form of a Tile IR module: what the builder makes and the decoder returns.

Values are objects (identity matters); SSA indices are assigned only when encoding, so the
region scoping rules of the format live in one place (`encoder.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .attrs import Hints
from .opspec import OpSpec
from .types import Type


class Value:
    __slots__ = ("name", "type")

    def __init__(self, type: Type, name: str = "") -> None:
        self.type = type
        self.name = name  # a hint for printing only

    def __repr__(self) -> str:
        return f"Value({self.type}{', ' + self.name if self.name else ''})"


# One entry per operand field of the spec: a Value, None (absent optional), or a list.
OperandGroup = Value | None | list[Value]


@dataclass
class Block:
    args: list[Value]
    ops: list[Op] = field(default_factory=list)


@dataclass
class Op:
    spec: OpSpec
    results: list[Value]
    operands: list[OperandGroup]
    attrs: dict[str, object]
    regions: list[Block] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.spec.name

    def flat_operands(self) -> list[Value]:
        out: list[Value] = []
        for g in self.operands:
            if isinstance(g, Value):
                out.append(g)
            elif isinstance(g, list):
                out += g
        return out

    @property
    def result(self) -> Value:
        if len(self.results) != 1:
            raise ValueError(f"{self.name} has {len(self.results)} results")
        return self.results[0]


@dataclass
class Function:
    name: str
    params: list[Value]
    body: Block
    entry: bool = True
    hints: Hints | None = None
    results: tuple[Type, ...] = ()


@dataclass
class Module:
    functions: list[Function] = field(default_factory=list)
