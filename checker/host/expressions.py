"""Evaluating host expressions to abstract values; every name load is a use that is checked."""

from __future__ import annotations

from pathlib import Path

import libcst as cst

from ...compiler import messages as msg
from ...compiler.diagnostics import Diagnostic, Note
from ...compiler.dtypes import BY_NAME as DTYPES
from . import calls
from .context import Ctx, contains
from .joins import join_states, join_value
from .values import (
    ESCAPED,
    UNKNOWN,
    DTypeVal,
    IntVal,
    ModuleVal,
    Moved,
    OpVal,
    State,
    TupleVal,
    Value,
    ops_in,
    owned_in,
)

_INT_OPS = {cst.Add: int.__add__, cst.Subtract: int.__sub__, cst.Multiply: int.__mul__,
            cst.FloorDivide: int.__floordiv__}
_READS = (cst.Comparison, cst.BooleanOperation, cst.FormattedString, cst.UnaryOperation,
          cst.BinaryOperation, cst.ConcatenatedString)
_NESTED = (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


def evaluate(ctx: Ctx, st: State, expr: cst.BaseExpression) -> Value:
    if isinstance(expr, cst.Name):
        return load_name(ctx, st, expr)
    if isinstance(expr, cst.Integer):
        number = expr.evaluated_value
        return IntVal(number) if isinstance(number, int) else UNKNOWN
    if isinstance(expr, cst.Tuple):
        return _tuple(ctx, st, expr)
    if isinstance(expr, cst.Attribute):
        return _attribute(ctx, st, expr)
    if isinstance(expr, cst.Call):
        return calls.evaluate_call(ctx, st, expr)
    if isinstance(expr, cst.Await):
        return calls.await_value(ctx, st, expr)
    if isinstance(expr, cst.NamedExpr):
        value = evaluate(ctx, st, expr.value)
        assign(ctx, st, expr.target, value)
        return value
    if isinstance(expr, cst.Subscript):
        return _subscript(ctx, st, expr)
    if isinstance(expr, cst.IfExp):
        return _if_exp(ctx, st, expr)
    if isinstance(expr, (cst.BinaryOperation, cst.UnaryOperation)):
        folded = _fold_int(ctx, st, expr)
        if folded is not None:
            return folded
    if isinstance(expr, _NESTED):
        capture(ctx, st, expr)
        return UNKNOWN
    for child in sub_expressions(expr):
        value = evaluate(ctx, st, child)
        if isinstance(expr, _READS):
            read(ctx, value)
        else:
            escape(ctx, st, value)  # into a list, a dict, a yield...: out of sight
    return UNKNOWN


def sub_expressions(node: cst.CSTNode) -> list[cst.BaseExpression]:
    """The directly nested expressions of a node, in source order."""
    out: list[cst.BaseExpression] = []
    for child in node.children:
        if isinstance(child, cst.BaseExpression):
            out.append(child)
        else:
            out += sub_expressions(child)
    return out


def load_name(ctx: Ctx, st: State, node: cst.Name) -> Value:
    name = node.value
    if name in st.env:
        value = st.env[name]
        check_use(ctx, st, node, name, value)
        return value
    if name in ctx.globals:
        return ctx.globals[name]
    dtype = ctx.info.resolve(node)
    return DTypeVal(DTYPES[dtype]) if dtype in DTYPES else UNKNOWN


def check_use(ctx: Ctx, st: State, node: cst.CSTNode, name: str, value: Value) -> None:
    """CT301/CT306 for a use of a moved tensor or partition; reported once per value."""
    for owned in owned_in(value) if not isinstance(value, TupleVal) else []:
        state = st.obj(owned.obj)
        if not isinstance(state, Moved):
            continue
        st.objs[owned.obj] = ESCAPED  # one root cause, one diagnostic
        diag = use_after_move(ctx, st, node, name, state)
        frame = ctx.launches[-1] if ctx.launches else None
        if frame is not None and frame.current is not None and contains(frame.span, state.site):
            frame.deferred.append((frame.current, diag))
        else:
            ctx.report(diag)


def use_after_move(ctx: Ctx, st: State, node: cst.CSTNode, name: str,
                   moved: Moved) -> Diagnostic:
    span = ctx.span(node)
    notes = (Note(msg.MOVED_HERE.format(name=moved.name), moved.site),)
    if _crosses_iteration(ctx.loops, moved.loops):
        return Diagnostic("CT306", msg.MOVE_IN_LOOP.format(name=name), span, notes=notes)
    if moved.op is not None and ctx.world.is_pending(st.pending, moved.op):
        kernel = ctx.world.ops[moved.op].kernel
        return Diagnostic("CT301", msg.USE_AFTER_MOVE_LAUNCH.format(name=name, kernel=kernel),
                          span, notes=notes)
    return Diagnostic("CT301", msg.USE_AFTER_MOVE.format(name=name, how=moved.how), span,
                      notes=notes)


def _crosses_iteration(now: list[tuple[int, int]], then: tuple[tuple[int, int], ...]) -> bool:
    """Moved in an earlier pass over a loop that encloses the use: the next iteration's use."""
    passes = dict(then)
    return any(loop in passes and passes[loop] != n for loop, n in now)


def read(ctx: Ctx, value: Value) -> None:
    """A value looked at by code we do not model: a lazy op there counts as handed on."""
    for op in ops_in(value):
        ctx.world.escape_op(op)


def escape(ctx: Ctx, st: State, value: Value) -> None:
    """A value given to code we cannot see: never report anything about it again."""
    read(ctx, value)
    for owned in owned_in(value):
        st.objs[owned.obj] = ESCAPED


def capture(ctx: Ctx, st: State, node: cst.CSTNode) -> None:
    """A lambda, comprehension or nested def may use outer names at any time."""
    for name in ctx.index.names(node):
        if name in st.env:  # no use check: the name may be a local of the nested code
            escape(ctx, st, st.env[name])


def names_in(node: cst.CSTNode) -> set[str]:
    names: set[str] = set()

    class Collect(cst.CSTVisitor):
        def visit_Name(self, n: cst.Name) -> None:
            names.add(n.value)

    node.visit(Collect())
    return names


def assign(ctx: Ctx, st: State, target: cst.BaseExpression, value: Value) -> None:
    if isinstance(target, cst.Name):
        if target.value in ctx.captured:
            escape(ctx, st, value)
        st.env[target.value] = value
    elif isinstance(target, (cst.Tuple, cst.List)):
        _unpack(ctx, st, target, value)
    elif isinstance(target, cst.StarredElement):
        assign(ctx, st, target.value, UNKNOWN)
    else:  # obj.attr = v, d[k] = v: stored where we do not follow it
        for child in sub_expressions(target):
            read(ctx, evaluate(ctx, st, child))
        escape(ctx, st, value)


def _unpack(ctx: Ctx, st: State, target: cst.Tuple | cst.List, value: Value) -> None:
    elements = [e.value for e in target.elements]
    starred = any(isinstance(e, cst.StarredElement) for e in target.elements)
    if isinstance(value, TupleVal) and len(value.items) == len(elements) and not starred:
        for element, item in zip(elements, value.items, strict=True):
            assign(ctx, st, element, item)
        return
    escape(ctx, st, value)
    for element in elements:
        assign(ctx, st, element, UNKNOWN)


def _tuple(ctx: Ctx, st: State, expr: cst.Tuple) -> Value:
    items: list[Value] = []
    for element in expr.elements:
        value = evaluate(ctx, st, element.value)
        if isinstance(element, cst.StarredElement):
            escape(ctx, st, value)
            return _escape_rest(ctx, st, items)
        items.append(value)
    return TupleVal(tuple(items))


def _escape_rest(ctx: Ctx, st: State, items: list[Value]) -> Value:
    for item in items:
        escape(ctx, st, item)
    return UNKNOWN


def _attribute(ctx: Ctx, st: State, expr: cst.Attribute) -> Value:
    dtype = ctx.info.resolve(expr)
    if dtype in DTYPES and head_name(expr) not in st.env:
        return DTypeVal(DTYPES[dtype])
    base = evaluate(ctx, st, expr.value)
    if isinstance(base, ModuleVal):
        kernel = ctx.project.kernel(Path(base.path), expr.attr.value)
        return kernel if kernel is not None else UNKNOWN
    if isinstance(base, OpVal):
        read(ctx, base)
    return UNKNOWN


def head_name(expr: cst.BaseExpression) -> str | None:
    while isinstance(expr, cst.Attribute):
        expr = expr.value
    return expr.value if isinstance(expr, cst.Name) else None


def _subscript(ctx: Ctx, st: State, expr: cst.Subscript) -> Value:
    base = evaluate(ctx, st, expr.value)
    index: Value = UNKNOWN
    for element in expr.slice:
        if isinstance(element.slice, cst.Index) and len(expr.slice) == 1:
            index = evaluate(ctx, st, element.slice.value)
        else:
            for child in sub_expressions(element):
                read(ctx, evaluate(ctx, st, child))
    if isinstance(base, TupleVal) and isinstance(index, IntVal) and (
            -len(base.items) <= index.value < len(base.items)):
        return base.items[index.value]
    read(ctx, base)
    return UNKNOWN


def _if_exp(ctx: Ctx, st: State, expr: cst.IfExp) -> Value:
    read(ctx, evaluate(ctx, st, expr.test))
    a, b = st.copy(), st.copy()
    va, vb = evaluate(ctx, a, expr.body), evaluate(ctx, b, expr.orelse)
    merged = join_states(ctx.world, expr, a, b)
    assert merged is not None
    value = join_value(ctx.world, (expr, "value"), va, vb, a, b, merged)
    st.env, st.objs, st.leases, st.pending = merged.env, merged.objs, merged.leases, (
        merged.pending)
    return value


def _fold_int(ctx: Ctx, st: State, expr: cst.BinaryOperation | cst.UnaryOperation
              ) -> Value | None:
    """Integer arithmetic on known ints (shapes such as `(N // 2, 64)`)."""
    if isinstance(expr, cst.UnaryOperation):
        if not isinstance(expr.operator, cst.Minus):
            return None
        inner = evaluate(ctx, st, expr.expression)
        return IntVal(-inner.value) if isinstance(inner, IntVal) else UNKNOWN
    fn = _INT_OPS.get(type(expr.operator))
    if fn is None:
        return None
    left, right = evaluate(ctx, st, expr.left), evaluate(ctx, st, expr.right)
    if not (isinstance(left, IntVal) and isinstance(right, IntVal)):
        read(ctx, left)
        read(ctx, right)
        return UNKNOWN
    if isinstance(expr.operator, cst.FloorDivide) and right.value == 0:
        return UNKNOWN
    return IntVal(fn(left.value, right.value))
