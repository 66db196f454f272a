"""CUDA backend on a real GPU (`pytest -m gpu`); every test skips cleanly without one."""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np
import pytest
import rt_kernels as k

import cutile as ct
from cutile import f32


def _gpu_backend() -> Any:
    try:
        from cutile.runtime.cuda import driver
    except ImportError:
        return None
    if driver.device_count() == 0:
        return None
    from cutile.runtime.backends.cuda import CudaBackend

    return CudaBackend(0)


pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("use_cuda")]  # conftest's fixtures


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


def test_orders_and_persistent_match_the_interpreter(cuda: Any) -> None:
    for order in (ct.row_major, ct.col_major, ct.grouped(2)):
        (z,) = k.where_tile(ct.zeros((80, 32), ct.i32).partition((16, 8), order=order)).sync()
        out = z.unpartition().numpy()
        assert out[16 * 3, 8 * 2] == 302 and out[79, 31] == 403, order
    x = ct.arange(200, f32)
    z, x = k.persistent_copy(ct.zeros((200,), f32).partition((16,), blocks=3), x).sync()
    np.testing.assert_array_equal(z.unpartition().numpy(), np.arange(200) + 1)


def test_unchecked_start_and_long_chains(cuda: Any) -> None:
    z, x, y = ct.zeros((4096,), f32).partition((1024,)), ct.ones((4096,), f32), \
        ct.ones((4096,), f32)
    out = k.add.unchecked(z, x, y).sync()
    assert out[0] is z
    np.testing.assert_array_equal(z.unpartition().numpy(), np.full(4096, 2.0))
    op = k.inc(ct.zeros((4096,), f32).partition((1024,)))
    for _ in range(9_999):
        op = op.then(k.inc)
    (w,) = op.start().sync()
    assert w.unpartition().numpy()[0] == 10_000.0


def test_scalar_arguments_are_packed(cuda: Any) -> None:
    x = ct.arange(4096, f32)
    z, x, _ = k.scale(ct.zeros((4096,), f32).partition((512,)), x, 0.5).sync()
    np.testing.assert_array_equal(z.unpartition().numpy(), np.arange(4096) * 0.5)
    (w, _) = k.shift(ct.zeros((64,), ct.i32).partition((64,)), -7).sync()
    assert (w.unpartition().numpy() == -7).all()
