"""Loops over tuples, unrolled at compile time: `for t in ct.split(x, 4, axis=1)`,
`for k, t in enumerate(tiles)`, `for a, b in zip(xs, ys)`, `for d in (1, 2, 4)`.

The body is copied once per item, with the loop's target bound to that item before each copy:
an item is a compile-time value (an int, a tile, a tensor), so `k` above is a constant that
can index tuples, pick sub-tiles and decide `if`s while compiling. run_body (control.py) splices
the copies in place of the loop, so a `return` or an inner loop's exit flag is followed by the
remaining copies and the statements after the loop exactly as in straight-line code. `break`
and `continue` have no loop to leave (CT113). A tuple whose length is not known yet (a Const
at edit time) gives the body once with the target unknown: what does not depend on it is
still checked, and the rest when the kernel is specialized.
"""

from __future__ import annotations

import ast

from ...diagnostics import messages as msg
from ...reader.scan import assigned_names, first_jump
from ..types import SymInt, TileType
from .context import Scope
from .stmts import BindItem
from .values import (
    UNKNOWN,
    FValue,
    Poisoned,
    Reject,
    TupleVal,
    Unknown,
    const_of,
    const_value,
    is_known_int,
)

ITERATORS = ("enumerate", "zip")  # the builtins that may wrap the tuples


def unrolled(scope: Scope, node: ast.For) -> list[ast.stmt]:
    """The statements the loop stands for: per item, its target bound, then the body."""
    jump = first_jump(node.body)
    if jump is not None:
        kind = "break" if isinstance(jump, ast.Break) else "continue"
        scope.record(Reject(msg.UNROLLED_JUMP.at(scope.span(jump), kind=kind)))
        for name in assigned_names(node.body):
            scope.env[name] = UNKNOWN
        return [BindItem(node.target, UNKNOWN)]
    try:
        items: list[FValue] | None = _items(scope, node.iter)
    except Reject as err:
        scope.record(err)
        items = None
    except Poisoned:
        items = None
    if items is None:
        return [BindItem(node.target, UNKNOWN), *node.body]
    return [s for item in items for s in (BindItem(node.target, item), *node.body)]


def _items(scope: Scope, it: ast.expr) -> list[FValue]:
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and
            it.func.id in ITERATORS and it.func.id not in scope.env and
            it.func.id not in scope.ctx.info.functions):
        return _tuple_items(scope, it)
    return _zipped(scope, it) if it.func.id == "zip" else _enumerated(scope, it)


def _enumerated(scope: Scope, it: ast.Call) -> list[FValue]:
    """enumerate(t) or enumerate(t, start) of a tuple: (compile-time int, item) pairs."""
    starts = [*it.args[1:], *(kw.value for kw in it.keywords)]
    if not it.args or len(starts) > 1 or any(kw.arg != "start" for kw in it.keywords):
        scope.b.fail(msg.BAD_OPERAND, scope.span(it), op="enumerate()",
                     what="these arguments (it takes a tuple and an int start)")
    start = 0
    if starts:
        c = const_of(scope.b.known(scope.arg(starts[0])))
        if isinstance(c, SymInt):
            raise Poisoned  # known at specialization
        if not is_known_int(c):
            scope.b.fail(msg.NOT_CONSTANT, scope.span(starts[0]),
                         what="enumerate()'s start (an int)")
        assert isinstance(c, int)
        start = c
    return [TupleVal((const_value(scope.span(it), start + i), item))
            for i, item in enumerate(_items(scope, it.args[0]))]


def _zipped(scope: Scope, it: ast.Call) -> list[FValue]:
    """zip(a, b, ...) of tuples, as Python's (`strict=True`: equal lengths or CT211)."""
    strict = [kw.value for kw in it.keywords if kw.arg == "strict"]
    if not it.args or len(strict) != len(it.keywords):
        scope.b.fail(msg.BAD_OPERAND, scope.span(it), op="zip()",
                     what="these arguments (it takes tuples and strict=)")
    seqs = [_items(scope, a) for a in it.args]  # tuples, or zip/enumerate of them
    if strict and const_of(scope.b.known(scope.arg(strict[0]))) is True and \
            len({len(items) for items in seqs}) > 1:
        scope.b.fail(msg.BAD_OPERAND, scope.span(it), op="zip(strict=True)",
                     what=f"tuples of lengths {', '.join(str(len(i)) for i in seqs)}")
    return [TupleVal(row) for row in zip(*seqs, strict=False)]


def _tuple_items(scope: Scope, node: ast.expr) -> list[FValue]:
    """The items of a tuple value; anything else is CT113 (a tile is told its ways)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
            node.func.attr == "tiles":  # a run-time walk, not a tuple of known length
        scope.b.fail(msg.UNSUPPORTED_LOOP, scope.span(node),
                     what=f"'{scope.ctx.info.code(node)}' inside enumerate() or zip() with "
                          "tuples (zip() takes tiles() walks only together: "
                          "zip(a.tiles(), b.tiles()))")
    v = scope.expr(node)
    if isinstance(v, Unknown):
        raise Poisoned
    if isinstance(v, TupleVal):
        return list(v.items)
    what = f"'{scope.ctx.info.code(node)}'"
    if isinstance(v.type, TileType):
        what += " (a tile: split it with ct.split(t, n, axis), or loop over range(n))"
    scope.b.fail(msg.UNSUPPORTED_LOOP, scope.span(node), what=what)
