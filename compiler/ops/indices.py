"""How an op reads a tile index operand (`z.store(t, index)`, `acc.add(t, index)`, the
offsets of `x.load_at`): an int, or a tuple of one int per axis, each an integer scalar."""

from __future__ import annotations

from ...diagnostics import messages as msg
from ..frontend.builder import Arg, Builder
from ..frontend.values import TupleVal
from ..ir import Value


def index_values(b: Builder, arg: Arg, rank: int, what: str) -> list[Value]:
    """The index's items as integer scalars (CT203 unless there are `rank` of them)."""
    v = b.known(arg)
    items = list(v.items) if isinstance(v, TupleVal) else [v]
    if len(items) != rank:
        want = "an index" if rank == 1 else f"a tuple of {rank} indices"
        b.fail(msg.INDEX_RANK, arg.span, what=what, want=want, rank=rank,
               given=f"{len(items)} ind{'ex' if len(items) == 1 else 'ices'}")
    return [b.scalar_int(Arg(i, arg.span), f"an index of {what}") for i in items]
