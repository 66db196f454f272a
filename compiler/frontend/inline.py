"""Helper inlining: a `@ct.function` call is its body analyzed again at the call, with the
call's arguments bound to its parameters, in a scope of its own (`scope.helper_scope`) that
shares the kernel's IR builder and diagnostics. The helper's `return` value is its result.
"""

from __future__ import annotations

import ast

from ...diagnostics import messages as msg
from ...diagnostics.diagnostic import Span
from ...reader.source import FunctionDef, literal_value
from .builder import Arg
from .context import Context, Scope
from .values import UNKNOWN, Binding, FValue, Unbound, literal_fvalue, none_value


def inline(scope: Scope, fn: FunctionDef, args: list[Arg], kwargs: dict[str, Arg],
           span: Span) -> FValue:
    """The value of `fn(*args, **kwargs)` called at `span` (CT2xx of its body noted there)."""
    check_recursion(scope.ctx, fn, span)
    ctx = scope.ctx
    env = bind_arguments(ctx, fn, args, kwargs, span)
    ctx.stack.append(fn.name)
    try:
        helper = scope.helper_scope(env, span)
        helper.body(_rewritten_body(ctx, fn))
    finally:
        ctx.stack.pop()
    result = helper.env.get("__return__")
    if result is None:
        return none_value(span)
    return UNKNOWN if isinstance(result, Unbound) else result


def _rewritten_body(ctx: Context, fn: FunctionDef) -> list[ast.stmt]:
    """The helper's body with its early returns rewritten, once per parse (every call site
    inlines the same body)."""
    key = f"early_returns:{fn.name}"
    body = ctx.info.derived.get(key)
    if body is None:
        body = ctx.info.derived.setdefault(key, early_returns(fn.node.body))
    assert isinstance(body, list)
    return body


def check_recursion(ctx: Context, fn: FunctionDef, span: Span) -> None:
    """A helper that calls itself, directly or through others, is an error: reported once
    per cycle, at the call into its first-defined helper, whichever helper the analysis
    entered it from (the cycle is walked once more to get there)."""
    stack = ctx.stack
    if fn.name not in stack:
        return
    cycle = stack[stack.index(fn.name):]
    head = min(cycle, key=lambda n: ctx.info.functions[n].node.lineno)
    if fn.name == head or stack.count(fn.name) > 1:
        chain = " -> ".join([*stack[stack.index(fn.name):], fn.name])
        ctx.builder.fail(msg.RECURSION, span, name=fn.name, chain=chain)


def bind_arguments(ctx: Context, fn: FunctionDef, args: list[Arg], kwargs: dict[str, Arg],
                   span: Span) -> dict[str, Binding]:
    """The helper's parameters bound to the call's arguments, then to their defaults."""
    params, positional = _parameters(fn)
    env: dict[str, Binding] = {}
    b = ctx.builder
    if len(args) > len(positional):
        b.fail(msg.TOO_MANY_ARGS, args[len(positional)].span, name=fn.name, most=len(positional),
               s="" if len(positional) == 1 else "s", given=len(args))
    for param, a in zip(positional, args, strict=False):
        env[param.arg] = a.value
    names = {x.arg for x in params}
    for key, a in kwargs.items():
        if key not in names:
            b.fail(msg.UNKNOWN_KEYWORD, a.span, name=fn.name, param=key)
        if key in env:
            b.fail(msg.DUPLICATE_ARG, a.span, name=fn.name, param=key)
        env[key] = a.value
    _bind_defaults(ctx, fn, env, span)
    return env


def _parameters(fn: FunctionDef) -> tuple[list[ast.arg], list[ast.arg]]:
    """All of fn's parameters, and those that take positional arguments."""
    p = fn.node.args
    return [*p.posonlyargs, *p.args, *p.kwonlyargs], [*p.posonlyargs, *p.args]


def _bind_defaults(ctx: Context, fn: FunctionDef, env: dict[str, Binding], span: Span) -> None:
    p = fn.node.args
    params, positional = _parameters(fn)
    pos_defaults: list[ast.expr | None] = [None] * (len(positional) - len(p.defaults))
    defaults = dict(zip((x.arg for x in params), [*pos_defaults, *p.defaults, *p.kw_defaults],
                        strict=True))
    for param in params:
        if param.arg in env:
            continue
        node = defaults[param.arg]
        default = literal_value(node) if node is not None else None
        if default is None:
            ctx.builder.fail(msg.MISSING_ARG, span, name=fn.name, param=param.arg)
        env[param.arg] = literal_fvalue(default, span)


def early_returns(stmts: list[ast.stmt]) -> list[ast.stmt]:
    """`if c: ...; return a` followed by more statements becomes `if c: ...; return a else:
    <the rest>` (and likewise for a returning else), so a helper may return from one branch:
    both branches then end in a return, which the branch merge handles. Loops are left alone
    (a return there would also end the loop)."""
    out: list[ast.stmt] = []
    for i, stmt in enumerate(stmts):
        if isinstance(stmt, ast.If):
            body, orelse = early_returns(stmt.body), early_returns(stmt.orelse)
            rest = stmts[i + 1:]
            if rest and _returns(body) != _returns(orelse):
                if _returns(body):
                    orelse = early_returns([*stmt.orelse, *rest])
                else:
                    body = early_returns([*stmt.body, *rest])
                out.append(_if_like(stmt, body, orelse))
                return out
            out.append(_if_like(stmt, body, orelse))
        else:
            out.append(stmt)
    return out


def _returns(stmts: list[ast.stmt]) -> bool:
    """Whether every path through `stmts` ends in a return."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, ast.Return):
        return True
    if isinstance(last, ast.If):
        return _returns(last.body) and _returns(last.orelse)
    return False


def _if_like(node: ast.If, body: list[ast.stmt], orelse: list[ast.stmt]) -> ast.If:
    if body is node.body and orelse is node.orelse:
        return node
    return ast.copy_location(ast.If(test=node.test, body=body, orelse=orelse), node)
