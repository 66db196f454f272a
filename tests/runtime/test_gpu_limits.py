"""Issue 15 on a real GPU (`pytest -m gpu`; skips without one): allocations beyond the device's
memory are CT412, a launch failing on the device hands its arguments back, and the host's
narrow-float rounding (`from_numpy`, the interpreter) agrees with the device's casts."""

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import cutile as ct
from cutile import Const, Mut, Tensor, bf16, f8e4m3, f8e5m2, f32
from cutile.runtime import context

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def cuda() -> Iterator[None]:
    try:
        from cutile.runtime.cuda import driver
    except ImportError:
        pytest.skip("no cuda-python")
    if driver.device_count() == 0:
        pytest.skip("no CUDA device")
    from cutile.runtime.backends.cuda import CudaBackend

    old = context.set_backend(CudaBackend(0))
    yield
    context.set_backend(old)


def test_allocation_beyond_device_memory_is_ct410() -> None:
    with pytest.raises(ct.LaunchError, match=r"CT412 ct\.zeros of shape \(1099511627776,\) "
                       r"\(f32\) needs 4\.0 TiB, more than the device's memory \("):
        ct.zeros((2**40,), f32)
    assert ct.zeros((1024,), f32).numpy().sum() == 0


@ct.kernel
def to_e4m3(z: Mut[Tensor[f8e4m3, ("B",)]], x: Tensor[f32, (-1,)], B: Const[int]) -> None:
    z.store(ct.load_tile_like(x, z).astype(f8e4m3))


@ct.kernel
def to_e5m2(z: Mut[Tensor[f8e5m2, ("B",)]], x: Tensor[f32, (-1,)], B: Const[int]) -> None:
    z.store(ct.load_tile_like(x, z).astype(f8e5m2))


@ct.kernel
def to_bf16(z: Mut[Tensor[bf16, ("B",)]], x: Tensor[f32, (-1,)], B: Const[int]) -> None:
    z.store(ct.load_tile_like(x, z).astype(bf16))


CASTS: dict[Any, Any] = {f8e4m3: to_e4m3, f8e5m2: to_e5m2, bf16: to_bf16}


def _device_cast(values: np.ndarray, dtype: Any) -> np.ndarray:
    n = len(values)
    z = ct.zeros((n,), dtype).partition((256,))
    z, _ = CASTS[dtype](z, ct.from_numpy(values.astype(np.float32))).sync()
    out: np.ndarray = z.unpartition().numpy()
    return out


def _in_range(dtype: Any) -> np.ndarray:
    """Every representable value, the midpoints between neighbours (ties) and points near them."""
    codes = ct.from_numpy(np.linspace(-400, 400, 4001, dtype=np.float32), dtype=dtype).numpy()
    grid = np.unique(codes[np.isfinite(codes)])
    mids = (grid[:-1] + grid[1:]) / 2
    near = np.concatenate([mids, np.nextafter(mids, np.float32(np.inf)),
                           np.nextafter(mids, np.float32(-np.inf))])
    return np.concatenate([grid, near]).astype(np.float32)


@pytest.mark.parametrize("dtype", [f8e4m3, f8e5m2, bf16])
def test_host_rounding_matches_the_device_in_range(dtype: Any) -> None:
    values = _in_range(dtype)
    host = ct.from_numpy(values, dtype=dtype).numpy()
    np.testing.assert_array_equal(host, _device_cast(values, dtype))


@pytest.mark.parametrize("dtype", [f8e4m3, f8e5m2])
def test_host_overflow_and_nan_match_the_device(dtype: Any) -> None:
    # PTX converts to f8 only with .satfinite (clamping to +-448 / +-57344); the lowering
    # mends that into the f8 rule (NaN / +-inf), so host and device agree (tests/ops/test_f8.py
    # checks whole sweeps).
    values = np.array([500.0, -500.0, 1e6, -1e6, 60000.0, 1e30, np.inf, -np.inf, np.nan],
                      np.float32)
    host = ct.from_numpy(values, dtype=dtype).numpy()
    np.testing.assert_array_equal(host, _device_cast(values, dtype))
