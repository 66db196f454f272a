"""A parsed module: positions, how it names cutile, its kernels, helpers and literal constants.

Nothing here imports or runs the user's code: everything is read from the libcst tree.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from .. import messages as msg
from ..diagnostics import Diagnostic, Span

PACKAGE = "cutile"
ConstValue = int | float | bool | str | tuple["ConstValue", ...]


@dataclass
class FunctionDef:
    """A `@ct.kernel` or `@ct.function` definition found in the module."""

    name: str
    node: cst.FunctionDef
    is_kernel: bool
    options: dict[str, ConstValue] = field(default_factory=dict)  # @ct.kernel(unsafe=True, ...)


@dataclass
class ModuleInfo:
    path: str
    source: str
    module: cst.Module
    positions: Mapping[cst.CSTNode, CodeRange]
    aliases: dict[str, str]  # local name -> "cutile" (the module) or "cutile.NAME"
    functions: dict[str, FunctionDef]
    constants: dict[str, ConstValue]
    assigned_globals: set[str]  # every module-level name, constant or not

    @property
    def kernels(self) -> list[FunctionDef]:
        return [f for f in self.functions.values() if f.is_kernel]

    def span(self, node: cst.CSTNode) -> Span:
        start = end = self.positions[node]
        lpar, rpar = getattr(node, "lpar", None), getattr(node, "rpar", None)
        if lpar and rpar:  # a parenthesized expression: underline its parentheses too
            start, end = self.positions[lpar[0]], self.positions[rpar[-1]]
        return Span(self.path, start.start.line, start.start.column, end.end.line,
                    end.end.column)

    def resolve(self, expr: cst.BaseExpression) -> str | None:
        """The cutile name an expression refers to ('exp' for `ct.exp`), or None."""
        dotted = dotted_name(expr)
        if dotted is None:
            return None
        head, _, rest = dotted.partition(".")
        target = self.aliases.get(head)
        if target is None:
            return None
        full = f"{target}.{rest}" if rest else target
        prefix = PACKAGE + "."
        return full[len(prefix):] if full.startswith(prefix) else None


def dotted_name(expr: cst.BaseExpression) -> str | None:
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        base = dotted_name(expr.value)
        return None if base is None else f"{base}.{expr.attr.value}"
    return None


def parse_module(source: str, path: str) -> ModuleInfo | Diagnostic:
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as err:
        line, col = err.raw_line, err.raw_column
        span = Span(path, line, col, line, col + 1)
        detail = err.message.splitlines()[0] if err.message else "cannot parse"
        return Diagnostic("CT100", msg.SYNTAX_ERROR.format(detail=detail), span)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    info = ModuleInfo(path, source, module, positions, {}, {}, {}, set())
    _scan_top_level(info)
    return info


def _scan_top_level(info: ModuleInfo) -> None:
    counts: dict[str, int] = {}
    literal: dict[str, ConstValue] = {}
    for stmt in info.module.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                _scan_small(info, small, counts, literal)
        elif isinstance(stmt, cst.FunctionDef):
            counts[stmt.name.value] = counts.get(stmt.name.value, 0) + 1
            _register_function(info, stmt)
        elif isinstance(stmt, cst.ClassDef):
            counts[stmt.name.value] = counts.get(stmt.name.value, 0) + 1
        else:
            # Names bound inside if/for/with/try at module level are never constants.
            for name in _bound_names(stmt):
                counts[name] = counts.get(name, 0) + 2
    info.assigned_globals = set(counts)
    info.constants = {n: v for n, v in literal.items() if counts.get(n) == 1}


def _scan_small(
    info: ModuleInfo, small: cst.BaseSmallStatement, counts: dict[str, int],
    literal: dict[str, ConstValue],
) -> None:
    if isinstance(small, cst.Import):
        for alias in small.names:
            name = dotted_name(alias.name)
            if name is None:
                continue
            local = alias.evaluated_alias or name.split(".")[0]
            target = name if alias.asname else name.split(".")[0]
            info.aliases[local] = target
            counts[local] = counts.get(local, 0) + 1
    elif isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
        mod = dotted_name(small.module) if small.module else None
        for alias in small.names:
            local = alias.evaluated_alias or alias.evaluated_name
            if mod is not None:
                info.aliases[local] = f"{mod}.{alias.evaluated_name}"
            counts[local] = counts.get(local, 0) + 1
    elif isinstance(small, (cst.Assign, cst.AnnAssign)):
        value = small.value
        targets: list[cst.BaseExpression] = (
            [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target])
        for tgt in targets:
            for name in _target_names(tgt):
                counts[name] = counts.get(name, 0) + 1
            if isinstance(tgt, cst.Name) and value is not None:
                lit = literal_value(value)
                if lit is not None:
                    literal[tgt.value] = lit
    elif isinstance(small, cst.AugAssign):
        for name in _target_names(small.target):
            counts[name] = counts.get(name, 0) + 2


def literal_value(expr: cst.BaseExpression) -> ConstValue | None:
    """The value of a literal expression (numbers, bools, strings, tuples of those), or None."""
    if isinstance(expr, cst.Integer):
        return int(expr.evaluated_value)
    if isinstance(expr, cst.Float):
        return float(expr.evaluated_value)
    if isinstance(expr, cst.Name) and expr.value in ("True", "False"):
        return expr.value == "True"
    if isinstance(expr, cst.SimpleString):
        value = expr.evaluated_value
        return value if isinstance(value, str) else None
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        inner = literal_value(expr.expression)
        if isinstance(inner, (int, float)) and not isinstance(inner, bool):
            return -inner
        return None
    if isinstance(expr, cst.Tuple):
        items = [literal_value(e.value) for e in expr.elements]
        if any(i is None or isinstance(e, cst.StarredElement)
               for i, e in zip(items, expr.elements, strict=True)):
            return None
        return tuple(i for i in items if i is not None)
    return None


def _target_names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in _target_names(e.value)]
    if isinstance(target, cst.StarredElement):
        return _target_names(target.value)
    return []


def _bound_names(stmt: cst.CSTNode) -> set[str]:
    names: set[str] = set()

    class Collector(cst.CSTVisitor):
        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            names.update(_target_names(node.target))

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            names.update(_target_names(node.target))

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            names.update(_target_names(node.target))

        def visit_For(self, node: cst.For) -> None:
            names.update(_target_names(node.target))

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            names.add(node.name.value)
            return False

        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            names.add(node.name.value)
            return False

    stmt.visit(Collector())
    return names


def _register_function(info: ModuleInfo, node: cst.FunctionDef) -> None:
    for deco in node.decorators:
        expr = deco.decorator
        call = expr if isinstance(expr, cst.Call) else None
        target = info.resolve(call.func if call else expr)
        if target not in ("kernel", "function"):
            continue
        options: dict[str, ConstValue] = {}
        for arg in call.args if call else ():
            value = literal_value(arg.value)
            if arg.keyword is not None and value is not None:
                options[arg.keyword.value] = value
        info.functions[node.name.value] = FunctionDef(
            node.name.value, node, target == "kernel", options)
        return
