"""A readable text form of a Module for tests and `--dump`.

Value names are the wire's SSA indices (`%7` is value index 7 in its scope), so a dump can be
compared with a hex view of the bytes. The format is ours; `tileirdisasm` prints the official one.
"""

from __future__ import annotations

import enum

from . import attrs as at
from .ir import Block, Function, Module, Op, Value
from .opspec import A


def print_module(module: Module) -> str:
    return "\n".join(_Printer().function(fn) for fn in module.functions)


class _Printer:
    def __init__(self) -> None:
        self.names: dict[Value, str] = {}
        self.count = 0
        self.lines: list[str] = []

    def define(self, v: Value) -> str:
        name = f"%{self.count}"
        self.count += 1
        self.names[v] = name
        return name

    def use(self, v: Value) -> str:
        return self.names.get(v, "%<undefined>")

    def function(self, fn: Function) -> str:
        params = ", ".join(f"{self.define(p)}: {p.type}" for p in fn.params)
        kind = "entry" if fn.entry else "func"
        hints = f" hints={fmt_attr(fn.hints)}" if fn.hints is not None else ""
        self.lines = [f"{kind} @{fn.name}({params}){hints} {{"]
        for op in fn.body.ops:
            self.op(op, 1)
        self.lines.append("}")
        return "\n".join(self.lines)

    def op(self, op: Op, depth: int) -> None:
        pad = "  " * depth
        operands = []
        for field, group in zip(op.spec.operands, op.operands, strict=True):
            if isinstance(group, Value):
                operands.append(f"{field.name}={self.use(group)}" if field.flag is not None
                                else self.use(group))
            elif isinstance(group, list):
                operands.append("[" + ", ".join(self.use(v) for v in group) + "]")
        shown = {}
        for a in op.spec.attrs:
            value = op.attrs.get(a.name)
            if value is None or (a.kind is A.UNIT and not value):
                continue
            shown[a.name] = "" if a.kind is A.UNIT else fmt_attr(value)
        attr_text = ", ".join(k if v == "" else f"{k}={v}" for k, v in shown.items())
        head = op.name + (" " + ", ".join(operands) if operands else "")
        head += f" {{{attr_text}}}" if attr_text else ""
        types = ", ".join(str(r.type) for r in op.results)
        if op.regions:
            self.lines.append(f"{pad}{head} {{")
            for i, block in enumerate(op.regions):
                if i:
                    self.lines.append(f"{pad}}} {{")
                self.block(block, depth + 1)
            results = self._results(op)
            self.lines.append(f"{pad}}}{' -> ' + results + ' : ' + types if results else ''}")
        else:
            results = self._results(op)
            lhs = f"{results} = " if results else ""
            self.lines.append(f"{pad}{lhs}{head}{' : ' + types if types else ''}")

    def _results(self, op: Op) -> str:
        return ", ".join(self.define(r) for r in op.results)

    def block(self, block: Block, depth: int) -> None:
        mark = self.count
        args = ", ".join(f"{self.define(a)}: {a.type}" for a in block.args)
        self.lines.append(f"{'  ' * (depth - 1)}^({args}):")
        for op in block.ops:
            self.op(op, depth)
        self.count = mark  # region scoping: the count returns to its value before the block


def fmt_attr(value: object) -> str:
    if isinstance(value, enum.Enum):
        return value.name.lower()
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, tuple):
        return "[" + ", ".join(fmt_attr(v) for v in value) + "]"
    if isinstance(value, at.Dense):
        return f"dense<0x{value.data.hex()}>"
    if isinstance(value, at.IntegerAttr):
        return f"{value.value} : {value.type}"
    if isinstance(value, at.FloatAttr):
        return f"{value.value!r} : {value.type}"
    if isinstance(value, at.BoolAttr):
        return str(value.value).lower()
    if isinstance(value, at.DivBy):
        extra = "".join(f", {k} {v}" for k, v in (("every", value.every), ("along", value.along))
                        if v is not None)
        return f"div_by<{value.divisor}{extra}>"
    if isinstance(value, at.Bounded):
        lb = "?" if value.lb is None else value.lb
        ub = "?" if value.ub is None else value.ub
        return f"bounded<{lb}, {ub}>"
    if isinstance(value, at.DictAttr):
        return "{" + ", ".join(f"{k} = {fmt_attr(v)}" for k, v in value.items) + "}"
    if isinstance(value, at.Hints):
        return "<" + ", ".join(f"{k} = {fmt_attr(v)}" for k, v in value.by_arch) + ">"
    if isinstance(value, at.ArrayAttr):
        return fmt_attr(value.items)
    if isinstance(value, at.StringAttr):
        return repr(value.value)
    if isinstance(value, at.TypeAttr | at.DenseAttr | at.SameElements):
        return str(value)
    return str(value)
