"""The evaluator's core: one walk over a host scope that sends each expression and statement
to the module of its topic, and each use of the host API (compiler/hostapi) to its handler.

The core sits above the topic modules and passes itself (an `Evaluator`, which is the `Ctx`)
to them; they call back through `ctx.evaluate`/`ctx.run_block`/`ctx.run_stmt` and import
nothing above them. A host API call is found by its registry entry: `ct.NAME(...)` by the
cutile name it resolves to, `x.NAME(...)` and `x.NAME` by the receiver the value of `x` stands
for (a tensor, a partition, a lazy op or a graph), `t[...]` and `await op` by their dunder
entries. Its handler is the entry's own (views, partitions, lazy ops) or its effect's
(effects.py: reads, writes, inspections; hostapi.py: constructors).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...compiler.hostapi import HostEntry, Kind, lookup
from .calls import autotune_call, call_function, call_method
from .context import Ctx
from .effects import HANDLERS as EFFECTS
from .effects import bound_args
from .expressions import (
    arithmetic,
    attribute,
    constant,
    container,
    dtype_of,
    if_exp,
    load_name,
    load_value,
    named,
    nested,
    other,
    subscript,
    tuple_value,
)
from .facts import ApiSite, call_names
from .flow import definition, for_, if_, match, try_, while_, with_
from .handlers import Handlers, HostCall, receiver_of
from .hostapi import HANDLERS as CONSTRUCTORS
from .hostapi import grouped
from .lazyops import HANDLERS as LAZY_OPS
from .places import key_of, lookup_place, ran_unseen
from .plain import as_plain_call, attribute_of, is_getattr
from .statements import run_small
from .survive import Mark, survive
from .syntax import call_args
from .uses import head_name, read
from .values import UNKNOWN, Moved, Reported, State, Value, owned_in
from .views import HANDLERS as VIEWS

HANDLERS = Handlers()
for _topic in (EFFECTS, CONSTRUCTORS, VIEWS, LAZY_OPS):
    HANDLERS.update(_topic)


@dataclass
class Evaluator(Ctx):
    def evaluate(self, st: State, expr: ast.expr) -> Value:
        rule = _EXPRESSIONS.get(type(expr))
        return rule(self, st, expr) if rule is not None else other(self, st, expr)

    def run_stmt(self, st: State, stmt: ast.stmt) -> State | None:
        rule = _STATEMENTS.get(type(stmt))
        mark = Mark.of(self)
        try:
            return rule(self, st, stmt) if rule is not None else run_small(self, st, stmt)
        except Exception as err:  # a checker bug: lose this statement, not the scope's findings
            return survive(self, st, stmt, err, mark)


def _call(ev: Evaluator, st: State, call: ast.Call) -> Value:
    plain = as_plain_call(ev, st, call)
    if plain is not None:  # `f.__call__(a)`, `getattr(x, "name")(a)`: as `f(a)`, `x.name(a)`
        return ev.evaluate(st, plain)
    if is_getattr(ev, st, call):  # `getattr(x, "name")`: as `x.name`
        return ev.evaluate(st, attribute_of(ev, call))
    value = _calling(ev, st, call)
    if ev.facts is not None:  # what the call left its receiver and arguments in
        ev.facts.record_names(ev.world, st, call_names(call), ev.span)
    return value


def _calling(ev: Evaluator, st: State, call: ast.Call) -> Value:
    func = call.func
    if head_name(func) not in st.env:
        if ev.info.resolve(func) == "autotune":
            return autotune_call(ev, st, call)
        if ev.info.resolve(func) == "grouped":
            return grouped(ev, st, call)
        entry = lookup("ct", ev.info.resolve(func) or "")
        if entry is not None:
            return _host(ev, st, HostCall(entry, call), func)
    if isinstance(func, ast.Attribute):
        return _use(ev, st, call, func.value, func.attr, "method", func,
                    lambda receiver: call_method(ev, st, call, func, receiver))
    return call_function(ev, st, call)


def _attribute(ev: Evaluator, st: State, expr: ast.Attribute) -> Value:
    dtype = dtype_of(ev, st, expr)
    if dtype is not None:
        return dtype
    place = lookup_place(ev, st, expr)
    if place is not None:  # `self.cache`: followed as a name is
        return load_value(ev, st, expr, *place)
    return _use(ev, st, expr, expr.value, expr.attr, "property", expr,
                lambda base: attribute(ev, st, expr, base))


def _subscript(ev: Evaluator, st: State, expr: ast.Subscript) -> Value:
    return _use(ev, st, expr, expr.value, "__getitem__", "method", None,
                lambda base: subscript(ev, st, expr, base))


def _await(ev: Evaluator, st: State, expr: ast.Await) -> Value:
    return _use(ev, st, expr, expr.value, "__await__", "method", None,
                lambda value: _read(ev, st, value))


def _read(ev: Evaluator, st: State, value: Value) -> Value:
    """`await x` of anything but a lazy op: other code runs meanwhile."""
    read(ev, value)
    ran_unseen(ev, st)
    return UNKNOWN


def _use(ev: Evaluator, st: State, node: ast.expr, operand: ast.expr, name: str, kind: Kind,
         named: ast.expr | None, otherwise: Callable[[Value], Value]) -> Value:
    """`node` uses `name` of the value of `operand`: the host API entry of that name for
    what the value stands for, if it has one of this kind; else `otherwise(value)`."""
    if isinstance(node, ast.Call) and _moved(st, operand):
        return _call_on_moved(ev, st, node, operand)
    mark = ev.raised
    value = ev.evaluate(st, operand)
    if ev.raised != mark:  # it raised: Python evaluates nothing after it
        return UNKNOWN
    entry = _entry(ev, value, name, kind)
    if entry is None:
        return otherwise(value)
    return _host(ev, st, HostCall(entry, node, operand, value), named)


def _moved(st: State, operand: ast.expr) -> bool:
    """`operand` is a name or place bound to a moved value."""
    key = key_of(st, operand)
    value = st.env.get(key) if key is not None else None
    return value is not None and any(isinstance(st.obj(o.obj), (Moved, Reported))
                                     for o in owned_in(value))


def _call_on_moved(ev: Evaluator, st: State, call: ast.Call, operand: ast.expr) -> Value:
    """`z.method(args)` of a moved `z`: the method raises when it runs, after Python evaluated
    the arguments; an argument that raises first is the error (`z.partition(s,
    order=ct.grouped(0))`)."""
    mark = ev.raised
    if not bound_args(st, call):  # a name's value is only looked at by the method
        for arg in call_args(call):
            read(ev, ev.evaluate(st, arg.value))
    if ev.raised == mark:
        ev.evaluate(st, operand)  # CT301 (or silent, when said before)
    return UNKNOWN


def _entry(ev: Evaluator, value: Value, name: str, kind: Kind) -> HostEntry | None:
    receiver = receiver_of(ev, value)
    entry = lookup(receiver, name) if receiver is not None else None
    return entry if entry is not None and entry.kind == kind else None


def _host(ev: Evaluator, st: State, use: HostCall, named: ast.expr | None) -> Value:
    """Evaluates a use of the host API by its handler; `named`, the expression whose last
    name is the entry's (an editor's hover shows the entry there)."""
    if ev.facts is not None and named is not None:
        span = ev.info.attr_span(named) if isinstance(named, ast.Attribute) else ev.span(named)
        ev.facts.api.setdefault(span, ApiSite(span, use.entry.receiver, use.entry.name))
    handler = HANDLERS.find(use.entry)
    assert handler is not None, f"no checker handler for {use.entry.usage}"
    return handler(ev, st, use)


_Rule = Callable[[Evaluator, State, Any], Value]
_EXPRESSIONS: dict[type[ast.AST], _Rule] = {
    ast.Name: load_name, ast.Constant: constant, ast.Tuple: tuple_value,
    ast.Attribute: _attribute, ast.Call: _call, ast.Await: _await, ast.NamedExpr: named,
    ast.Subscript: _subscript, ast.IfExp: if_exp, ast.BinOp: arithmetic,
    ast.UnaryOp: arithmetic, ast.Lambda: nested, ast.ListComp: nested, ast.SetComp: nested,
    ast.DictComp: nested, ast.GeneratorExp: nested, ast.List: container, ast.Dict: container}
_Step = Callable[[Evaluator, State, Any], State | None]
_STATEMENTS: dict[type[ast.AST], _Step] = {
    ast.If: if_, ast.For: for_, ast.AsyncFor: for_, ast.While: while_, ast.Try: try_,
    ast.TryStar: try_, ast.With: with_, ast.AsyncWith: with_, ast.FunctionDef: definition,
    ast.AsyncFunctionDef: definition, ast.ClassDef: definition, ast.Match: match}
