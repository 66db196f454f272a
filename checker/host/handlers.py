"""How the checker evaluates the host API (compiler/hostapi): a handler per entry where the
entry's effect does not say enough, else one per effect. Topic modules (hostapi, views, lazy
ops, effects) fill their own `Handlers`; the core (core.py) merges them, looks each call up and
passes itself (the `Ctx`) to the handler with the `HostCall`.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

from ...compiler.hostapi import Effect, HostEntry, Receiver, lookup
from .context import Ctx
from .syntax import call_args
from .uses import escape, read
from .values import OpVal, PartitionVal, State, TensorVal, Value


@dataclass(frozen=True)
class HostCall:
    """One use of a host API entry: the call, attribute, subscript or await expression, the
    receiver's expression and value (None and None for a function of `ct`)."""

    entry: HostEntry
    node: ast.expr
    receiver: ast.expr | None = None
    value: Value | None = None

    @property
    def call(self) -> ast.Call:
        assert isinstance(self.node, ast.Call)
        return self.node

    @property
    def on(self) -> ast.expr:
        assert self.receiver is not None
        return self.receiver


Handler = Callable[[Ctx, State, HostCall], Value]


class Handlers:
    def __init__(self) -> None:
        self.by_entry: dict[tuple[Receiver, str], Handler] = {}
        self.by_effect: dict[Effect, Handler] = {}

    def entry(self, receiver: Receiver, *names: str) -> Callable[[Handler], Handler]:
        """The handler of these entries (each must be declared in the registry)."""
        for name in names:
            if lookup(receiver, name) is None:
                raise ValueError(f"no host API entry {receiver}.{name} to handle")

        def deco(fn: Handler) -> Handler:
            for name in names:
                self.by_entry[(receiver, name)] = fn
            return fn
        return deco

    def effect(self, effect: Effect) -> Callable[[Handler], Handler]:
        """The handler of every entry of this effect that has none of its own."""
        def deco(fn: Handler) -> Handler:
            self.by_effect[effect] = fn
            return fn
        return deco

    def update(self, other: Handlers) -> None:
        for key in other.by_entry.keys() & self.by_entry.keys():
            raise ValueError(f"two handlers for {key}")
        for effect in other.by_effect.keys() & self.by_effect.keys():
            raise ValueError(f"two handlers for {effect}")
        self.by_entry.update(other.by_entry)
        self.by_effect.update(other.by_effect)

    def find(self, entry: HostEntry) -> Handler | None:
        return self.by_entry.get((entry.receiver, entry.name)) or self.by_effect.get(
            entry.effect)


def receiver_of(ctx: Ctx, value: Value) -> Receiver | None:
    """The registry's receiver an abstract value stands for (None: not a host handle)."""
    if isinstance(value, TensorVal):
        return "tensor"
    if isinstance(value, PartitionVal):
        return "partition"
    if isinstance(value, OpVal):
        info = ctx.world.ops.get(value.op)
        return "graph" if info is not None and info.kind == "graph" else "op"
    return None


def read_args(ctx: Ctx, st: State, call: ast.Call) -> None:
    for arg in call_args(call):
        read(ctx, ctx.evaluate(st, arg.value))


def escape_args(ctx: Ctx, st: State, call: ast.Call) -> None:
    for arg in call_args(call):
        escape(ctx, st, ctx.evaluate(st, arg.value))


Bound = dict[str, tuple[Value, ast.expr]]


def bind(ctx: Ctx, st: State, call: ast.Call, entry: HostEntry) -> Bound | None:
    """Arguments by the entry's parameter names, each evaluated once (and read); None when
    `*args` hides them, or when one raises at run time (then the call never runs)."""
    names = entry.positional
    out: Bound = {}
    hidden = False
    mark = ctx.raised
    for i, arg in enumerate(call_args(call)):
        value = ctx.evaluate(st, arg.value)
        read(ctx, value)
        if arg.star:
            hidden = True
        elif arg.name is not None:
            out[arg.name] = (value, arg.value)
        elif i < len(names):
            out[names[i]] = (value, arg.value)
    return None if hidden or ctx.raised != mark else out
