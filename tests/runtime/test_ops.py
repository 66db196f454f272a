"""DeviceOp semantics: laziness, sync, await (non-blocking), then-chains, graph capture."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
import rt_kernels as k

import cutile as ct
from cutile import f32
from cutile.compiler.specialization import Specialization
from cutile.runtime import context
from cutile.runtime.backends.base import Event, Executable
from cutile.runtime.backends.host import HostExecutable
from cutile.runtime.backends.interpreter import InterpreterBackend
from cutile.runtime.kernel import Kernel


def test_nothing_runs_until_sync() -> None:
    (z0,) = k.inc(ct.zeros((64,), f32).partition((32,))).sync()
    op = k.inc(z0)
    (z1,) = k.inc(ct.zeros((64,), f32).partition((32,))).sync()
    assert z1.numpy()[0] == 1.0
    (z0,) = op.sync()
    assert z0.numpy()[0] == 2.0
    assert op.sync()[0] is z0  # a second sync hands back the same results


def test_await_returns_the_arguments() -> None:
    x, y = ct.ones((256,), f32), ct.ones((256,), f32)

    async def main() -> tuple[Any, ...]:
        return await k.add(ct.zeros((256,), f32).partition((128,)), x, y)

    z, x2, _ = asyncio.run(main())
    assert x2 is x and z.numpy()[0] == 2.0


class SlowEvent(Event):
    """Done only after a number of polls, like a GPU kernel still running."""

    def __init__(self, polls: int) -> None:
        self.polls = polls

    def done(self) -> bool:
        self.polls -= 1
        return self.polls < 0

    def wait(self) -> None:
        self.polls = -1


class SlowBackend(InterpreterBackend):
    def record(self, stream: int) -> Event:
        return SlowEvent(20)

    def prepare(self, kernel: Kernel, spec: Specialization) -> Executable:
        def body(args: Sequence[Any], grid: tuple[int, int, int]) -> None:
            return None
        return HostExecutable(self, body)


def test_await_does_not_block_the_event_loop() -> None:
    old = context.set_backend(SlowBackend())
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    async def main() -> None:
        task = asyncio.create_task(ticker())
        await k.inc(ct.zeros((64,), f32).partition((32,)))
        task.cancel()

    try:
        asyncio.run(main())
    finally:
        context.set_backend(old)
    assert ticks >= 20  # the loop kept running while the launch was pending


def test_then_chains_on_one_stream() -> None:
    x = ct.ones((256,), f32)
    chain = k.add(ct.zeros((256,), f32).partition((128,)), x, x).then(
        lambda z, x, y: k.add(z, x, y)).then(lambda z, x, y: k.inc(z))
    (z,) = chain.sync()
    assert z.numpy()[0] == 3.0
    assert x.state.value == "live"


def test_then_may_return_values() -> None:
    (t,) = k.inc(ct.zeros((64,), f32).partition((32,))).then(
        lambda z: (z.unpartition(),)).sync()
    assert t.numpy()[10] == 1.0


def test_graph_runs_once_and_replays() -> None:
    g = k.inc(ct.zeros((64,), f32).partition((32,))).graph()
    g.replay()
    g.replay()
    (z,) = g.sync()
    np.testing.assert_array_equal(z.numpy(), np.full(64, 3.0, np.float32))
    with pytest.raises(ct.OwnershipError, match=r"'g' was moved by \.sync"):
        g.replay()


def test_graph_owns_the_op() -> None:
    op = k.inc(ct.zeros((64,), f32).partition((32,)))
    g = op.graph()
    with pytest.raises(ct.OwnershipError, match="moved into a graph"):
        op.sync()
    g.sync()


def test_await_graph() -> None:
    g = k.inc(ct.zeros((64,), f32).partition((32,))).graph()

    async def main() -> tuple[Any, ...]:
        g.replay()
        return await g

    (z,) = asyncio.run(main())
    assert z.numpy()[0] == 2.0
