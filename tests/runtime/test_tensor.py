"""Constructors, dtype storage (bf16/f8 rounding), DLPack round trips with NumPy."""

from __future__ import annotations

import gc
from typing import Any

import numpy as np
import pytest

import cutile as ct
from cutile import bf16, f8e4m3, f8e5m2, f16, f32, i32
from cutile.runtime import floats


def test_constructors() -> None:
    np.testing.assert_array_equal(ct.zeros((3, 4), f32).numpy(), np.zeros((3, 4)))
    np.testing.assert_array_equal(ct.ones((5,), i32).numpy(), np.ones(5, np.int32))
    np.testing.assert_array_equal(ct.full((2, 2), 7.5, f16).numpy(), np.full((2, 2), 7.5))
    np.testing.assert_array_equal(ct.arange(10, i32).numpy(), np.arange(10))
    assert ct.full((4,), 1.5, ct.f64).numpy().dtype == np.float64
    assert ct.zeros((0,), f32).numpy().shape == (0,)


def test_random_is_seeded_and_in_range() -> None:
    a, b = ct.rand((1000,), f32, seed=7).numpy(), ct.rand((1000,), f32, seed=7).numpy()
    np.testing.assert_array_equal(a, b)
    assert a.min() >= 0 and a.max() < 1
    n = ct.randn((10000,), f32, seed=1).numpy()
    assert abs(n.mean()) < 0.05 and abs(n.std() - 1) < 0.05


def test_bf16_stores_bits_and_rounds_to_nearest_even() -> None:
    t = ct.from_numpy(np.array([1.0, 1.00390625, 1.01171875, -2.5], np.float32), dtype=bf16)
    assert t.dtype is ct.bf16.dtype or t.dtype == ct.bf16.dtype
    # 1 + 2^-8 is a tie between 1 and 1 + 2^-7: even mantissa (1.0) wins; 1 + 3*2^-8 rounds up.
    np.testing.assert_array_equal(t.numpy(), np.array([1.0, 1.0, 1.015625, -2.5], np.float32))
    assert floats.f32_to_bf16_bits(np.array([np.nan], np.float32))[0] == 0x7FC0


@pytest.mark.parametrize("dt,top", [(f8e4m3, 448.0), (f8e5m2, 57344.0)])
def test_f8_round_trip(dt: type, top: float) -> None:
    values = np.array([0.0, 1.0, -1.0, 0.3, top, 1e-3], np.float32)
    t = ct.from_numpy(values, dtype=dt).numpy()
    assert t[0] == 0 and t[1] == 1 and t[2] == -1 and t[4] == top
    assert abs(t[3] - 0.3) < 0.02
    # out of range and infinities: NaN in f8e4m3 (no infinity), +-inf in f8e5m2, as torch
    # (the rule of runtime/floats.py; tests/runtime/test_f8_rule.py checks it on the GPU too)
    big = ct.from_numpy(np.array([top * 4, -np.inf, np.nan], np.float32), dtype=dt).numpy()
    if dt is f8e4m3:
        assert np.isnan(big).all()
    else:
        assert big[0] == np.inf and big[1] == -np.inf and np.isnan(big[2])


def test_from_numpy_copies() -> None:
    arr = np.arange(6, dtype=np.float32)
    t = ct.from_numpy(arr)
    arr[0] = 100
    assert t.numpy()[0] == 0
    with pytest.raises(ct.LaunchError, match="CT406"):
        ct.from_numpy(np.array(["a"]))


def test_from_dlpack_numpy_is_zero_copy_and_keeps_owner_alive() -> None:
    arr = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = ct.from_dlpack(arr)
    assert t.data_ptr == arr.ctypes.data
    arr[1, 1] = -1
    assert t.numpy()[1, 1] == -1
    del arr
    gc.collect()
    assert t.numpy()[2, 3] == 11


def test_from_dlpack_strided() -> None:
    arr = np.arange(12, dtype=np.float32).reshape(3, 4).T
    t = ct.from_dlpack(arr)
    assert t.shape == (4, 3) and t.strides == (1, 4) and not t.is_contiguous()
    np.testing.assert_array_equal(t.numpy(), arr)
    np.testing.assert_array_equal(t.reshape((12,)).numpy(), arr.reshape(12))


def test_numpy_consumes_cutile_tensor_without_copy() -> None:
    t = ct.arange(8, f32)
    view = np.from_dlpack(t)
    assert view.ctypes.data == t.data_ptr
    np.testing.assert_array_equal(view, np.arange(8))
    del t
    gc.collect()
    assert view[7] == 7  # the exported buffer lives while the consumer does


def test_dlpack_round_trip_each_numpy_dtype() -> None:
    for dt in (np.int8, np.uint16, np.int32, np.int64, np.float16, np.float32, np.float64,
               np.bool_):
        arr = (np.arange(6) % 2).astype(dt)
        back = np.from_dlpack(ct.from_dlpack(arr))
        assert back.dtype == dt
        np.testing.assert_array_equal(back, arr)


def test_dlpack_device() -> None:
    assert ct.zeros((2,), f32).__dlpack_device__() == (1, 0)


def test_torch_round_trip_if_installed() -> None:
    torch = pytest.importorskip("torch")
    src = torch.arange(6, dtype=torch.bfloat16)
    t = ct.from_dlpack(src)
    assert t.dtype == ct.bf16.dtype and t.data_ptr == src.data_ptr()
    back = torch.from_dlpack(t)
    assert back.dtype == torch.bfloat16 and back.data_ptr() == src.data_ptr()


@pytest.mark.parametrize("shape", [None, (128, None), ((1,),), "8", (2.0, 4)])
def test_reshape_to_a_shape_that_is_not_ints_is_coded(shape: Any) -> None:
    # found by the host fuzzer (tests/fuzz, seed h15): these were TypeErrors from inside cutile
    t = ct.zeros((8,), f32)
    with pytest.raises(ct.LaunchError, match="CT406 reshape: expected a shape of ints"):
        t.reshape(shape)
    assert t.reshape((2, 4)).shape == (2, 4)  # the failed reshape moved nothing
