"""Host helpers that certainly move a parameter: `def prep(t): return t.partition(s)`, or
`def step(z, x): add(z, x, x).sync()` where `add` takes `z` as a Mut (or Acc) argument.

A call of such a helper moves the argument as the helper's own call would: by `.partition()`
at this call (CT301 at a second call, CT306 from a loop, as the runtime says at the same
calls), or into the launch inside the helper (a later use is CT301 with the launch's note; a
second call of the helper is CT301 at its argument, "by an earlier call of 'step'"). Only
what is certain counts: a module-level, undecorated, plain function, bound once in the module,
whose body moves the parameter in a top-level statement that every call reaches (no return or
raise before it, not under a condition, a lambda or a comprehension), without rebinding the
parameter before; a launch counts only when it is waited for there (`k(...).sync()`) of a
kernel whose signature is known. Anything else stays unknown (silent).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass

from ...reader.source import ModuleInfo
from .syntax import call_args
from .values import KernelVal, Value

_LAZY = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.IfExp,
         ast.BoolOp, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_EXITS = (ast.Return, ast.Raise, ast.Yield, ast.YieldFrom, ast.Await)
_PLAIN = (ast.Expr, ast.Assign, ast.AnnAssign, ast.Return)


@dataclass(frozen=True)
class ParamMove:
    """How each call of the helper moves one parameter."""

    param: str
    kernel: str | None = None  # None: partitioned; else moved into a launch of this kernel
    kind: str = ""  # the launch's parameter kind: "mut" (a partition) or "acc" (a tensor)
    site: ast.expr | None = None  # the launch's argument, inside the helper


def moved_params(info: ModuleInfo, name: str, bindings: int,
                 scope: Mapping[str, Value]) -> dict[int, ParamMove]:
    """{position: move} of the parameters each call of the module-level function `name`
    moves (empty when unknown); `bindings`: how often the module binds `name`; `scope`: the
    module's globals (its kernels)."""
    if bindings != 1:
        return {}
    for node in info.tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == name and not node.decorator_list:
            return _moved_params(node, scope)
    return {}


def _moved_params(fn: ast.FunctionDef, scope: Mapping[str, Value]) -> dict[int, ParamMove]:
    args = fn.args
    if args.vararg or args.kwarg or args.kwonlyargs or args.defaults:
        return {}
    params = [a.arg for a in [*args.posonlyargs, *args.args]]
    rebound = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)
               and not isinstance(n.ctx, ast.Load)}
    before: set[str] = set()  # rebound by an earlier statement
    moved: dict[int, ParamMove] = {}
    for stmt in fn.body:
        if not isinstance(stmt, _PLAIN):
            break  # control flow: what follows may not run
        for name in _partitioned(stmt):
            if name in params and name not in rebound:
                moved.setdefault(params.index(name), ParamMove(name))
        for name, move in _launched(stmt, scope):
            if name in params and name not in before:
                moved.setdefault(params.index(name), move)
        if isinstance(stmt, ast.Return) or any(isinstance(n, _EXITS) for n in ast.walk(stmt)):
            break
        before |= {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name)
                   and not isinstance(n.ctx, ast.Load)}
    return moved


def _calls(stmt: ast.stmt) -> list[ast.Call]:
    """The calls a statement certainly makes (not those of lazily run parts)."""
    out: list[ast.Call] = []
    todo: list[ast.AST] = [stmt]
    while todo:
        node = todo.pop()
        if isinstance(node, _LAZY):
            continue
        if isinstance(node, ast.Call):
            out.append(node)
        todo.extend(ast.iter_child_nodes(node))
    return out


def _partitioned(stmt: ast.stmt) -> list[str]:
    """Names `n` of the `n.partition(...)` calls a statement certainly makes."""
    return [c.func.value.id for c in _calls(stmt) if isinstance(c.func, ast.Attribute)
            and c.func.attr == "partition" and isinstance(c.func.value, ast.Name)]


def _launched(stmt: ast.stmt, scope: Mapping[str, Value]) -> list[tuple[str, ParamMove]]:
    """Names passed as Mut or Acc arguments of the launches `k(...).sync()` a statement
    certainly makes, with their moves."""
    out: list[tuple[str, ParamMove]] = []
    for call in _calls(stmt):
        func = call.func
        if not (isinstance(func, ast.Attribute) and func.attr == "sync" and not call.args
                and isinstance(func.value, ast.Call) and isinstance(func.value.func, ast.Name)):
            continue
        kernel = scope.get(func.value.func.id)
        if not isinstance(kernel, KernelVal) or kernel.sig is None or kernel.tuning is not None:
            continue
        params = kernel.sig.params
        for i, arg in enumerate(call_args(func.value)):
            if arg.star:
                break
            index = i if arg.name is None else next(
                (j for j, p in enumerate(params) if p.name == arg.name), None)
            if (index is None or index >= len(params) or not isinstance(arg.value, ast.Name)
                    or params[index].kind not in ("mut", "acc")):
                continue
            out.append((arg.value.id, ParamMove(arg.value.id, kernel.name, params[index].kind,
                                                arg.value)))
    return out
