"""DLPack and CUDA streams (docs/runtime.md, "DLPack and streams").

What cutile promises, checked on the CPU with the fake driver: `ct.from_dlpack` asks the producer
to order its data before cutile's *current* stream (DLPack's numbering: 1 for the legacy default
stream, whose driver handle 0 DLPack forbids), and `Tensor.__dlpack__(stream=S)` makes S wait for
cutile's work on every stream that used the tensor.

What the producer promises is the producer's: torch orders only the stream that is current when
`__dlpack__` runs. The GPU tests follow that contract (torch's stream current while importing,
or joined first) and show that it suffices; a sleep before torch's writes makes any missing
order visible as zeros instead of leaving it to timing.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import rt_kernels as k
from fake_cuda import FakeDriver, fake_cuda_backend

import cutile as ct
from cutile import f32
from cutile.runtime import context
from cutile.runtime.dlpack import from_dlpack_stream, to_dlpack_stream


def test_stream_numbers_follow_the_dlpack_spec() -> None:
    assert to_dlpack_stream(0) == 1  # what ct.from_dlpack asks a producer to order on
    assert [to_dlpack_stream(h) for h in (1, 2, 0x7F00AB)] == [1, 2, 0x7F00AB]
    assert [from_dlpack_stream(s) for s in (None, 0, 1, 2, 0x7F00AB)] == [1, 1, 1, 2, 0x7F00AB]


# -- the contract on the CPU (fake driver: device memory is host memory) ----------------------

@pytest.fixture
def fake() -> Iterator[FakeDriver]:
    with fake_cuda_backend() as drv:
        yield drv


class GpuProducer:
    """A DLPack producer on CUDA device 0 that records the stream it is asked to order on."""

    def __init__(self, n: int) -> None:
        self.array = np.arange(n, dtype=np.float32)
        self.asked: list[int | None] = []

    def __dlpack_device__(self) -> tuple[int, int]:
        return (2, 0)

    def __dlpack__(self, stream: int | None = None) -> Any:
        self.asked.append(stream)
        return self.array.__dlpack__()


def test_import_asks_the_producer_to_order_before_our_current_stream(fake: FakeDriver) -> None:
    be = context.backend()
    p = GpuProducer(256)
    t = ct.from_dlpack(p)
    assert t.data_ptr == p.array.ctypes.data  # zero copy
    assert p.asked == [be.default_stream()]  # cutile's own stream: no current one set
    side = ct.Stream()
    with side:
        ct.from_dlpack(p)
    assert p.asked[-1] == side.handle
    old = context.set_current_stream(0)  # the legacy default stream (torch's default)
    try:
        ct.from_dlpack(p)
    finally:
        context.set_current_stream(old)
    assert p.asked[-1] == 1  # DLPack's number for it: 0 is forbidden


@pytest.fixture
def waits(fake: FakeDriver, monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """(consumer stream, stream whose event it waits for), as the exports ask the driver."""
    from cutile.runtime.cuda import driver

    recorded: dict[int, int] = {}
    out: list[tuple[int, int]] = []
    monkeypatch.setattr(driver, "event_record", lambda e, s: recorded.__setitem__(e, s))
    monkeypatch.setattr(driver, "stream_wait_event",
                        lambda s, e: out.append((s, recorded[e])))
    return out


def test_export_orders_every_stream_that_used_the_tensor(waits: list[tuple[int, int]]) -> None:
    be = context.backend()
    main = be.default_stream()
    consumer = 0x7F00AB
    t = ct.zeros((4096,), f32)
    t.__dlpack__(stream=consumer)
    assert waits == [(consumer, main)]  # the fill's (and allocation's) stream
    side = ct.Stream()
    with side:
        (z,) = k.inc(t.partition((1024,))).sync()
    t = z.unpartition()
    waits.clear()
    t.__dlpack__(stream=consumer)
    assert sorted(waits) == sorted([(consumer, main), (consumer, side.handle)])
    waits.clear()
    t.__dlpack__(stream=side.handle)  # the consumer's own stream needs no event
    assert waits == [(side.handle, main)]
    waits.clear()
    t.__dlpack__(stream=None)  # no stream named: the legacy default stream
    assert sorted(waits) == sorted([(1, main), (1, side.handle)])
    waits.clear()
    t.__dlpack__(stream=-1)  # the consumer synchronizes itself
    assert waits == []


# -- torch on a real GPU ------------------------------------------------------------------------

N = 1 << 16


def _late_torch_tensor(torch: Any, stream: Any, value: float) -> Any:
    """A tensor torch fills on `stream` only after a long sleep: read too early, it is 0."""
    with torch.cuda.stream(stream):
        x = torch.zeros(N, dtype=torch.float32, device="cuda")
        torch.cuda._sleep(20_000_000)
        return x.fill_(value)


def _doubled(cx: ct.Tensor) -> ct.Tensor:
    z, _, _ = k.add(ct.zeros((N,), f32).partition((1024,)), cx, cx).sync()
    return z.unpartition()


def _round_trip(torch: Any, stream: Any) -> None:
    """torch writes x on `stream`; cutile, on the same stream, reads it through DLPack; torch
    reads cutile's result back. No synchronize in between: only stream order makes it right."""
    old = context.set_current_stream(stream.cuda_stream)
    try:
        x = _late_torch_tensor(torch, stream, 3.0)
        with torch.cuda.stream(stream):
            out = torch.from_dlpack(_doubled(ct.from_dlpack(x)))
            assert torch.equal(out, torch.full_like(x, 6.0))
    finally:
        context.set_current_stream(old)


@pytest.mark.gpu
def test_torch_default_stream_round_trip(use_cuda: None) -> None:
    torch = pytest.importorskip("torch")
    stream = torch.cuda.current_stream()
    assert stream.cuda_stream == 0  # torch's default stream: the handle DLPack forbids
    _round_trip(torch, stream)


@pytest.mark.gpu
def test_torch_side_stream_round_trip(use_cuda: None) -> None:
    torch = pytest.importorskip("torch")
    _round_trip(torch, torch.cuda.Stream())


@pytest.mark.gpu
def test_producer_side_stream_current_while_importing(use_cuda: None) -> None:
    """torch writes on its side stream, cutile runs on its own stream. torch orders the stream
    that is current when `__dlpack__` runs before ours, so the side stream is made current for
    the import, and again for the export back (then torch's side stream waits for ours)."""
    torch = pytest.importorskip("torch")
    side = torch.cuda.Stream()
    x = _late_torch_tensor(torch, side, 5.0)
    with torch.cuda.stream(side):
        cx = ct.from_dlpack(x)
    out = _doubled(cx)
    np.testing.assert_array_equal(out.numpy(), np.full(N, 10.0, np.float32))
    with torch.cuda.stream(side):
        back = torch.from_dlpack(out)
        assert torch.equal(back, torch.full_like(x, 10.0))


@pytest.mark.gpu
def test_producer_side_stream_joined_before_importing(use_cuda: None) -> None:
    """The other way to meet torch's contract: make torch's current stream wait for the side
    stream first (an event, no host wait); the import then orders the current stream."""
    torch = pytest.importorskip("torch")
    side = torch.cuda.Stream()
    x = _late_torch_tensor(torch, side, 7.0)
    torch.cuda.current_stream().wait_stream(side)
    out = _doubled(ct.from_dlpack(x))
    np.testing.assert_array_equal(out.numpy(), np.full(N, 14.0, np.float32))


@pytest.mark.gpu
def test_cutile_side_stream_between_torch_work_without_host_waits(use_cuda: None) -> None:
    """cutile on a stream of its own (`with ct.Stream():`) between torch work on torch's default
    stream, and no host wait until torch compares: the import orders torch's current stream
    before cutile's, the export (inside `.then`, right after the launch is enqueued) orders
    cutile's stream before torch's. cutile's launch waits behind torch's sleep, so a missing
    order in either direction reads zeros."""
    torch = pytest.importorskip("torch")
    x = _late_torch_tensor(torch, torch.cuda.current_stream(), 2.0)
    seen: list[Any] = []

    def to_torch(z: ct.Partition, a: ct.Tensor, b: ct.Tensor) -> tuple[()]:
        seen.append(torch.from_dlpack(z.unpartition()))  # torch's default stream is current
        return ()

    with ct.Stream():
        cx = ct.from_dlpack(x)
        chain = k.add(ct.zeros((N,), f32).partition((1024,)), cx, cx).then(to_torch).start()
    assert torch.equal(seen[0], torch.full_like(x, 4.0))
    chain.sync()


@pytest.mark.gpu
def test_graph_of_work_on_torch_default_stream(use_cuda: None) -> None:
    # The driver cannot capture the legacy default stream: the capture runs on a private
    # stream and the replays on torch's.
    torch = pytest.importorskip("torch")
    old = context.set_current_stream(torch.cuda.current_stream().cuda_stream)
    try:
        op = k.inc(ct.zeros((4096,), f32).partition((512,))).then(k.inc)
        g = op.graph()
        for _ in range(4):
            g.replay()
        (z,) = g.sync()
    finally:
        context.set_current_stream(old)
    np.testing.assert_array_equal(z.unpartition().numpy(), np.full(4096, 10.0, np.float32))
