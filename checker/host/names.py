"""One pass over the module: its host scopes, and the free names of nested code.

libcst traversals are slow, so everything the analysis needs from whole subtrees is gathered
here once: which names a nested def, lambda or comprehension reads from outside, and which
names of a scope such nested code (or a `global` statement) can see.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field

import libcst as cst

from ...compiler.frontend.module import ModuleInfo

_SCOPES = (cst.FunctionDef, cst.ClassDef)
_CLOSURES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)
_NESTED = (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp,
           cst.GeneratorExp)

_INTERESTING = frozenset({*_NESTED, cst.Global, cst.Nonlocal, cst.AssignTarget, cst.AnnAssign,
                          cst.AugAssign, cst.For, cst.CompFor, cst.NamedExpr, cst.AsName,
                          cst.ImportAlias})


@dataclass
class Scope:
    node: cst.Module | cst.FunctionDef | cst.ClassDef
    body: Sequence[cst.BaseStatement | cst.BaseSmallStatement]
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
    """Walks the tree by its dataclass fields: several times faster than a libcst visitor."""

    def __init__(self, info: ModuleInfo) -> None:
        self.info = info
        self.free: dict[int, frozenset[str]] = {}  # id(nested node) -> its free names
        self.scopes = [Scope(info.module, info.module.body, [])]
        self._stack = [self.scopes[0]]
        self._frames = [_Frame()]
        self._skipped: set[int] = set()
        self._walk(info.module)

    def _walk(self, node: cst.CSTNode) -> None:
        if self.on_visit(node):
            for name in _fields(type(node)):
                value = getattr(node, name)
                if isinstance(value, cst.CSTNode):
                    self._walk(value)
                elif type(value) in (tuple, list):
                    for item in value:
                        if isinstance(item, cst.CSTNode):
                            self._walk(item)
        self.on_leave(node)

    def names(self, node: cst.CSTNode) -> frozenset[str]:
        return self.free.get(id(node), frozenset())

    def on_visit(self, node: cst.CSTNode) -> bool:
        # Exact-type tests: isinstance on libcst's ABC-based classes dominates otherwise.
        kind = type(node)
        frame = self._frames[-1]
        if kind is cst.Name:
            assert isinstance(node, cst.Name)
            frame.loads.add(node.value)
            return True
        if kind not in _INTERESTING:
            return True
        if isinstance(node, cst.FunctionDef) and is_cutile(self.info, node):
            self._skipped.add(id(node))
            frame.assigned.add(node.name.value)
            return False  # kernel bodies are the frontend's and see only constants
        elif isinstance(node, (cst.Global, cst.Nonlocal)):
            frame.declared.update(n.name.value for n in node.names)
            self._stack[-1].captured.update(n.name.value for n in node.names)
        else:
            frame.assigned.update(bound_names(node))
        if isinstance(node, _NESTED):
            self._enter(node)
        return True

    def _enter(self, node: cst.CSTNode) -> None:
        inner = _Frame()
        if isinstance(node, (cst.FunctionDef, cst.Lambda)):
            inner.assigned.update(param_names(node.params))
        self._frames.append(inner)
        if isinstance(node, _SCOPES):
            params = param_names(node.params) if isinstance(node, cst.FunctionDef) else []
            scope = Scope(node, node.body.body, params)
            self.scopes.append(scope)
            self._stack.append(scope)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        node = original_node
        if type(node) not in _NESTED or id(node) in self._skipped:
            return
        free = self._frames.pop().free()
        self.free[id(node)] = free
        self._frames[-1].loads |= free
        if isinstance(node, _SCOPES):
            self._stack.pop()
        if isinstance(node, _CLOSURES):
            self._stack[-1].captured |= free


def _fields(kind: type[cst.CSTNode]) -> tuple[str, ...]:
    """The fields of a node type that can hold names (not whitespace or punctuation)."""
    found = _FIELDS.get(kind)
    if found is None:
        found = tuple(f.name for f in dataclasses.fields(kind)
                      if "whitespace" not in f.name and f.name not in _PUNCTUATION)
        _FIELDS[kind] = found
    return found


_FIELDS: dict[type[cst.CSTNode], tuple[str, ...]] = {}
_PUNCTUATION = frozenset({"lpar", "rpar", "comma", "leading_lines", "lines_after_decorators",
                          "header", "footer", "semicolon", "newline", "equal", "colon", "dot",
                          "operator", "lbracket", "rbracket", "lbrace", "rbrace"})


def is_cutile(info: ModuleInfo, node: cst.FunctionDef) -> bool:
    for deco in node.decorators:
        expr = deco.decorator
        if info.resolve(expr.func if isinstance(expr, cst.Call) else expr) in ("kernel",
                                                                                 "function"):
            return True
    return False


def param_names(params: cst.Parameters) -> list[str]:
    names = [p.name.value for p in (*params.posonly_params, *params.params,
                                     *params.kwonly_params)]
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            names.append(star.name.value)
    return names


def bound_names(node: cst.CSTNode) -> list[str]:
    """Names a statement or clause binds in its own scope (not those of nested code)."""
    if isinstance(node, cst.AssignTarget):
        return target_names(node.target)
    if isinstance(node, (cst.AnnAssign, cst.AugAssign, cst.For, cst.CompFor)):
        return target_names(node.target)
    if isinstance(node, cst.NamedExpr):
        return target_names(node.target)
    if isinstance(node, cst.AsName):
        return target_names(node.name) if isinstance(node.name, cst.BaseExpression) else []
    if isinstance(node, cst.ImportAlias):
        return [(node.evaluated_alias or node.evaluated_name).split(".")[0]]
    if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        return [node.name.value]
    return []


def target_names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in target_names(e.value)]
    if isinstance(target, cst.StarredElement):
        return target_names(target.value)
    return []
