"""Attributes followed as names are: `self.cache` in a method, `state.buf` after
`state.buf = t`.

A place is an attribute chain on a local name whose value the analysis does not follow
(`self`, any plain object). Its key in the state's env is the dotted chain ("self.cache"),
which no Python name can be. Code the analysis cannot see may rebind attributes, so a call of
such code forgets every place (`forget`); a later load starts over. In a method, an attribute
that every store in the module makes a new cutile tensor (`self.buf = ct.zeros(...)`) starts
as a live tensor of unknown shape (`seeds`): moving it twice in one method is CT301 at edit
time, as it is at run time.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable

from ...compiler.hostapi import lookup
from ...reader.source import ModuleInfo
from .context import Ctx
from .names import FunctionNode, Scope, bound_names, own_nodes
from .values import LIVE, UNKNOWN, State, TensorVal, Unbound, Value, ops_in, owned_in

# Methods that make attribute access or binding run user code: no attribute is inferred there.
_HOOKS = frozenset({"__getattr__", "__getattribute__", "__setattr__", "__delattr__"})


def place_key(st: State, expr: ast.expr) -> str | None:
    """The dotted key of `expr` when it is a place in `st`: an attribute chain whose head is a
    local name, and whose head and shorter chains are bound to nothing the analysis follows."""
    parts: list[str] = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if not parts or not isinstance(expr, ast.Name):
        return None
    key = expr.id
    for part in reversed(parts):
        if st.env.get(key, UNKNOWN if "." in key else None) != UNKNOWN:
            return None
        key = f"{key}.{part}"
    return key


def key_of(st: State, expr: ast.expr) -> str | None:
    """The env key of a name or a place (`z`, `self.buf`); None for any other expression."""
    return expr.id if isinstance(expr, ast.Name) else place_key(st, expr)


def bind(st: State, key: str, value: Value) -> None:
    """`a.b = value`: an object reached another way may be the same, so every place that ends
    in `.b` is forgotten, and so are the places below `a.b`."""
    last = key.rsplit(".", 1)[1]
    forget(st, lambda k: k.endswith(f".{last}") or k.startswith(f"{key}."))
    st.env[key] = value


def forget(st: State, which: Callable[[str], bool] | None = None) -> None:
    """Forgets the places `which(key)` selects (all of them by default): a later load starts
    over (a seeded attribute is a live tensor again). One that is missing stays so, and one
    that held a moved value becomes unknown: the code may or may not have bound another, so
    nothing is said about it either way."""
    for key in [k for k in st.env if "." in k and (which is None or which(k))
                and not isinstance(st.env[k], Unbound)]:
        if any(st.obj(o.obj) != LIVE for o in owned_in(st.env[key])):
            st.env[key] = UNKNOWN
        else:
            del st.env[key]


def ran_unseen(ctx: Ctx, st: State) -> None:
    """Code the analysis does not see ran: it may have rebound any attribute (`forget`) and run
    any launch kept in one (it is handed on)."""
    for key in [k for k in st.env if "." in k]:
        for op in ops_in(st.env[key]):
            ctx.world.escape_op(op)
    forget(st)


def forget_below(st: State, name: str) -> None:
    """`name` is bound anew: its places were the old object's (missing ones too)."""
    for key in [k for k in st.env if k.startswith(f"{name}.")]:
        del st.env[key]


def lookup_place(ctx: Ctx, st: State, expr: ast.Attribute) -> tuple[str, Value] | None:
    """The place `expr` names and its value; a seeded attribute that no place holds (at the
    method's start, or after a call forgot it) is a live tensor again, one per load site."""
    key = place_key(st, expr)
    if key is None:
        return None
    value = st.env.get(key)
    if value is None and key in ctx.seeds:
        site = ctx.span(expr)
        obj, storage = ctx.world.phi((key, site, "obj")), ctx.world.phi((key, site, "storage"))
        st.objs[obj] = LIVE
        value = st.env[key] = TensorVal(obj, storage, None, None)
    return None if value is None else (key, value)


def seeds(info: ModuleInfo, scope: Scope) -> frozenset[str]:
    """The keys (`self.buf`) of the attributes of a method's instance that every store in
    the module binds to a new cutile tensor."""
    cls, node = scope.owner, scope.node
    if cls is None or not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return frozenset()
    this = _instance_name(info, node)
    if this is None or any(this in bound_names(n) for n in own_nodes(node.body)):
        return frozenset()
    members = {n for stmt in cls.body for n in bound_names(stmt)}
    if members & _HOOKS:
        return frozenset()
    stores = _attribute_stores(info.tree)
    mine = {attr for method in _methods(cls) for attr in _own_attributes(info, method)}
    return frozenset(f"{this}.{attr}" for attr in mine - members
                     if all(_makes_tensor(info, v) for v in stores.get(attr, [None])))


def _methods(cls: ast.ClassDef) -> Iterable[FunctionNode]:
    return (s for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)))


def _instance_name(info: ModuleInfo, node: FunctionNode) -> str | None:
    """The first parameter of a method that takes its instance (not a static or class one)."""
    if any(info.qualified(d) in ("staticmethod", "classmethod") or (
            isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod"))
            for d in node.decorator_list):
        return None
    params = [*node.args.posonlyargs, *node.args.args]
    return params[0].arg if params else None


def _own_attributes(info: ModuleInfo, method: FunctionNode) -> set[str]:
    this = _instance_name(info, method)
    return {t.attr for n in ast.walk(method) for t in _targets(n)
            if isinstance(t.value, ast.Name) and t.value.id == this}


def _attribute_stores(tree: ast.Module) -> dict[str, list[ast.expr | None]]:
    """Per attribute name, the value of every store to it in the module (None: a store whose
    value is not one expression, such as `a.b, c = ...`, `a.b += 1` or `del a.b`)."""
    out: dict[str, list[ast.expr | None]] = {}
    for node in ast.walk(tree):
        single = isinstance(node, ast.Assign) and all(
            isinstance(t, ast.Attribute) for t in node.targets)
        for target in _targets(node):
            value = node.value if single and isinstance(node, ast.Assign) else None
            out.setdefault(target.attr, []).append(value)
    return out


def _targets(node: ast.AST) -> list[ast.Attribute]:
    """The attributes a statement stores to or deletes."""
    if isinstance(node, ast.Assign):
        found: list[ast.AST] = [n for t in node.targets for n in _flat(t)]
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.NamedExpr)):
        found = list(_flat(node.target))
    elif isinstance(node, ast.withitem) and node.optional_vars is not None:
        found = list(_flat(node.optional_vars))
    elif isinstance(node, ast.Delete):
        found = [n for t in node.targets for n in _flat(t)]
    else:
        return []
    return [n for n in found if isinstance(n, ast.Attribute)]


def _flat(target: ast.expr) -> list[ast.expr]:
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for e in target.elts for n in _flat(e)]
    if isinstance(target, ast.Starred):
        return _flat(target.value)
    return [target]


def _makes_tensor(info: ModuleInfo, value: ast.expr | None) -> bool:
    """`ct.zeros(...)`, `ct.from_dlpack(...)`: a call of a cutile constructor."""
    if not isinstance(value, ast.Call):
        return False
    entry = lookup("ct", info.resolve(value.func) or "")
    return entry is not None and entry.kind == "function" and entry.returns == "Tensor"

