"""Simple statements: assignments, expression statements, return, raise, del, imports, jumps."""

from __future__ import annotations

import libcst as cst

from . import expressions as ex
from .context import Ctx
from .values import UNKNOWN, State, Value

Small = cst.BaseStatement | cst.BaseSmallStatement


def run_small(ctx: Ctx, st: State, stmt: Small) -> State | None:
    if isinstance(stmt, cst.Expr):
        ex.evaluate(ctx, st, stmt.value)  # a launch dropped here stays unrun (CT305)
    elif isinstance(stmt, cst.Assign):
        value = ex.evaluate(ctx, st, stmt.value)
        for target in stmt.targets:
            ex.assign(ctx, st, target.target, value)
    elif isinstance(stmt, cst.AnnAssign):
        if stmt.value is not None:
            ex.assign(ctx, st, stmt.target, ex.evaluate(ctx, st, stmt.value))
    elif isinstance(stmt, cst.AugAssign):
        _aug_assign(ctx, st, stmt)
    elif isinstance(stmt, (cst.Return, cst.Raise)):
        _leave(ctx, st, stmt)
        return None
    elif isinstance(stmt, (cst.Break, cst.Continue)):
        _jump(ctx, st, stmt)
        return None
    elif isinstance(stmt, cst.Del):
        _delete(ctx, st, stmt.target)
    elif isinstance(stmt, (cst.Global, cst.Nonlocal)):
        for item in stmt.names:
            ctx.captured.add(item.name.value)
            ex.escape(ctx, st, st.env.get(item.name.value, UNKNOWN))
    elif isinstance(stmt, (cst.Import, cst.ImportFrom)):
        _import(ctx, st, stmt)
    elif isinstance(stmt, cst.Assert):
        ex.read(ctx, ex.evaluate(ctx, st, stmt.test))
        if stmt.msg is not None:
            ex.read(ctx, ex.evaluate(ctx, st, stmt.msg))
    return st


def _aug_assign(ctx: Ctx, st: State, stmt: cst.AugAssign) -> None:
    old = ex.evaluate(ctx, st, stmt.target)
    ex.read(ctx, ex.evaluate(ctx, st, stmt.value))
    if isinstance(stmt.target, cst.Name):
        ex.escape(ctx, st, old)  # an in-place operator we do not model
        st.env[stmt.target.value] = UNKNOWN


def _leave(ctx: Ctx, st: State, stmt: cst.Return | cst.Raise) -> None:
    value: Value = UNKNOWN
    if isinstance(stmt, cst.Return) and stmt.value is not None:
        value = ex.evaluate(ctx, st, stmt.value)
    elif isinstance(stmt, cst.Raise) and stmt.exc is not None:
        value = ex.evaluate(ctx, st, stmt.exc)
    ex.escape(ctx, st, value)  # returned to the caller: its business now


def _jump(ctx: Ctx, st: State, stmt: cst.Break | cst.Continue) -> None:
    if ctx.flows:
        flow = ctx.flows[-1]
        (flow.breaks if isinstance(stmt, cst.Break) else flow.continues).append(st)


def _delete(ctx: Ctx, st: State, target: cst.BaseExpression) -> None:
    if isinstance(target, cst.Name):
        st.env.pop(target.value, None)
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            _delete(ctx, st, element.value)
    else:
        for child in ex.sub_expressions(target):
            ex.read(ctx, ex.evaluate(ctx, st, child))


def _import(ctx: Ctx, st: State, stmt: cst.Import | cst.ImportFrom) -> None:
    """An import inside a function binds kernels and project modules like a module-level one."""
    found = ctx.project.import_bindings(ctx.info, stmt)
    names = ([a.evaluated_alias or a.evaluated_name for a in stmt.names]
             if not isinstance(stmt.names, cst.ImportStar) else [])
    for name in names:
        local = name.split(".")[0] if isinstance(stmt, cst.Import) else name
        if local in found:
            st.env[local] = found[local]
        else:  # e.g. `import cutile as ct`: resolved from the module's aliases
            st.env.pop(local, None)
