"""`t.fill_(value)`: an in-place write of every element of a tensor or view, enqueued on the
current stream like `ct.full`'s fill, with ct.full's value rule and the ownership checks of a
write (CT301, CT303, CT307; CT406 for a meta tensor or a lazy op). Each test runs on the
interpreter and, under `pytest -m gpu`, on CUDA (the `backend` fixture)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import view_kernels as vk

import cutile as ct
from cutile import f32

DTYPES = [ct.f32, ct.f16, ct.bf16, ct.f64, ct.i8, ct.i32, ct.i64, ct.u8, ct.u16, ct.bool_,
          ct.f8e4m3]
VALUES = [0, 1, -1, 1.5, 2.75, -3.25, 255, 1e30, -1e30, math.inf, math.nan, True, 2**40]


def _same(got: np.ndarray, want: np.ndarray) -> bool:
    return bool(np.array_equal(got, want, equal_nan=want.dtype.kind == "f"))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_fill_gives_what_full_gives(backend: str, dtype: ct.DType) -> None:
    """Every value: the same elements as ct.full, or the same CT406 for a value that does not
    fit (an integer dtype truncates a finite float; past a float dtype's range is inf)."""
    for value in VALUES:
        t = ct.ones((3, 5), dtype)
        try:
            want = ct.full((3, 5), value, dtype).numpy()
        except ct.LaunchError as err:
            with pytest.raises(ct.LaunchError) as got:
                t.fill_(value)
            assert got.value.diagnostics[0].code == err.diagnostics[0].code == "CT406"
            assert "fill value" in got.value.diagnostics[0].message
            assert _same(t.numpy(), np.ones((3, 5), _host_dtype(dtype)))  # unchanged
            continue
        assert t.fill_(value) is t
        assert _same(t.numpy(), want), (value, t.numpy(), want)


def _host_dtype(dtype: ct.DType) -> np.dtype:
    """What numpy() gives for the dtype (bf16 and f8 widen to float32)."""
    return ct.ones((1,), dtype).numpy().dtype


def test_a_view_fills_its_elements_only(backend: str) -> None:
    a = np.arange(6 * 8, dtype=np.float32).reshape(6, 8)
    t = ct.from_numpy(a)
    t[1:5:2, ::3].fill_(-1.0)
    a[1:5:2, ::3] = -1.0
    t.permute(1, 0)[2].fill_(7.0)  # a column of t
    a[:, 2] = 7.0
    lo, hi = t.split_at(0, 3)
    hi.narrow(1, 6, 2).fill_(9.0)
    a[3:, 6:8] = 9.0
    t[5].fill_(4.0)
    a[5] = 4.0
    np.testing.assert_array_equal(t.numpy(), a)
    np.testing.assert_array_equal(lo.numpy(), a[:3])


def test_an_f64_view_with_distinct_words(backend: str) -> None:
    a = np.zeros((4, 6), dtype=np.float64)
    t = ct.from_numpy(a)
    t[:, 1::2].fill_(1.1)  # 8-byte value whose halves differ, strided
    a[:, 1::2] = 1.1
    np.testing.assert_array_equal(t.numpy(), a)


def test_empty_and_scalar_tensors(backend: str) -> None:
    e = ct.zeros((0, 4), f32)
    assert e.fill_(3.0) is e
    s = ct.from_numpy(np.zeros((), dtype=np.float32))
    s.fill_(2.5)
    assert s.numpy() == np.float32(2.5)


def test_fill_is_ordered_before_a_later_launch(backend: str) -> None:
    x = ct.zeros((256, 4), f32)
    x.fill_(3.0)
    z = ct.zeros((256, 4), f32).partition((128, 4))
    z, x = vk.double2(z, x).sync()
    np.testing.assert_array_equal(z.unpartition().numpy(), np.full((256, 4), 6.0, np.float32))
    x.fill_(1.0)  # the launch is done: x is no longer leased
    np.testing.assert_array_equal(x.numpy(), np.ones((256, 4), np.float32))


def test_fill_of_a_moved_tensor_is_ct301() -> None:
    t = ct.zeros((128,), f32)
    p = t.partition((128,))
    with pytest.raises(ct.OwnershipError) as err:
        t.fill_(1.0)
    assert err.value.diagnostics[0].code == "CT301"
    assert p.unpartition().numpy()[0] == 0.0


def test_fill_while_a_launch_reads_it_is_ct303() -> None:
    x = ct.ones((256, 4), f32)
    op = vk.double2(ct.zeros((256, 4), f32).partition((128, 4)), x)
    with pytest.raises(ct.OwnershipError, match="cannot be filled until that launch is synced"):
        x.fill_(0.0)
    z, x = op.sync()
    np.testing.assert_array_equal(z.unpartition().numpy(), np.full((256, 4), 2.0, np.float32))


def test_fill_of_a_region_a_launch_writes_is_ct307() -> None:
    t = ct.zeros((256, 4), f32)
    lo, hi = t.split_at(0, 128)
    op = vk.inc2(lo.partition((128, 4)))
    hi.fill_(5.0)  # disjoint: fine
    with pytest.raises(ct.OwnershipError) as err:
        t[100:140].fill_(1.0)
    assert err.value.diagnostics[0].code == "CT307"
    op.sync()
    np.testing.assert_array_equal(t.numpy()[:128], np.ones((128, 4), np.float32))
    np.testing.assert_array_equal(t.numpy()[128:], np.full((128, 4), 5.0, np.float32))


def test_fill_of_a_meta_tensor_is_ct406() -> None:
    with pytest.raises(ct.LaunchError, match="cannot be filled") as err:
        ct.meta((4,), f32).fill_(0.0)
    assert err.value.diagnostics[0].code == "CT406"


def test_fill_on_a_launch_is_ct406() -> None:
    op = vk.inc1(ct.zeros((128,), f32).partition((128,)))
    with pytest.raises(ct.LaunchError, match="has no attribute 'fill_'"):
        op.fill_(0.0)
    op.sync()
