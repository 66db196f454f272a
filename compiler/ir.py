"""The typed kernel IR: structured SSA close to Tile IR, shared by the checker, interpreter and
lowering.

A kernel is a `Block` of `Op`s. Control flow is structured: `for` (operands lb, ub, step, inits;
body args iv + carried; ends in `continue`), `loop` (operands inits; body args carried; exits by
`break`, which may sit inside nested `if`s), `if` (operand cond; two regions ending in `yield`,
`break`, `continue` or `return`). A kernel's `return` ends its tile block; it appears only in
`if` regions outside every loop (a loop the kernel returns from breaks out with a carried flag
instead, and `if flag: return` follows it: frontend/control.py), as Tile IR requires.
`range_check` (lb, ub, step -> ub) guards a range() loop whose step arrives at run time
(compiler/lower/loops.py). Elementwise ops see operands of equal shape: the frontend inserts
`reshape`/`broadcast` ops, so backends never broadcast implicitly.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..diagnostics.diagnostic import Span
from .dtypes import DType
from .types import ConstType, SymInt, Type

ConstVal = int | float | bool | DType | str | SymInt | tuple[Any, ...] | None

TERMINATORS = frozenset({"yield", "continue", "break", "return"})


@dataclass(eq=False)
class Value:
    type: Type
    span: Span
    name: str | None = None  # the user's variable name, for hover and messages
    const: ConstVal = None  # compile-time value when the type is a ConstType

    def __repr__(self) -> str:
        return f"%{self.name or id(self) % 10000}: {self.type}"

    @property
    def is_const(self) -> bool:
        return isinstance(self.type, ConstType)


@dataclass(eq=False)
class Block:
    args: list[Value] = field(default_factory=list)
    ops: list[Op] = field(default_factory=list)

    @property
    def terminator(self) -> Op | None:
        return self.ops[-1] if self.ops and self.ops[-1].name in TERMINATORS else None


@dataclass(eq=False)
class Op:
    name: str
    operands: list[Value]
    results: list[Value]
    span: Span
    attrs: dict[str, Any] = field(default_factory=dict)
    regions: list[Block] = field(default_factory=list)

    @property
    def result(self) -> Value:
        return self.results[0]


@dataclass(frozen=True)
class Param:
    name: str
    kind: str  # "tensor" | "mut" | "const" | "scalar"
    value: Value


@dataclass(eq=False)
class KernelIR:
    name: str
    params: list[Param]
    body: Block
    span: Span
    consts: dict[str, object] = field(default_factory=dict)  # specialized Const values
    options: dict[str, Any] = field(default_factory=dict)  # @ct.kernel(...) hints

    def walk(self) -> Iterator[Op]:
        yield from walk(self.body)


def walk(block: Block) -> Iterator[Op]:
    for op in block.ops:
        yield op
        for region in op.regions:
            yield from walk(region)


def format_ir(kernel: KernelIR) -> str:
    """A readable dump of the IR (for `--dump` and tests)."""
    names: dict[int, str] = {}

    def ref(v: Value) -> str:
        if id(v) not in names:
            names[id(v)] = f"%{len(names)}"
        return names[id(v)]

    lines = [f"kernel {kernel.name}(" + ", ".join(
        f"{ref(p.value)} {p.name}: {p.value.type}" for p in kernel.params) + ")"]

    def emit(block: Block, depth: int) -> None:
        pad = "  " * depth
        for op in block.ops:
            res = ", ".join(f"{ref(r)}: {r.type}" for r in op.results)
            args = ", ".join(ref(o) for o in op.operands)
            attrs = "".join(f" {k}={v}" for k, v in op.attrs.items())
            lines.append(f"{pad}{res + ' = ' if res else ''}{op.name}({args}){attrs}")
            for region in op.regions:
                lines.append(f"{pad}  ^(" + ", ".join(ref(a) for a in region.args) + "):")
                emit(region, depth + 2)

    emit(kernel.body, 1)
    return "\n".join(lines)
