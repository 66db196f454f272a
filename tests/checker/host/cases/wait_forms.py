"""Every way of waiting for an op hands back its arguments: `.sync()` and `await` of a launch,
of a started launch and of a graph. A pending op (launch, chain, graph) used as its results,
and the results unpacked into another number of names, are CT406 in both the checker and the
runtime."""

import asyncio

import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def double(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    z.store(ct.load_tile_like(x, z) * 2.0)


x = ct.ones((512,), f32)

p = ct.zeros((512,), f32).partition((64,))
p, x = double(p, x).sync()
p, = double(p, x).sync()  # E: CT406

p = ct.zeros((512,), f32).partition((64,))
g = double(p, x).graph()
g.replay()
p, x = g.sync()

p = ct.zeros((512,), f32).partition((64,))
g = double(p, x).graph()
p, = g.sync()  # E: CT406

p = ct.zeros((512,), f32).partition((64,))
g = double(p, x).graph()
n = g.shape  # E: CT406

p = ct.zeros((512,), f32).partition((64,))
g = double(p, x).graph()
p, x = g  # E: CT406

p = ct.zeros((512,), f32).partition((64,))
op = double(p, x).start()
p, x = op.sync()

p = ct.zeros((512,), f32).partition((64,))
g = double(p, x).graph()
t = p.unpartition()  # E: CT301
p, x = g.sync()
g.replay()  # E: CT301
g = double(p, x).graph()
p, x = g.sync()
p, x = g.sync()  # E: CT301

p = ct.zeros((512,), f32).partition((64,))
op = double(p, x).start()
t = op.unpartition()  # E: CT406

p = ct.zeros((512,), f32).partition((64,))
chain = double(p, x).then(lambda z, x: double(z, x))
t = chain.unpartition()  # E: CT406

p = ct.zeros((512,), f32).partition((64,))
p, x = double(p, x).then(lambda z, *rest: double(z, *rest)).sync()
p, x = double(p, x).then(lambda z, x, extra=1: double(z, x)).sync()
p, x = double(p, x).then(lambda z: double(z, x)).sync()  # E: CT406
p = ct.zeros((512,), f32).partition((64,))
p, x = double(p, x).then(lambda z, x, y: double(z, x)).sync()  # E: CT406
p = ct.zeros((512,), f32).partition((64,))
# a launch a chain took over, then synced itself with the wrong number of names: it was asked
# to run (the unpacking fails first), so neither it nor the chain is a launch never run
first = double(p, x)
later = first.then(lambda *a: None)
p, = first.sync()  # E: CT406
p = ct.zeros((512,), f32).partition((64,))


async def awaited(x: ct.Tensor) -> ct.Tensor:
    p = ct.zeros((512,), f32).partition((64,))
    p, x = await double(p, x)
    g = double(p, x).graph()
    p, x = await g
    return x


async def await_one_name(x: ct.Tensor) -> None:
    p = ct.zeros((512,), f32).partition((64,))
    p, = await double(p, x)  # E: CT406


async def await_graph_one_name(x: ct.Tensor) -> None:
    p = ct.zeros((512,), f32).partition((64,))
    g = double(p, x).graph()
    p, = await g  # E: CT406


x = asyncio.run(awaited(x))
asyncio.run(await_one_name(x))
asyncio.run(await_graph_one_name(x))

# a launch synced again hands back the same handles, moved since or not
op = double(ct.zeros((512,), f32).partition((64,)), x)
p, x = op.sync()
t = p.unpartition()
q, x = op.sync()
q.unpartition()  # E: CT301


def waits(op: object) -> None:
    """Code the checker does not follow had the op: what it hands back is unknown."""


op = double(ct.zeros((512,), f32).partition((64,)), x)
waits(op)
p, x = op.sync()
t = p.unpartition()
