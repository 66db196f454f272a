"""Host expressions that are not the host API: names (every load is a use that is checked),
constants, tuples, integer arithmetic, conditional expressions, attributes and subscripts of
other values, and binding values to assignment targets. The core (core.py) dispatches here by
node type and evaluates sub-expressions (`ctx.evaluate`)."""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from pathlib import Path
from typing import cast

from ...compiler.dtypes import BY_NAME as DTYPES
from ...compiler.hostapi import HANDLE_ATTRIBUTES
from ...compiler.launch import MoveFacts, moved_diagnostic
from ...compiler.launch.ops_api import sync_unpack_diagnostic
from .context import Ctx, contains
from .joins import join_states, join_value
from .names import own_nodes
from .places import bind, forget_below, key_of, place_key, ran_unseen
from .syntax import sub_expressions
from .uses import capture, escape, head_name, read, unsynced
from .values import (
    UNBOUND,
    UNKNOWN,
    ClosureVal,
    ContainerVal,
    DTypeVal,
    IntVal,
    LiteralVal,
    ModuleVal,
    Moved,
    OpVal,
    Reported,
    State,
    SyncResult,
    TupleVal,
    Unbound,
    Value,
    ops_in,
    owned_in,
)

_INT_OPS: dict[type[ast.operator], Callable[[int, int], int]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
    ast.LShift: operator.lshift}
_NUMBER_OPS: dict[type[ast.operator], Callable[[complex, complex], complex]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul}
_READS = (ast.Compare, ast.BoolOp, ast.JoinedStr, ast.FormattedValue, ast.UnaryOp, ast.BinOp,
          ast.Slice)


def constant(ctx: Ctx, st: State, expr: ast.Constant) -> Value:
    return IntVal(expr.value) if type(expr.value) is int else LiteralVal(expr.value)


def named(ctx: Ctx, st: State, expr: ast.NamedExpr) -> Value:
    value = ctx.evaluate(st, expr.value)
    assign(ctx, st, expr.target, value)
    return value


def arithmetic(ctx: Ctx, st: State, expr: ast.BinOp | ast.UnaryOp) -> Value:
    folded = _fold_int(ctx, st, expr)
    return folded if folded is not None else other(ctx, st, expr)


def nested(ctx: Ctx, st: State, expr: ast.expr) -> Value:
    """A lambda or comprehension: the names it can see escape (a lambda the scope only calls:
    when it is called)."""
    if isinstance(expr, ast.Lambda) and id(expr) in ctx.index.local_closures:
        return ClosureVal(expr)
    capture(ctx, st, expr)
    return UNKNOWN


def container(ctx: Ctx, st: State, expr: ast.List | ast.Dict) -> Value:
    """A list or dict literal: its elements are handed on, unless the scope only indexes it
    by literals (names.py `fixed_containers`): then they are followed."""
    if id(expr) not in ctx.index.fixed_containers:
        return other(ctx, st, expr)
    if isinstance(expr, ast.List):
        return ContainerVal(tuple(ctx.evaluate(st, e) for e in expr.elts))
    keys = tuple(cast(str, cast(ast.Constant, k).value) for k in expr.keys)
    return ContainerVal(tuple(ctx.evaluate(st, v) for v in expr.values), keys)


def call_closure(ctx: Ctx, st: State, node: ast.Lambda | ast.FunctionDef) -> None:
    """A call of a closure the scope only calls: its reads of outer names that are moved by
    now are CT301 there, as at run time; then what it sees escapes (it may move it)."""
    free = ctx.index.names(node)
    body: list[ast.AST] = [node.body] if isinstance(node, ast.Lambda) else list(node.body)
    loads = [n for n in own_nodes(body) if isinstance(n, ast.Name) and n.id in free
             and isinstance(n.ctx, ast.Load)]
    for name in sorted(loads, key=lambda n: (n.lineno, n.col_offset)):
        if name.id in st.env:
            check_use(ctx, st, name, name.id, st.env[name.id])
    capture(ctx, st, node)
    ran_unseen(ctx, st)  # its code may rebind any attribute


def other(ctx: Ctx, st: State, expr: ast.expr) -> Value:
    """Any other expression: its parts are evaluated, and read or handed on."""
    for child in sub_expressions(expr):
        value = ctx.evaluate(st, child)
        if isinstance(expr, _READS):
            read(ctx, value)
        else:
            escape(ctx, st, value)  # into a list, a dict, a yield...: out of sight
    if isinstance(expr, (ast.Yield, ast.YieldFrom)):
        ran_unseen(ctx, st)  # the caller runs meanwhile
    return UNKNOWN


def load_name(ctx: Ctx, st: State, node: ast.Name) -> Value:
    name = node.id
    if name in st.env:
        return load_value(ctx, st, node, name, st.env[name])
    if name in ctx.globals:
        return ctx.globals[name]
    dtype = ctx.info.resolve(node)
    return DTypeVal(DTYPES[dtype]) if dtype in DTYPES else UNKNOWN


def load_value(ctx: Ctx, st: State, node: ast.expr, key: str, value: Value) -> Value:
    """A load of a name (or a place, places.py) bound to `value`: a checked use."""
    if isinstance(value, Unbound):  # a NameError (an AttributeError) at run time
        ctx.raises()
        return UNKNOWN
    name = key if isinstance(node, ast.Name) else ctx.text(node)
    if ctx.facts is not None:
        ctx.facts.record(ctx.world, st, name, ctx.span(node), value)
    if check_use(ctx, st, node, name, value):
        return UNKNOWN  # the use raises at run time: nothing follows from the value
    return value


def check_use(ctx: Ctx, st: State, node: ast.AST, name: str, value: Value) -> bool:
    """CT301/CT306 for a use of a moved tensor or partition; reported once per value. True
    when the use raises here at run time (not deferred to the launch whose argument the name
    is): nothing follows from the value then."""
    raises = False
    for owned in owned_in(value) if not isinstance(value, TupleVal) else []:
        state = st.obj(owned.obj)
        if not isinstance(state, (Moved, Reported)):
            continue
        moved = state if isinstance(state, Moved) else state.moved
        st.objs[owned.obj] = Reported(moved)  # one root cause, one diagnostic
        frame = ctx.launches[-1] if ctx.launches else None
        # a launch's argument as it is (`k(z)`, `k(z.partition(s), z)`): the launch contract
        # judges it (CT301, or CT302 when moved by the call itself), as at run time; a view
        # or attribute of the moved value (`z[0:4]`) raises on its own, before the launch
        if frame is not None and frame.current is not None and ctx.span(node) == frame.current:
            facts = move_facts(ctx, st, moved, contains(frame.span, moved.site))
            frame.moves[frame.current] = (facts, owned.obj, state)
        else:
            if isinstance(state, Moved):
                ctx.report(moved_diagnostic(name, ctx.span(node), move_facts(ctx, st, moved)))
            ctx.raises()
            raises = True
    return raises


def move_facts(ctx: Ctx, st: State, moved: Moved, within_call: bool = False) -> MoveFacts:
    """A moved value's record for the launch contract's wording (compiler/launch/moves.py)."""
    pending = (ctx.world.ops[moved.op].kernel if moved.op is not None
               and ctx.world.is_pending(st.pending, moved.op, taken=True) else None)
    return MoveFacts(moved.how, moved.site, moved.name, pending,
                     _crosses_iteration(ctx.loops, moved.loops), within_call)


def _fold_number(op: ast.operator, left: Value, right: Value) -> Value:
    """`+ - *` of known numbers, one of them a float or a complex number."""
    a, b = _number(left), _number(right)
    fn = _NUMBER_OPS.get(type(op))
    if a is None or b is None or fn is None:
        return UNKNOWN
    try:
        return LiteralVal(fn(a, b))
    except (ArithmeticError, ValueError):
        return UNKNOWN


def _number(value: Value) -> complex | None:
    if isinstance(value, IntVal):
        return value.value
    if isinstance(value, LiteralVal) and type(value.value) in (float, complex):
        return cast(complex, value.value)
    return None


def _crosses_iteration(now: list[tuple[int, int]], then: tuple[tuple[int, int], ...]) -> bool:
    """Moved in an earlier pass over a loop that encloses the use: the next iteration's use."""
    passes = dict(then)
    return any(loop in passes and passes[loop] != n for loop, n in now)


def assign(ctx: Ctx, st: State, target: ast.expr, value: Value) -> None:
    if isinstance(target, ast.Name):
        assign_name(ctx, st, target.id, value)
        if ctx.facts is not None:
            ctx.facts.record(ctx.world, st, target.id, ctx.span(target), value)
    elif isinstance(target, (ast.Tuple, ast.List)):
        _unpack(ctx, st, target, value)
    elif isinstance(target, ast.Starred):
        assign(ctx, st, target.value, UNKNOWN)
    elif isinstance(target, ast.Attribute) and (key := place_key(st, target)) is not None:
        for op in ops_in(value):  # kept in an object, other code may run it: no CT305
            ctx.world.kept.update(ctx.world.members(op) | {op})
        bind(st, key, value)
    else:  # obj.attr = v, d[k] = v: stored where we do not follow it
        for child in sub_expressions(target):
            read(ctx, ctx.evaluate(st, child))
        escape(ctx, st, value)


def unbind(ctx: Ctx, st: State, targets: list[ast.expr]) -> None:
    """A binding of `targets` that raises at run time: a name keeps its value, and one bound
    nowhere before is unbound, as an attribute set nowhere before is missing (a statement run
    on its own, as a notebook or the REPL runs it, leaves them so)."""
    for target in targets:
        if isinstance(target, (ast.Tuple, ast.List, ast.Starred)):
            unbind(ctx, st, target.elts if not isinstance(target, ast.Starred)
                   else [target.value])
            continue
        key = key_of(st, target)
        if key is not None and key not in ctx.seeds and key not in ctx.globals:
            st.env.setdefault(key, UNBOUND)  # a module's kernel keeps its binding


def assign_name(ctx: Ctx, st: State, name: str, value: Value) -> None:
    if name in ctx.captured:
        escape(ctx, st, value)
    forget_below(st, name)
    st.env[name] = value


def _unpack(ctx: Ctx, st: State, target: ast.Tuple | ast.List, value: Value) -> None:
    elements = target.elts
    starred = any(isinstance(e, ast.Starred) for e in elements)
    mark = ctx.raised
    if isinstance(value, OpVal):
        unsynced(ctx, value, "unpack", ctx.span(target))
    elif isinstance(value, SyncResult) and not starred and len(value.items) != len(elements):
        ctx.report(sync_unpack_diagnostic(value.kernel, len(value.items), len(elements),
                                          ctx.span(target), value.form))
    if ctx.raised != mark:  # the unpacking raises: nothing is bound
        read(ctx, value)
        unbind(ctx, st, [target])
        return
    if isinstance(value, TupleVal) and len(value.items) == len(elements) and not starred:
        for element, item in zip(elements, value.items, strict=True):
            assign(ctx, st, element, item)
        return
    escape(ctx, st, value)
    for element in elements:
        assign(ctx, st, element, UNKNOWN)


def tuple_value(ctx: Ctx, st: State, expr: ast.Tuple) -> Value:
    items: list[Value] = []
    for element in expr.elts:
        starred = isinstance(element, ast.Starred)
        value = ctx.evaluate(st, element.value if isinstance(element, ast.Starred) else element)
        if starred:
            escape(ctx, st, value)
            return _escape_rest(ctx, st, items)
        items.append(value)
    return TupleVal(tuple(items))


def _escape_rest(ctx: Ctx, st: State, items: list[Value]) -> Value:
    for item in items:
        escape(ctx, st, item)
    return UNKNOWN


def dtype_of(ctx: Ctx, st: State, expr: ast.Attribute) -> Value | None:
    """`ct.f32` (unless `ct` is a local name): the dtype; None for anything else."""
    dtype = ctx.info.resolve(expr)
    if dtype in DTYPES and head_name(expr) not in st.env:
        return DTypeVal(DTYPES[dtype])
    return None


def attribute(ctx: Ctx, st: State, expr: ast.Attribute, base: Value) -> Value:
    """`base.attr` where it is no entry of the host API: a kernel of an imported module, a
    tensor's attribute on a lazy op (CT406), or nothing the analysis follows."""
    if isinstance(base, ModuleVal):
        kernel = ctx.project.kernel(Path(base.path), expr.attr)
        return kernel if kernel is not None else UNKNOWN
    if isinstance(base, OpVal):
        if expr.attr in HANDLE_ATTRIBUTES:
            unsynced(ctx, base, "attribute", ctx.span(expr), expr.attr)
        read(ctx, base)
    return UNKNOWN


def subscript(ctx: Ctx, st: State, expr: ast.Subscript, base: Value) -> Value:
    """`base[index]` where `base` is not a tensor (a tensor's is a view: views.py)."""
    index: Value = UNKNOWN
    if isinstance(expr.slice, ast.Tuple):  # x[a, b]
        for child in expr.slice.elts:
            read(ctx, ctx.evaluate(st, child))
    else:
        index = ctx.evaluate(st, expr.slice)
    if isinstance(base, ContainerVal):
        item = base.item(index)
        if item is not None:  # `outs[0]`: a use of the element, checked as a name's is
            return UNKNOWN if check_use(ctx, st, expr, ctx.text(expr), item) else item
    elif isinstance(base, TupleVal) and isinstance(index, IntVal) and (
            -len(base.items) <= index.value < len(base.items)):
        return base.items[index.value]
    if isinstance(base, OpVal):
        unsynced(ctx, base, "index", ctx.span(expr))
    read(ctx, base)
    return UNKNOWN


def if_exp(ctx: Ctx, st: State, expr: ast.IfExp) -> Value:
    read(ctx, ctx.evaluate(st, expr.test))
    a, b = st.copy(), st.copy()
    va, vb = ctx.evaluate(a, expr.body), ctx.evaluate(b, expr.orelse)
    merged = join_states(ctx.world, expr, a, b)
    assert merged is not None
    value = join_value(ctx.world, (expr, "value"), va, vb, a, b, merged)
    st.env, st.objs, st.leases, st.pending = merged.env, merged.objs, merged.leases, (
        merged.pending)
    st.started = merged.started
    return value


def _fold_int(ctx: Ctx, st: State, expr: ast.BinOp | ast.UnaryOp) -> Value | None:
    """Arithmetic on known numbers: ints (shapes such as `(N // 2, 64)`), and floats and
    complex numbers as launch arguments (`1 + 2j`)."""
    if isinstance(expr, ast.UnaryOp):
        if not isinstance(expr.op, ast.USub):
            return None
        inner = ctx.evaluate(st, expr.operand)
        number = _number(inner)
        if isinstance(inner, LiteralVal) and number is not None:  # -2.5, -2j
            return LiteralVal(-number)
        return IntVal(-inner.value) if isinstance(inner, IntVal) else UNKNOWN
    fn = _INT_OPS.get(type(expr.op))
    if fn is None:
        return None
    left, right = ctx.evaluate(st, expr.left), ctx.evaluate(st, expr.right)
    if not (isinstance(left, IntVal) and isinstance(right, IntVal)):
        read(ctx, left)
        read(ctx, right)
        return _fold_number(expr.op, left, right)
    if isinstance(expr.op, (ast.FloorDiv, ast.Mod)) and right.value == 0:
        return UNKNOWN
    if isinstance(expr.op, (ast.Pow, ast.LShift)) and not (
            right.value >= 0 and abs(left.value).bit_length() * max(right.value, 1) <= 2**16):
        return UNKNOWN  # a negative power is a float; keep the ints small
    return IntVal(fn(left.value, right.value))
