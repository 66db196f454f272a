"""Ownership facts for editors: the state of a tensor, partition or lazy op at each name.

The walker records a fact only when asked (`Ctx.facts` is a `FactLog`): at every use of a name
whose value it follows (the state just before the use), after every call that a name is passed
to or called on (the state the call leaves it in: moved, leased, run), and at every binding.
Unknown values produce no fact. Loops keep the facts of their last pass only, which starts from
the loop's stable head state.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field

from ...compiler.hostapi import Receiver
from ...diagnostics.diagnostic import Span
from ...reader.source import ModuleInfo
from .launches import fmt_shape, slab_grid
from .names import Scope
from .syntax import call_args
from .values import (
    Escaped,
    Moved,
    OpVal,
    PartitionVal,
    Reported,
    State,
    TensorVal,
    Value,
)
from .world import World

SpanOf = Callable[[ast.AST], Span]
_LOOKBACK = 16  # facts a call's arguments look back over for their own use


@dataclass(frozen=True)
class OwnershipFact:
    """`name` at `span` (a use or a binding) in the host scope `scope` is in state `summary`."""

    name: str
    span: Span
    summary: str
    scope: Span  # the function or class whose body holds the name; the module for top level


@dataclass(frozen=True)
class NameSite:
    """A name written in host code, and whether it binds (or deletes) the name there."""

    name: str
    span: Span
    binds: bool
    scope: Span


@dataclass(frozen=True)
class ApiSite:
    """A name in host code that calls or reads the host API entry `receiver`.`name`
    (compiler/hostapi): `narrow` in `t.narrow(0, 0, 4)`, `zeros` in `ct.zeros(...)`."""

    span: Span
    receiver: Receiver
    name: str


@dataclass
class FactLog:
    scope: Span
    facts: list[OwnershipFact] = field(default_factory=list)
    api: dict[Span, ApiSite] = field(default_factory=dict)  # the host API uses met
    origins: dict[int, str] = field(default_factory=dict)  # storage -> the name partitioned

    def record(self, world: World, st: State, name: str, span: Span, value: Value) -> None:
        summary = self.describe(world, st, value)
        if summary is None:
            return
        fact = OwnershipFact(name, span, summary, self.scope)
        if self._latest_at(span) != fact:  # a call that left the name as its use found it
            self.facts.append(fact)

    def _latest_at(self, span: Span) -> OwnershipFact | None:
        for fact in self.facts[-1:-_LOOKBACK:-1]:
            if fact.span == span:
                return fact
        return None

    def record_names(self, world: World, st: State, nodes: list[ast.expr],
                     span_of: SpanOf) -> None:
        """The state each plain name among `nodes` is left in (after a call)."""
        for node in nodes:
            if isinstance(node, ast.Name) and node.id in st.env:
                self.record(world, st, node.id, span_of(node), st.env[node.id])

    def rewind(self, mark: int) -> None:
        del self.facts[mark:]

    def describe(self, world: World, st: State, value: Value) -> str | None:
        if isinstance(value, TensorVal):
            return self._owned(world, st, value, f"live tensor ({_meta(value)})")
        if isinstance(value, PartitionVal):
            origin = self.origins.get(value.storage)
            what = f"partition of {origin}" if origin else "partition"
            tile = "tile ?" if value.tile is None else f"tile {fmt_shape(value.tile)}"
            return self._owned(world, st, value, f"{what}, {tile} ({_meta(value)}{_grid(value)})")
        if isinstance(value, OpVal):
            return _op(world, st, value.op)
        return None

    def _owned(self, world: World, st: State, value: TensorVal | PartitionVal,
               live: str) -> str | None:
        state = st.obj(value.obj)
        if isinstance(state, (Moved, Reported)):
            return _moved(world, st, state if isinstance(state, Moved) else state.moved)
        if isinstance(state, Escaped):
            return "handed to code the checker does not follow: not checked from here on"
        readers = _readers(world, st, value.storage)
        return live if not readers else f"{live}, {readers}"


def _meta(value: TensorVal | PartitionVal) -> str:
    dtype = "dtype ?" if value.dtype is None else str(value.dtype)
    shape = "shape ?" if value.shape is None else f"shape {fmt_shape(value.shape)}"
    return f"{dtype}, {shape}"


def _grid(value: PartitionVal) -> str:
    slab = None if value.persistent else slab_grid(value.shape, value.tile)
    return "" if slab is None else f", grid {fmt_shape(slab)}"


def _moved(world: World, st: State, moved: Moved) -> str:
    line = moved.site.line
    if moved.how == "by .partition()":
        return f"moved into the partition at line {line}"
    if moved.how == "by .unpartition()":
        return f"moved back into a tensor by .unpartition() at line {line}"
    if moved.op is not None:
        if world.is_pending(st.pending, moved.op, taken=True):
            return f"moved {moved.how} at line {line} (not yet synced)"
        return f"moved {moved.how} at line {line} (it has run: rebind from its result)"
    return f"moved {moved.how} at line {line}"


def _readers(world: World, st: State, storage: int) -> str:
    """`read by a pending launch of 'add' (line 14)`, or '' when no pending launch reads it."""
    ops = sorted(op for op in st.leases.get(storage, frozenset())
                 if op in st.pending and op not in world.escaped_ops)
    if not ops:
        return ""
    sites = [f"{world.ops[op].kernel} (line {world.ops[op].span.line})" for op in ops]
    if len(sites) == 1:
        return f"read by a pending launch of {sites[0]}"
    return f"read by {len(sites)} pending launches: {', '.join(sites)}"


_KIND = {"launch": "launch", "chain": "chain (.then)", "graph": "graph", "phi": "launch"}


def _op(world: World, st: State, op: int) -> str | None:
    info = world.ops.get(op)
    if info is None:
        return None
    members = world.members(op)
    if members & world.escaped_ops:
        return None  # handed to code we do not follow: whether it ran is unknown
    head = f"{_KIND[info.kind]} of {info.kernel} (line {info.span.line})"
    if info.kind == "graph":
        return f"{head}, captured"
    if world.is_pending(st.pending, op):
        return f"{head}, not yet run"
    return f"{head}, no longer pending (synced, chained or captured)"


def call_names(call: ast.Call) -> list[ast.expr]:
    """The names a call may change: its receiver (`z` in `z.partition(...)`) and arguments."""
    nodes = [a.value for a in call_args(call)]
    if isinstance(call.func, ast.Attribute):
        nodes.append(call.func.value)
    return nodes


def scope_span(info: ModuleInfo, node: ast.AST) -> Span:
    """The whole function or class; the whole file for the module's top level."""
    if isinstance(node, ast.Module):
        last = len(info.lines)
        return Span(info.path, 1, 0, max(last, 1), len(info.lines[-1]) if info.lines else 0)
    return info.span(node)


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def name_sites(info: ModuleInfo, scope: Scope, where: Span) -> list[NameSite]:
    """Every name written in the scope's own code (nested functions and classes are theirs)."""
    out: list[NameSite] = []
    stack: list[ast.AST] = list(reversed(scope.body))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name):
            out.append(NameSite(node.id, info.span(node), not isinstance(node.ctx, ast.Load),
                                where))
            continue
        if isinstance(node, _DEFS):
            out.append(NameSite(node.name, info.name_span(node), True, where))
            outer: list[ast.AST] = list(node.decorator_list)
            if not isinstance(node, ast.ClassDef):
                outer += [*node.args.defaults, *(d for d in node.args.kw_defaults if d)]
            else:
                outer += [*node.bases, *(k.value for k in node.keywords)]
            stack += reversed(outer)
            continue
        stack += reversed(list(ast.iter_child_nodes(node)))
    return out
