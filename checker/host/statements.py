"""Simple statements: assignments, expression statements, return, raise, del, imports, jumps
(the core, core.py, sends every statement that is not compound here)."""

from __future__ import annotations

import ast

from .context import Ctx
from .expressions import assign, unbind
from .places import bind, forget_below, place_key
from .syntax import sub_expressions
from .uses import escape, read
from .values import UNKNOWN, OpVal, State, Value


def run_small(ctx: Ctx, st: State, stmt: ast.stmt) -> State | None:
    if isinstance(stmt, ast.Expr):
        value = ctx.evaluate(st, stmt.value)  # a launch dropped here stays unrun (CT305)
        if (isinstance(stmt.value, ast.Call) and isinstance(value, OpVal)
                and value.op not in ctx.world.consumed):
            # and is gone: nothing it was given is pending any more (as at run time)
            st.pending = st.pending - ctx.world.members(value.op)
    elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
        _assign(ctx, st, stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target],
                stmt.value)
    elif isinstance(stmt, ast.AugAssign):
        _aug_assign(ctx, st, stmt)
    elif isinstance(stmt, (ast.Return, ast.Raise)):
        _leave(ctx, st, stmt)
        return None
    elif isinstance(stmt, (ast.Break, ast.Continue)):
        _jump(ctx, st, stmt)
        return None
    elif isinstance(stmt, ast.Delete):
        for target in stmt.targets:
            _delete(ctx, st, target)
    elif isinstance(stmt, (ast.Global, ast.Nonlocal)):
        for name in stmt.names:
            ctx.captured.add(name)
            escape(ctx, st, st.env.get(name, UNKNOWN))
    elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
        _import(ctx, st, stmt)
    elif isinstance(stmt, ast.Assert):
        read(ctx, ctx.evaluate(st, stmt.test))
        if stmt.msg is not None:
            read(ctx, ctx.evaluate(st, stmt.msg))
    return st


def _assign(ctx: Ctx, st: State, targets: list[ast.expr], expr: ast.expr) -> None:
    """`a = b = value`; where evaluating the value raises at run time, nothing is bound."""
    mark = ctx.raised
    value = ctx.evaluate(st, expr)
    if ctx.raised == mark:
        for target in targets:
            assign(ctx, st, target, value)
        return
    read(ctx, value)
    unbind(ctx, st, targets)


def _aug_assign(ctx: Ctx, st: State, stmt: ast.AugAssign) -> None:
    old = ctx.evaluate(st, stmt.target)
    read(ctx, ctx.evaluate(st, stmt.value))
    if isinstance(stmt.target, ast.Name):
        escape(ctx, st, old)  # an in-place operator we do not model
        forget_below(st, stmt.target.id)
        st.env[stmt.target.id] = UNKNOWN
    elif isinstance(stmt.target, ast.Attribute) and (key := place_key(st, stmt.target)):
        escape(ctx, st, old)
        bind(st, key, UNKNOWN)


def _leave(ctx: Ctx, st: State, stmt: ast.Return | ast.Raise) -> None:
    value: Value = UNKNOWN
    if isinstance(stmt, ast.Return) and stmt.value is not None:
        value = ctx.evaluate(st, stmt.value)
    elif isinstance(stmt, ast.Raise) and stmt.exc is not None:
        value = ctx.evaluate(st, stmt.exc)
    escape(ctx, st, value)  # returned to the caller: its business now


def _jump(ctx: Ctx, st: State, stmt: ast.Break | ast.Continue) -> None:
    if ctx.flows:
        flow = ctx.flows[-1]
        (flow.breaks if isinstance(stmt, ast.Break) else flow.continues).append(st)


def _delete(ctx: Ctx, st: State, target: ast.expr) -> None:
    if isinstance(target, ast.Name):
        forget_below(st, target.id)
        st.env.pop(target.id, None)
    elif isinstance(target, ast.Attribute) and (key := place_key(st, target)):
        bind(st, key, UNKNOWN)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            _delete(ctx, st, element)
    else:
        for child in sub_expressions(target):
            read(ctx, ctx.evaluate(st, child))


def _import(ctx: Ctx, st: State, stmt: ast.Import | ast.ImportFrom) -> None:
    """An import inside a function binds kernels and project modules like a module-level one."""
    found = ctx.project.import_bindings(ctx.info, stmt)
    for alias in stmt.names:
        if alias.name == "*":
            continue
        name = alias.asname or alias.name
        local = name.split(".")[0] if isinstance(stmt, ast.Import) else name
        if local in found:
            st.env[local] = found[local]
        else:  # e.g. `import cutile as ct`: resolved from the module's aliases
            st.env.pop(local, None)
