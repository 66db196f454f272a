"""CUDA backend on a real GPU (`pytest -m gpu`); every test skips cleanly without one."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import rt_kernels as k

import cutile as ct
from cutile import f32
from cutile.runtime import context


def _gpu_backend() -> Any:
    try:
        from cutile.runtime.cuda import driver
    except ImportError:
        return None
    if driver.device_count() == 0:
        return None
    from cutile.runtime.backends.cuda import CudaBackend

    return CudaBackend(0)


pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def cuda() -> Iterator[Any]:
    be = _gpu_backend()
    if be is None:
        pytest.skip("no CUDA device")
    yield be


@pytest.fixture(autouse=True)
def use_cuda(cuda: Any) -> Iterator[None]:
    old = context.set_backend(cuda)
    yield
    context.set_backend(old)


def test_memory_round_trip(cuda: Any) -> None:
    t = ct.arange(1000, f32)
    assert str(t.device) == "cuda:0"
    np.testing.assert_array_equal(t.numpy(), np.arange(1000))
    np.testing.assert_array_equal(ct.full((7,), 2.5, ct.f64).numpy(), np.full(7, 2.5))
    np.testing.assert_array_equal(ct.ones((9,), ct.bf16).numpy(), np.ones(9))


def test_add_matches_the_interpreter(cuda: Any) -> None:
    x, y = ct.rand((100_000,), f32, seed=1), ct.rand((100_000,), f32, seed=2)
    z, x, y = k.add(ct.zeros((100_000,), f32).partition((1024,)), x, y).sync()
    np.testing.assert_array_equal(z.unpartition().numpy(), x.numpy() + y.numpy())


def test_matmul_matches_numpy(cuda: Any) -> None:
    a, b = ct.randn((256, 128), ct.f16, seed=3), ct.randn((128, 192), ct.f16, seed=4)
    c, a, b = k.matmul(ct.zeros((256, 192), f32).partition((64, 64)), a, b, BK=32).sync()
    ref = a.numpy().astype(np.float32) @ b.numpy().astype(np.float32)
    np.testing.assert_allclose(c.unpartition().numpy(), ref, rtol=1e-3, atol=1e-3)


def test_torch_in_and_out_without_copies(cuda: Any) -> None:
    torch = pytest.importorskip("torch")
    x = torch.arange(4096, dtype=torch.float32, device="cuda")
    out = torch.zeros(4096, dtype=torch.float32, device="cuda")
    cx, cout = ct.from_dlpack(x), ct.from_dlpack(out)
    assert cx.data_ptr == x.data_ptr() and cout.data_ptr == out.data_ptr()
    z, _, _ = k.add(cout.partition((256,)), cx, cx).sync()
    back = torch.from_dlpack(z.unpartition())
    assert back.data_ptr() == out.data_ptr()
    assert torch.equal(out, 2 * x)


def test_then_chain_and_await(cuda: Any) -> None:
    x = ct.ones((4096,), f32)
    chain = k.add(ct.zeros((4096,), f32).partition((512,)), x, x).then(
        lambda z, a, b: k.inc(z))

    async def main() -> tuple[Any, ...]:
        return await chain

    (z,) = asyncio.run(main())
    assert z.unpartition().numpy()[0] == 3.0


def test_graph_replay(cuda: Any) -> None:
    g = k.inc(ct.zeros((4096,), f32).partition((512,))).graph()
    for _ in range(9):
        g.replay()
    (z,) = g.sync()
    np.testing.assert_array_equal(z.unpartition().numpy(), np.full(4096, 10.0))


def test_ten_thousand_launches_leak_no_device_memory(cuda: Any) -> None:
    from cutile.runtime.cuda import driver

    z = ct.zeros((1 << 16,), f32).partition((1024,))
    (z,) = k.inc(z).sync()  # compile and warm the allocator
    ct.synchronize()
    in_use, free_before = cuda.allocator.stats.in_use, driver.mem_info()[0]
    for _ in range(10_000):
        (z,) = k.inc(z).sync()
    ct.synchronize()
    assert cuda.allocator.stats.in_use == in_use
    assert abs(driver.mem_info()[0] - free_before) < (4 << 20)
    assert z.unpartition().numpy()[0] == 10_001.0
