"""Host helpers that certainly partition a parameter: `def prep(t): return t.partition(s)`.

A call of such a helper moves the argument as `.partition()` would, so calling it twice with
one tensor is CT301 (CT306 from a loop), as the runtime says at the same calls. Only what is
certain counts: a module-level, undecorated, plain function, bound once in the module, whose
body partitions the parameter in a top-level statement that every call reaches (no return or
raise before it, not under a condition, a lambda or a comprehension), and that never rebinds
the parameter. Anything else stays unknown (silent).
"""

from __future__ import annotations

import ast

from ...reader.source import ModuleInfo

_LAZY = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.IfExp,
         ast.BoolOp, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_EXITS = (ast.Return, ast.Raise, ast.Yield, ast.YieldFrom, ast.Await)
_PLAIN = (ast.Expr, ast.Assign, ast.AnnAssign, ast.Return)


def moved_params(info: ModuleInfo, name: str, bindings: int) -> dict[int, str]:
    """{position: parameter} of the parameters each call of the module-level function `name`
    partitions (empty when unknown); `bindings`: how often the module binds `name`."""
    if bindings != 1:
        return {}
    for node in info.tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == name and not node.decorator_list:
            return _moved_params(node)
    return {}


def _moved_params(fn: ast.FunctionDef) -> dict[int, str]:
    args = fn.args
    if args.vararg or args.kwarg or args.kwonlyargs or args.defaults:
        return {}
    params = [a.arg for a in [*args.posonlyargs, *args.args]]
    rebound = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)
               and not isinstance(n.ctx, ast.Load)}
    moved: dict[int, str] = {}
    for stmt in fn.body:
        if not isinstance(stmt, _PLAIN):
            break  # control flow: what follows may not run
        for name in _partitioned(stmt):
            if name in params and name not in rebound:
                moved.setdefault(params.index(name), name)
        if isinstance(stmt, ast.Return) or any(isinstance(n, _EXITS) for n in ast.walk(stmt)):
            break
    return moved


def _partitioned(stmt: ast.stmt) -> list[str]:
    """Names `n` of the `n.partition(...)` calls a statement certainly makes."""
    out: list[str] = []
    todo: list[ast.AST] = [stmt]
    while todo:
        node = todo.pop()
        if isinstance(node, _LAZY):
            continue
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "partition" and isinstance(node.func.value, ast.Name)):
            out.append(node.func.value.id)
        todo.extend(ast.iter_child_nodes(node))
    return out
