"""A launch over a partition of an empty tensor has no blocks: nothing runs and the launch
completes, on every backend (the driver refuses a grid extent of 0; found by the host fuzzer on
the H200 as CT505 where the interpreter said nothing)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
import rt_kernels as k

import cutile as ct
from cutile import f32


def _launches() -> None:
    (z,) = k.inc(ct.arange(0, f32).partition((128,))).sync()
    assert z.unpartition().shape == (0,)
    (a, _) = k.pair(ct.zeros((0,), f32).partition((16,)), ct.zeros((0,), f32).partition((16,))
                    ).sync()
    assert a.unpartition().shape == (0,)
    (w,) = k.where_tile(ct.zeros((0, 64), ct.i32).partition((16, 32))).sync()
    assert w.unpartition().shape == (0, 64)
    x = ct.zeros((0,), f32)
    op = k.scale(x.partition((32,)), ct.zeros((0,), f32), 2.0)
    (z2,) = op.then(lambda z, x, s: k.inc(z)).sync()
    np.testing.assert_array_equal(z2.unpartition().numpy(), np.zeros(0, np.float32))


@pytest.mark.usefixtures("backend")
def test_launches_with_no_blocks_complete() -> None:
    _launches()


@pytest.fixture
def null_cuda(toolchain: object) -> Iterator[None]:
    pytest.importorskip("cuda.bindings")
    from benchmarks import launch_overhead

    with launch_overhead.null_cuda():
        yield


def test_launches_with_no_blocks_enqueue_nothing_on_cuda(null_cuda: None) -> None:
    """Through the null driver, which refuses a grid extent of 0 as the real one does."""
    _launches()
