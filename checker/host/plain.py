"""Spellings of a call or an attribute that mean the plain one: `f.__call__(a)` is `f(a)` and
`getattr(x, "name")` is `x.name`, so `op.sync.__call__()` waits as `op.sync()` does (the
runtime sees the same call)."""

from __future__ import annotations

import ast

from .context import Ctx
from .values import State


def as_plain_call(ctx: Ctx, st: State, call: ast.Call) -> ast.Call | None:
    """The call as it would be written plainly; None when it already is."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "__call__":
        plain: ast.expr = func.value
    elif isinstance(func, ast.Call) and is_getattr(ctx, st, func):
        plain = attribute_of(ctx, func)
    else:
        return None
    return ast.copy_location(ast.Call(plain, call.args, call.keywords), call)


def is_getattr(ctx: Ctx, st: State, call: ast.Call) -> bool:
    """`getattr(x, "name")` of the builtin, with a literal name."""
    func = call.func
    if not (isinstance(func, ast.Name) and func.id == "getattr" and func.id not in st.env
            and func.id not in ctx.info.assigned_globals and len(call.args) == 2
            and not call.keywords):
        return False
    name = call.args[1]
    return (isinstance(name, ast.Constant) and isinstance(name.value, str)
            and name.value.isidentifier() and not isinstance(call.args[0], ast.Starred))


def attribute_of(ctx: Ctx, call: ast.Call) -> ast.Attribute:
    """`getattr(x, "name")` as `x.name`, ending where the name does inside its quotes (an
    editor's hover shows the attribute there)."""
    value, name = call.args
    assert isinstance(name, ast.Constant) and isinstance(name.value, str)
    node = ast.copy_location(ast.Attribute(value, name.value, ast.Load()), call)
    if ctx.text(name)[1:-1] == name.value:  # 'name' as written, no prefix or escape
        node.end_lineno, node.end_col_offset = name.end_lineno, (name.end_col_offset or 1) - 1
    return node
