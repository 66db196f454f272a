"""Closures the scope only calls read outer names when they run: a lambda or nested def that
uses a name moved before its call is CT301 inside it, as at run time. `.then(kernel)` launches
the kernel with the previous launch's arguments (CT406 for one it leaves out); `.graph()` of an
op already enqueued is CT406. A list or dict literal the scope only indexes by literals keeps
its elements followed: `outs[0]` moved by a launch and used again is CT301. A `.then` lambda
runs when its chain runs: an outer name it reads that the chain's launches moved is CT301 there
(the callback's own parameter was meant)."""

import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def double(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    z.store(ct.load_tile_like(x, z) * 2.0)


@ct.kernel
def add(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], y: Tensor[f32, (-1,)]) -> None:
    z.store(ct.load_tile_like(x, z) + ct.load_tile_like(y, z))


def lambda_after_move() -> None:
    x = ct.ones((512,), f32)
    z = ct.zeros((512,), f32).partition((64,))
    get = lambda: z.unpartition()  # noqa: E731  # E: CT301
    double(z, x).sync()
    get()


def defined_after_move() -> None:
    x = ct.ones((512,), f32)
    z = ct.zeros((512,), f32).partition((64,))
    double(z, x).sync()
    get = lambda: z.unpartition()  # noqa: E731  # E: CT301
    get()


def closure_after_move() -> None:
    x = ct.ones((512,), f32)
    z = ct.zeros((512,), f32).partition((64,))

    def finish() -> ct.Tensor:
        return z.unpartition()  # E: CT301
    double(z, x).sync()
    finish()


def called_before_move() -> ct.Tensor:
    x = ct.ones((512,), f32)
    z = ct.zeros((512,), f32).partition((64,))
    get = lambda: z.unpartition()  # noqa: E731
    t = get()
    (z,) = double(t.partition((64,)), x).sync()[:1]
    return z.unpartition()


def rebound_before_call() -> ct.Tensor:
    x = ct.ones((512,), f32)
    z = ct.zeros((512,), f32).partition((64,))

    def finish() -> ct.Tensor:
        return z.unpartition()
    z, x = double(z, x).sync()
    return finish()


def handed_on() -> list[object]:
    x = ct.ones((512,), f32)
    z = ct.zeros((512,), f32).partition((64,))
    get = lambda: z  # noqa: E731
    kept = [get]
    double(z, x).sync()
    return kept


def element_moved() -> None:
    x = ct.ones((512,), f32)
    outs = [ct.zeros((512,), f32).partition((64,)), ct.zeros((512,), f32).partition((64,))]
    double(outs[0], x).sync()
    double(outs[1], x).sync()
    outs[0].unpartition()  # E: CT301


def entry_moved() -> None:
    x = ct.ones((512,), f32)
    bufs = {"z": ct.zeros((512,), f32).partition((64,)), "w": ct.zeros((512,), f32)}
    double(bufs["z"], x).sync()
    bufs["w"].partition((64,))
    bufs["z"].unpartition()  # E: CT301


def element_replaced() -> ct.Tensor:
    x = ct.ones((512,), f32)
    outs = [ct.zeros((512,), f32).partition((64,))]
    outs[0], x = double(outs[0], x).sync()
    return outs[0].unpartition()


def entry_replaced() -> ct.Tensor:
    x = ct.ones((512,), f32)
    bufs = {"z": ct.zeros((512,), f32).partition((64,))}
    bufs["z"], x = double(bufs["z"], x).sync()
    return bufs["z"].unpartition()


def then_reads_the_moved_name() -> None:
    x = ct.ones((512,), f32)
    z = ct.zeros((512,), f32).partition((64,))
    double(z, x).then(lambda zp, xp: double(z, xp)).sync()  # E: CT301


def then_reads_a_live_name() -> None:
    x = ct.ones((512,), f32)
    z = ct.zeros((512,), f32).partition((64,))
    other = ct.zeros((512,), f32).partition((64,))
    chain = double(z, x).then(lambda zp, xp: double(other, xp))
    chain.sync()


lambda_after_move()
defined_after_move()
closure_after_move()
called_before_move()
rebound_before_call()
handed_on()
element_moved()
entry_moved()
element_replaced()
entry_replaced()
then_reads_the_moved_name()
then_reads_a_live_name()

x = ct.ones((512,), f32)
p = ct.zeros((512,), f32).partition((64,))
short = double(p, x).then(add)  # E: CT406
short.sync()

p = ct.zeros((512,), f32).partition((64,))
q = ct.zeros((512,), f32).partition((64,))
linked = add(p, x, x).then(add)
p, x, _ = linked.sync()

started = double(p, x)
started.start()
g = started.graph()  # E: CT406

p = ct.zeros((512,), f32).partition((64,))
fresh = double(p, x)
g = fresh.graph()
g.replay()
p, x = g.sync()
