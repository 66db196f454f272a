"""A step as data: `Link`s (one kernel launch each) over named device buffers, and the two ways
the engine runs a list of them (the decode step in model.py, the batched prefill in prefill.py).

A link takes its `Mut` buffers out of `buf` as partitions while it runs and puts them back,
written, when its results are back: so a buffer is always either in `buf` or owned by exactly
one launch.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any

import cutile as ct

Buffers = dict[str, ct.HostTensor]


def pow2(n: int) -> int:
    return 1 << (n - 1).bit_length()


@dataclass(frozen=True)
class Link:
    """One launch of a step: `kernel` with the buffers `outs` split into `tiles` slabs (its
    `Mut` arguments, first), then `args` (a str names a buffer, anything else is passed as is)
    and the Consts."""
    kernel: Any
    outs: tuple[str, ...]
    tiles: tuple[tuple[int, ...], ...]
    args: tuple[Any, ...]
    consts: dict[str, Any] = field(default_factory=dict)


def launch(buf: Buffers, ln: Link) -> Any:
    args = (buf[a] if isinstance(a, str) else a for a in ln.args)
    outs = (buf.pop(o).partition(t) for o, t in zip(ln.outs, ln.tiles, strict=True))
    return ln.kernel(*outs, *args, **ln.consts)


def written(buf: Buffers, ln: Link, results: tuple[Any, ...]) -> None:
    """`ln`'s results are back: the buffers its slabs were split from, written."""
    for o, p in zip(ln.outs, results, strict=False):
        buf[o] = p.unpartition()


def run_each(buf: Buffers, links: list[Link]) -> None:
    """Each launch synced before the next: the debugging path."""
    for ln in links:
        written(buf, ln, launch(buf, ln).sync())


def chain(buf: Buffers, links: list[Link]) -> Any:
    """`links` as one `.then` chain: when a link is done its buffers go back and the next one
    launches; after the last, the chain ends (its value is ()), every buffer back in `buf`."""
    op = launch(buf, links[0])
    following: list[Link | None] = [*links[1:], None]
    for done, nxt in zip(links, following, strict=True):
        op = op.then(partial(_next, buf, done, nxt))
    return op


def _next(buf: Buffers, done: Link, ln: Link | None, *results: Any) -> Any:
    written(buf, done, results)
    return launch(buf, ln) if ln is not None else ()
