"""DLPack stream handshakes: DLPack forbids stream 0 for CUDA (1 is the legacy default stream,
2 the per-thread one), while the driver's handle of the legacy default stream is 0."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import rt_kernels as k

import cutile as ct
from cutile import f32
from cutile.runtime import context
from cutile.runtime.dlpack import from_dlpack_stream, to_dlpack_stream


def test_stream_numbers_follow_the_dlpack_spec() -> None:
    assert to_dlpack_stream(0) == 1  # what ct.from_dlpack asks a producer to order on
    assert [to_dlpack_stream(h) for h in (1, 2, 0x7F00AB)] == [1, 2, 0x7F00AB]
    assert [from_dlpack_stream(s) for s in (None, 0, 1, 2, 0x7F00AB)] == [1, 1, 1, 2, 0x7F00AB]


N = 1 << 16


def _late_torch_tensor(torch: Any, stream: Any, value: float) -> Any:
    """A tensor torch fills on `stream` only after a long sleep: read too early, it is 0."""
    with torch.cuda.stream(stream):
        x = torch.zeros(N, dtype=torch.float32, device="cuda")
        torch.cuda._sleep(20_000_000)
        return x.fill_(value)


def _doubled(x: Any) -> Any:
    cx = ct.from_dlpack(x)
    z, _, _ = k.add(ct.zeros((N,), f32).partition((1024,)), cx, cx).sync()
    return z.unpartition()


def _round_trip(torch: Any, stream: Any) -> None:
    """torch writes x on `stream`; cutile, on the same stream, reads it through DLPack; torch
    reads cutile's result back. No synchronize in between: only stream order makes it right."""
    old = context.set_current_stream(stream.cuda_stream)
    try:
        x = _late_torch_tensor(torch, stream, 3.0)
        with torch.cuda.stream(stream):
            assert torch.equal(torch.from_dlpack(_doubled(x)), torch.full_like(x, 6.0))
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
def test_producer_on_a_side_stream_orders_before_our_stream(use_cuda: None) -> None:
    # torch writes on a non-blocking side stream; cutile works on its own default stream, so
    # only the DLPack handshake (the producer's event waited on by our stream) orders them.
    torch = pytest.importorskip("torch")
    side = torch.cuda.Stream()
    x = _late_torch_tensor(torch, side, 5.0)
    out = _doubled(x)
    np.testing.assert_array_equal(out.numpy(), np.full(N, 10.0, np.float32))
    with torch.cuda.stream(side):  # and torch reads our result on its side stream
        back = torch.from_dlpack(out)
        assert torch.equal(back, torch.full_like(x, 10.0))


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
