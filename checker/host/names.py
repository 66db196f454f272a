"""One pass over the module: its host scopes, and the free names of nested code.

Everything the analysis needs from whole subtrees is gathered here once: which names a nested
def, lambda or comprehension reads from outside, and which names of a scope such nested code
(or a `global` statement) can see.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...reader.source import ModuleInfo, target_names

if TYPE_CHECKING:
    from .helpers import ParamMove
    from .values import Value

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_CLOSURES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.ListComp,
           ast.SetComp, ast.DictComp, ast.GeneratorExp)

_BINDERS = frozenset({ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor,
                      ast.comprehension, ast.NamedExpr, ast.withitem, ast.ExceptHandler,
                      ast.alias, ast.MatchAs, ast.MatchStar, ast.MatchMapping})
_INTERESTING = frozenset({*_NESTED, *_BINDERS, ast.Global, ast.Nonlocal})


@dataclass
class Scope:
    node: ast.Module | FunctionNode | ast.ClassDef
    body: Sequence[ast.stmt]
    params: list[str]
    captured: set[str] = field(default_factory=set)  # names nested code or `global` can see


@dataclass
class _Frame:
    loads: set[str] = field(default_factory=set)
    assigned: set[str] = field(default_factory=set)
    declared: set[str] = field(default_factory=set)  # global / nonlocal

    def free(self) -> frozenset[str]:
        return frozenset(self.loads - (self.assigned - self.declared))


class ModuleIndex:
    """Walks the tree once, recording scopes and the free names of nested code."""

    def __init__(self, info: ModuleInfo) -> None:
        self.info = info
        self.free: dict[int, frozenset[str]] = {}  # id(nested node) -> its free names
        self.scopes = [Scope(info.tree, info.tree.body, [])]
        self._stack = [self.scopes[0]]
        self._frames = [_Frame()]
        self.bindings: Counter[str] = Counter()  # how often each name is bound, anywhere
        self._walk(info.tree)
        self._movers: dict[str, dict[int, ParamMove]] = {}

    def movers(self, name: str, scope: Mapping[str, Value]) -> dict[int, ParamMove]:
        """The parameters the module-level helper `name` certainly moves (helpers.py);
        `scope`: the module's globals (its kernels)."""
        found = self._movers.get(name)
        if found is None:
            from .helpers import moved_params

            found = self._movers[name] = moved_params(self.info, name, self.bindings[name],
                                                      scope)
        return found

    def names(self, node: ast.AST) -> frozenset[str]:
        return self.free.get(id(node), frozenset())

    def _walk(self, node: ast.AST) -> None:
        kind = type(node)
        if kind is ast.Name:
            assert isinstance(node, ast.Name)
            self._frames[-1].loads.add(node.id)
            return
        if kind not in _INTERESTING:
            for child in ast.iter_child_nodes(node):
                self._walk(child)
            return
        frame = self._frames[-1]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and is_cutile(
                self.info, node):
            frame.assigned.add(node.name)
            self.bindings[node.name] += 1
            return  # kernel bodies are the frontend's and see only constants
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            self.bindings.update(node.names * 2)  # bound from elsewhere: never certain
            frame.loads.update(node.names)
            frame.declared.update(node.names)
            self._stack[-1].captured.update(node.names)
            return
        bound = bound_names(node)
        frame.assigned.update(bound)
        self.bindings.update(bound)
        if not isinstance(node, _NESTED):
            for child in ast.iter_child_nodes(node):
                self._walk(child)
            return
        self._enter(node)
        for child in ast.iter_child_nodes(node):
            self._walk(child)
        self._leave(node)

    def _enter(self, node: ast.AST) -> None:
        inner = _Frame()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            inner.assigned.update(param_names(node.args))
        self._frames.append(inner)
        if isinstance(node, _SCOPES):
            params = param_names(node.args) if not isinstance(node, ast.ClassDef) else []
            scope = Scope(node, node.body, params)
            self.scopes.append(scope)
            self._stack.append(scope)

    def _leave(self, node: ast.AST) -> None:
        free = self._frames.pop().free()
        self.free[id(node)] = free
        self._frames[-1].loads |= free
        if isinstance(node, _SCOPES):
            self._stack.pop()
        if isinstance(node, _CLOSURES):
            self._stack[-1].captured |= free


def is_cutile(info: ModuleInfo, node: FunctionNode) -> bool:
    for deco in node.decorator_list:
        if info.resolve(deco.func if isinstance(deco, ast.Call) else deco) in ("kernel",
                                                                                "function"):
            return True
    return False


def param_names(args: ast.arguments) -> list[str]:
    names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    for star in (args.vararg, args.kwarg):
        if star is not None:
            names.append(star.arg)
    return names


def bound_names(node: ast.AST) -> list[str]:
    """Names a statement or clause binds in its own scope (not those of nested code)."""
    if isinstance(node, ast.Assign):
        return [n for t in node.targets for n in target_names(t)]
    if isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.comprehension,
                         ast.NamedExpr)):
        return target_names(node.target)
    if isinstance(node, ast.withitem):
        return target_names(node.optional_vars) if node.optional_vars is not None else []
    if isinstance(node, ast.ExceptHandler):
        return [node.name] if node.name is not None else []
    if isinstance(node, ast.alias):
        return [] if node.name == "*" else [(node.asname or node.name).split(".")[0]]
    if isinstance(node, (ast.MatchAs, ast.MatchStar)):
        return [node.name] if node.name is not None else []
    if isinstance(node, ast.MatchMapping):
        return [node.rest] if node.rest is not None else []
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    return []
