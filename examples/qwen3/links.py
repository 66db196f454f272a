"""A step as data: `Link`s (one kernel launch each) over named device buffers, and the two ways
the engine runs a list of them (the decode step in model.py, the batched prefill in prefill.py).

A link takes its `Mut` buffers out of `buf` as partitions while it runs and puts them back,
written, when its results are back: so a buffer is always either in `buf` or owned by exactly
one launch.

A `HostLink` is a host callable between launches (a collective of the tensor-parallel engine,
tp.py): it runs when the launch before it has handed its buffers back (`.then` hands them back
as soon as that launch is enqueued, so on the GPU the callable only enqueues more work on the
same stream), and the next launch starts after it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import cutile as ct

Buffers = dict[str, ct.HostTensor]


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
    # per out (or none): the shape its buffer is viewed as while the launch holds it, and the
    # shape it is kept as (a leading unit axis puts a slab's grid on the axis another out's is)
    views: tuple[tuple[tuple[int, ...], tuple[int, ...]] | None, ...] = ()


@dataclass(frozen=True)
class HostLink:
    """A host callable over the buffers, between two launches (`what` names it)."""
    run: Callable[[Buffers], None]
    what: str


Links = list[Link | HostLink]


def _view(ln: Link, i: int, as_launched: bool) -> tuple[int, ...] | None:
    v = ln.views[i] if i < len(ln.views) else None
    return None if v is None else v[0 if as_launched else 1]


def launch(buf: Buffers, ln: Link) -> Any:
    args = (buf[a] if isinstance(a, str) else a for a in ln.args)
    outs = []
    for i, (o, t) in enumerate(zip(ln.outs, ln.tiles, strict=True)):
        view = _view(ln, i, True)
        outs.append((buf.pop(o) if view is None else buf.pop(o).reshape(view)).partition(t))
    return ln.kernel(*outs, *args, **ln.consts)


def written(buf: Buffers, ln: Link, results: tuple[Any, ...]) -> None:
    """`ln`'s results are back: the buffers its slabs were split from, written."""
    for i, (o, p) in enumerate(zip(ln.outs, results, strict=False)):
        kept = _view(ln, i, False)
        buf[o] = p.unpartition() if kept is None else p.unpartition().reshape(kept)


def run_each(buf: Buffers, links: Links) -> None:
    """Each launch synced before the next: the debugging path."""
    for ln in links:
        if isinstance(ln, HostLink):
            ln.run(buf)
        else:
            written(buf, ln, launch(buf, ln).sync())


def has_host_links(links: Links) -> bool:
    return any(isinstance(ln, HostLink) for ln in links)


def chain(buf: Buffers, links: Links) -> Any:
    """`links` as one `.then` chain: when a link is done its buffers go back, the host links
    after it run and the next launch starts; after the last, the chain ends (its value is ()),
    every buffer back in `buf`. Host links before the first launch run at once."""
    first = next((i for i, ln in enumerate(links) if isinstance(ln, Link)), len(links))
    for h in links[:first]:
        assert isinstance(h, HostLink)
        h.run(buf)
    if first == len(links):
        return _Done()
    starts = [i for i, ln in enumerate(links) if isinstance(ln, Link)]
    op = launch(buf, _kernel(links[first]))
    for a, b in zip(starts, [*starts[1:], len(links)], strict=True):
        hosts = [h for h in links[a + 1:b] if isinstance(h, HostLink)]
        nxt = _kernel(links[b]) if b < len(links) else None
        op = op.then(partial(_next, buf, _kernel(links[a]), hosts, nxt))
    return op


class _Done:
    """A chain of host links only: they have run."""

    def sync(self) -> tuple[()]:
        return ()


def _kernel(ln: Link | HostLink) -> Link:
    assert isinstance(ln, Link)
    return ln


def _next(buf: Buffers, done: Link, hosts: list[HostLink], ln: Link | None,
          *results: Any) -> Any:
    written(buf, done, results)
    for h in hosts:
        h.run(buf)
    return launch(buf, ln) if ln is not None else ()
