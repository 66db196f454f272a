"""Facts that hold for a whole scope rather than one program point: ids, lazy ops, findings."""

from __future__ import annotations

import ast
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Literal

from ...compiler.frontend.params import KernelSignature
from ...diagnostics.diagnostic import Diagnostic, Span
from .values import Region, Value

OpKind = Literal["launch", "chain", "graph", "phi"]


@dataclass
class OpInfo:
    kind: OpKind
    kernel: str  # the kernel label used in messages, e.g. "'add'"
    span: Span  # the call that created it
    results: tuple[Value, ...] | None  # what .sync() returns; None when unknown
    members: frozenset[int]  # for a phi: the ops it may be
    sig: KernelSignature | None = None  # a launch's kernel, when known (pdl.py)


@dataclass
class World:
    next_id: int = 1
    phis: dict[Hashable, int] = field(default_factory=dict)
    ops: dict[int, OpInfo] = field(default_factory=dict)
    consumed: set[int] = field(default_factory=set)  # run, chained, captured or handed on
    escaped_ops: set[int] = field(default_factory=set)  # out of sight: their leases are unknown
    lease_sites: dict[tuple[int, int], Span] = field(default_factory=dict)  # (op, storage)
    findings: dict[Span, Diagnostic] = field(default_factory=dict)
    # per launch: the regions it leases by view (views.py, leases.py): (storage, region,
    # whether it writes it, the leased handle's obj)
    regions: dict[int, list[tuple[int, Region, bool, int]]] = field(default_factory=dict)
    # storages some view was made of: at run time their handles carry a view family, so a
    # reshape keeps it (a bounding box) instead of starting a new one
    viewed: set[int] = field(default_factory=set)
    successors: dict[int, int] = field(default_factory=dict)  # op -> the chain/graph taking it
    taken: dict[int, int] = field(default_factory=dict)  # op not yet run -> the chain taking it
    kept: set[int] = field(default_factory=set)  # ops stored in an object: code may run them later
    # per chain, its `.then` lambdas not yet run, in order (lazyops.py)
    callbacks: dict[int, tuple[ast.Lambda, ...]] = field(default_factory=dict)
    # per op, what its first `.sync()` or `await` handed back: a later one hands back the same
    # handles (a launch keeps its results), moved meanwhile or not
    handed_back: dict[int, tuple[Value, ...]] = field(default_factory=dict)

    def fresh(self) -> int:
        self.next_id += 1
        return self.next_id

    def phi(self, key: Hashable) -> int:
        """A stable id for the merge of two values at one join point (loops reach a fixpoint)."""
        if key not in self.phis:
            self.phis[key] = self.fresh()
        return self.phis[key]

    def new_op(self, info: OpInfo) -> int:
        op = self.fresh()
        self.ops[op] = info
        return op

    def members(self, op: int) -> frozenset[int]:
        info = self.ops.get(op)
        if info is None or info.kind != "phi":
            return frozenset({op})
        return frozenset(m for member in info.members for m in self.members(member))

    def consume(self, op: int) -> None:
        """Run, chained, captured or handed on (a chained op run itself is no longer the
        chain's to run)."""
        for member in (*self.members(op), op):
            self.consumed.add(member)
            self.taken.pop(member, None)

    def escape_op(self, op: int) -> None:
        self.consume(op)
        self.escaped_ops.update(self.members(op))

    def never_run(self, op: int) -> bool:
        """Never run: not consumed nor kept in an object, or taken over by a chain that is
        never run."""
        while op not in self.kept:
            if op not in self.consumed:
                return True
            if op not in self.taken:
                return False  # run, captured or handed on
            op = self.taken[op]
        return False

    def is_pending(self, pending: frozenset[int], op: int, taken: bool = False) -> bool:
        """Whether `op` is pending; `taken`: or the chain or graph that took it over is (what
        it was given is held until that one is synced)."""
        seen: set[int] = set()
        while op not in seen:
            if any(m in pending for m in self.members(op)):
                return True
            if not taken:
                return False
            seen.add(op)
            op = self.successors.get(op, op)
        return False

    def lease_site(self, op: int, storage: int) -> Span:
        """Where `op` leased `storage` (a merged storage falls back to any lease of the op)."""
        exact = self.lease_sites.get((op, storage))
        if exact is not None:
            return exact
        return next((s for (o, _), s in self.lease_sites.items() if o == op), self.ops[op].span)

    def report(self, diag: Diagnostic) -> None:
        """One finding per primary span: later passes over a loop body repeat earlier ones."""
        self.findings.setdefault(diag.span, diag)
