"""Programmatic dependent launch (PDL), checked: the rules both the checker and the runtime use.

A `@ct.kernel(pdl=True)` kernel, launched as a link of a `.then` chain (or of the graph captured
from one), may start while the launch before it still runs: CUDA's programmatic stream
serialization. Its `ct.wait_for_predecessor()` (Tile IR `gdc_wait`) waits for that launch to
finish and its writes to be visible. Right after the wait the kernel lets the next launch start
(`gdc_launch_dependents`, lower/emit.py). So when a launch starts, every block of the launch
before it has passed its own wait (or that launch was not started early at all), and the launch
before *that* one has finished: only the immediate predecessor can still run. That is why the
rule needs only that one launch's arguments:

- placement (CT116, `placement`): the wait is a statement of the kernel's own body, exactly
  once, with no `return` before it (a block must not end without waiting: its end would let the
  next launch start while the predecessor may still run); a wait needs `pdl=True` and
  `pdl=True` needs a wait;
- accesses before the wait (CT308, `early_accesses` here, compared with the predecessor's
  arguments by the runtime, runtime/pdl.py, and by the checker, checker/host/pdl.py): a read of
  what the predecessor writes, or a write of what it reads or writes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from ..diagnostics import messages as msg
from ..diagnostics.diagnostic import Diagnostic, Note, Span
from .ir import Block, KernelIR, Op, Value, walk
from .types import SlabType

M = TypeVar("M")  # how a side sees memory: a tensor handle, an abstract value
WAIT = "pdl_wait"  # the IR op of ct.wait_for_predecessor() (ops/pdl.py)

READS = frozenset({"load", "slab_load", "load_at", "gather"})
WRITES = frozenset({"store", "slab_store", "scatter", "acc_tile", "acc_scatter"})
_WHERE = {"if": "an if", "for": "a loop", "loop": "a loop"}


@dataclass(frozen=True)
class Access:
    """The first access of one kind to one parameter before the wait."""

    param: int  # index in the kernel's parameters (= the launch's argument index)
    name: str
    writes: bool
    span: Span


@dataclass(frozen=True)
class PdlFacts:
    """What a pdl=True kernel touches before its wait, in program order."""

    kernel: str
    early: tuple[Access, ...]


def is_pdl(options: Mapping[str, object]) -> bool:
    return options.get("pdl") is True


def placement(body: Block, pdl: bool, name: str, name_span: Span) -> list[Diagnostic]:
    """CT116: where the waits of a kernel's (analyzed) body stand."""
    nested = list(_nested_waits(body))
    top = [op for op in body.ops if op.name == WAIT]
    if not pdl:
        first = min((op for op in [*top, *(o for o, _ in nested)]),
                    key=lambda o: (o.span.line, o.span.col), default=None)
        return [] if first is None else [msg.PDL_WAIT_NO_OPT_IN.at(first.span, name=name)]
    out = [msg.PDL_WAIT_NESTED.at(op.span, where=where) for op, where in nested]
    if not top and not nested:
        return [msg.PDL_WAIT_MISSING.at(name_span, name=name)]
    out += [msg.PDL_WAIT_TWICE.at(op.span, name=name) for op in top[1:]]
    if top:
        before = body.ops[:body.ops.index(top[0])]
        if any(o.name == "return" for op in before for o in _walk_regions(op)):
            out.append(msg.PDL_WAIT_SKIPPED.at(top[0].span))
    return out


def _nested_waits(body: Block) -> Iterator[tuple[Op, str]]:
    for op in body.ops:
        for region in op.regions:
            for inner in walk(region):
                if inner.name == WAIT:
                    yield inner, _WHERE.get(op.name, "a block")


def _walk_regions(op: Op) -> Iterator[Op]:
    for region in op.regions:
        yield from walk(region)


def early_accesses(ir: KernelIR) -> PdlFacts | None:
    """For a pdl=True kernel, the first read and the first write of each parameter before its
    wait (None for other kernels). Making views, reading extents and tile indices touch no
    memory another launch writes, so they may come first."""
    if not is_pdl(ir.options):
        return None
    owner = {p.value: i for i, p in enumerate(ir.params)}
    names = {p.name: i for i, p in enumerate(ir.params)}
    seen: dict[tuple[int, bool], Access] = {}
    for top in ir.body.ops:
        if top.name == WAIT:
            break
        for op in [top, *_walk_regions(top)]:
            _note_partitions(op, owner)
            if op.name not in READS and op.name not in WRITES:
                continue
            writes = op.name in WRITES
            for i in _params_of(op, owner, names):  # at most one
                key = (i, writes)
                if key not in seen:
                    seen[key] = Access(i, ir.params[i].name, writes, op.span)
    early = sorted(seen.values(), key=lambda a: (a.span.line, a.span.col, a.param))
    return PdlFacts(ir.name, tuple(early))


def _note_partitions(op: Op, owner: dict[Value, int]) -> None:
    """A kernel-side `x.partition(...)` reads through to `x`."""
    if op.name == "partition" and op.operands and op.operands[0] in owner:
        owner[op.result] = owner[op.operands[0]]


def _params_of(op: Op, owner: dict[Value, int], names: dict[str, int]) -> list[int]:
    """The parameter whose memory the op touches: its first operand (the others of `slab_load`
    only place the tile: `ct.load_tile_like(x, z)` reads `x`, not `z`)."""
    v = op.operands[0]
    i = owner.get(v)
    if i is None and isinstance(v.type, SlabType):
        i = names.get(v.type.owner)
    return [] if i is None else [i]


def first_conflict(facts: PdlFacts, mine: Callable[[int], M | None],
                   theirs: Sequence[tuple[M, bool]], meet: Callable[[M, M], bool]
                   ) -> tuple[Access, bool] | None:
    """The first access before the wait that meets the predecessor's, with whether the
    predecessor writes there. `mine(i)`: the memory of argument i (None: none); `theirs`: the
    predecessor's memory, each with whether it writes it; `meet`: whether two share elements
    (the runtime's handles or the checker's abstract values)."""
    for access in facts.early:
        memory = mine(access.param)
        if memory is None:
            continue
        hits = [writes for other, writes in theirs if meet(memory, other)]
        if hits and (access.writes or any(hits)):
            return access, any(hits)
    return None


def access_diagnostic(access: Access, they_write: bool, kernel: str, before: str,
                      launch: Span | None, previous: Span | None) -> Diagnostic:
    """CT308 at the access in the kernel, with notes at the two launches."""
    notes = []
    if previous is not None:
        notes.append(Note(msg.PDL_PREDECESSOR.format(kernel=before), previous))
    if launch is not None:
        notes.append(Note(msg.PDL_LAUNCH.format(kernel=kernel), launch))
    return msg.ACCESS_BEFORE_WAIT.at(access.span, tuple(notes), param=access.name,
                                     verb="written" if access.writes else "read",
                                     kernel=before, their="write" if they_write else "read")


__all__ = ["READS", "WAIT", "WRITES", "Access", "PdlFacts", "access_diagnostic", "early_accesses",
           "first_conflict", "is_pdl", "placement"]
