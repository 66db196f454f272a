"""Where a kernel reaches one slab per block of a Mut parameter outside `for zt in z.tiles()`
(`z.store(t)`, `z.load()`, `z.tile_index()`, `ct.load_tile_like(x, z)`): a persistent partition
(`blocks=`) of that parameter would leave slabs unwritten (CT410). Read from the syntax, so the
launch contract can tell at the call site; uses through helpers are left to the specialization's
exact check (`tiling.persistent_misuse`)."""

from __future__ import annotations

import ast

from ...diagnostics.diagnostic import Span
from ...reader.source import ModuleInfo

_SLAB_METHODS = frozenset({"store", "load", "tile_index"})


def per_block_access(info: ModuleInfo, body: list[ast.stmt],
                     muts: set[str]) -> dict[str, Span]:
    """Mut parameter -> its first per-block access outside its own tiles loops."""
    found: dict[str, Span] = {}

    def visit(node: ast.AST, looping: frozenset[str]) -> None:
        if isinstance(node, ast.For):
            visit(node.iter, looping)
            inner = looping | (_tiles_owners(node.iter) & muts)
            for stmt in [*node.body, *node.orelse]:
                visit(stmt, inner)
            return
        name = _accessed(node)
        if name in muts and name not in looping and name not in found:
            found[name] = info.span(node)
        for sub in ast.iter_child_nodes(node):
            visit(sub, looping)

    for stmt in body:
        visit(stmt, frozenset())
    return found


def _tiles_owners(it: ast.expr) -> set[str]:
    """The Mut names a loop walks the slabs of: `z.tiles()`, or `zip(a.tiles(), b.tiles())`."""
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "zip":
        return {name for arg in it.args for name in _tiles_owners(arg)}
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and \
            it.func.attr == "tiles" and isinstance(it.func.value, ast.Name):
        return {it.func.value.id}
    return set()


def _accessed(node: ast.AST) -> str | None:
    """The Mut name a call reaches one slab of: `z.store(...)` or `ct.load_tile_like(x, z)`."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return None
    func = node.func
    if func.attr in _SLAB_METHODS and isinstance(func.value, ast.Name):
        return func.value.id
    if func.attr == "load_tile_like" and len(node.args) >= 2 and \
            isinstance(node.args[1], ast.Name):
        return node.args[1].id
    return None
