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
    closures: list[tuple[ast.AST, frozenset[str]]] = field(default_factory=list)  # and theirs
    owner: ast.ClassDef | None = None  # the class whose body defines this function


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
        self.local_closures: set[int] = set()  # ids of closures the scope only calls
        # ids of lambdas written as the argument of `.then(...)`: a chain calls them when it
        # runs (lazyops.py); anywhere else they escape as any lambda does (uses.escape)
        self.then_callbacks: set[int] = set()
        self.fixed_containers: set[int] = set()  # `[..]` / `{..}` only indexed
        # `a, b = call(...)`: the call's id -> the names it is unpacked into
        self.unpacked: dict[int, ast.Tuple | ast.List] = {
            id(n.value): n.targets[0] for n in ast.walk(info.tree)
            if isinstance(n, ast.Assign) and len(n.targets) == 1
            and isinstance(n.targets[0], (ast.Tuple, ast.List))
            and not any(isinstance(e, ast.Starred) for e in n.targets[0].elts)}
        for scope in self.scopes:
            self._settle(scope)
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
            outer = self._stack[-1].node
            scope = Scope(node, node.body, params,
                          owner=outer if isinstance(outer, ast.ClassDef) else None)
            self.scopes.append(scope)
            self._stack.append(scope)

    def _leave(self, node: ast.AST) -> None:
        free = self._frames.pop().free()
        self.free[id(node)] = free
        self._frames[-1].loads |= free
        if isinstance(node, _SCOPES):
            self._stack.pop()
        if isinstance(node, _CLOSURES):
            self._stack[-1].closures.append((node, free))

    def _settle(self, scope: Scope) -> None:
        """What the scope's closures can see is captured, except what closures that the
        scope only calls by name can see: their uses are checked at each call."""
        nodes = own_nodes(scope.body)
        local = {id(node) for node, _ in scope.closures if _only_called(scope, nodes, node)}
        then = {id(n.args[0]) for n in nodes if isinstance(n, ast.Call) and len(n.args) == 1
                and not n.keywords and isinstance(n.func, ast.Attribute)
                and n.func.attr == "then" and isinstance(n.args[0], ast.Lambda)}
        self.then_callbacks |= then
        local |= then
        for node, free in scope.closures:
            if id(node) not in local:
                scope.captured |= free
        self.local_closures |= local
        self.fixed_containers |= {id(node.value) for node in nodes
                                  if isinstance(node, ast.Assign) and _fixed(scope, nodes, node)}


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


def own_nodes(body: Sequence[ast.AST]) -> list[ast.AST]:
    """The nodes of a scope's own code (not inside its nested defs, lambdas and classes)."""
    out: list[ast.AST] = []
    todo = list(body)
    while todo:
        node = todo.pop()
        out.append(node)
        if isinstance(node, _CLOSURES):
            continue
        todo.extend(ast.iter_child_nodes(node))
    return out


def _closure_name(node: ast.AST, nodes: Sequence[ast.AST]) -> str | None:
    """The name a plain closure is bound to: `f = lambda ...` or an undecorated `def f`."""
    if isinstance(node, ast.FunctionDef):
        plain = not node.decorator_list and not node.args.defaults and not any(
            node.args.kw_defaults) and not any(
            isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await, ast.Global, ast.Nonlocal))
            for n in own_nodes(node.body))
        return node.name if plain else None
    if isinstance(node, ast.Lambda) and not node.args.defaults and not any(
            node.args.kw_defaults):
        for other in nodes:
            if isinstance(other, ast.Assign) and other.value is node and len(
                    other.targets) == 1 and isinstance(other.targets[0], ast.Name):
                return other.targets[0].id
    return None


def _only_called(scope: Scope, own: Sequence[ast.AST], node: ast.AST) -> bool:
    """A closure bound once to a name that the scope's own code only ever calls (`f()`) and
    no nested code sees: it runs only where the scope calls it."""
    nodes = [n for n in own if n is not node]
    name = _closure_name(node, [*nodes, node])
    if name is None or not _private_once(scope, [*nodes, node], name):
        return False
    callees = {id(n.func) for n in nodes if isinstance(n, ast.Call)}
    return all(id(n) in callees for n in nodes
               if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Store))


def _private_once(scope: Scope, nodes: Sequence[ast.AST], name: str) -> bool:
    """`name` is bound once in the scope's own code and no nested code can see it."""
    if name in scope.captured or any(name in free for _, free in scope.closures):
        return False
    return sum(bound_names(n).count(name) for n in nodes) == 1


def _fixed(scope: Scope, nodes: Sequence[ast.AST], node: ast.Assign) -> bool:
    """`outs = [a, b]` or `bufs = {"z": a}`, bound once, that the scope's own code only reads
    by a literal index (`outs[0]`, `bufs["z"]`) and no nested code sees: its elements are
    followed as names are."""
    value = node.value
    if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
        return False
    if isinstance(value, ast.List):
        key: type = int
        if any(isinstance(e, ast.Starred) for e in value.elts):
            return False
    elif isinstance(value, ast.Dict):
        key = str
        if not all(isinstance(k, ast.Constant) and type(k.value) is str for k in value.keys):
            return False
    else:
        return False
    name = node.targets[0].id
    if not _private_once(scope, nodes, name):
        return False
    indexed = {id(n.value) for n in nodes if isinstance(n, ast.Subscript) and isinstance(
        n.ctx, ast.Load) and isinstance(n.slice, ast.Constant) and type(n.slice.value) is key}
    return all(id(n) in indexed for n in nodes if isinstance(n, ast.Name) and n.id == name
               and n is not node.targets[0])
