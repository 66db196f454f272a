"""ct.scan (add, mul, max, min; forward and reverse) and its names ct.cumsum / ct.cumprod."""

from __future__ import annotations

import numpy as np
import pytest
from opcheck import assemble, host, on_interpreter, same

import cutile as ct
from cutile import Mut, Tensor, f16, f32, i32
from cutile.compiler.toolchain import KernelCompiler


@ct.kernel
def scans(a: Mut[Tensor[f32, (8, 32)]], b: Mut[Tensor[f32, (8, 32)]],
          c: Mut[Tensor[f32, (8, 32)]], d: Mut[Tensor[f32, (8, 32)]],
          x: Tensor[f32, (-1, -1)]) -> None:
    t = ct.load_tile_like(x, a)
    a.store(ct.cumsum(t, 1))
    b.store(ct.scan(t, 1, "max", reverse=True))
    c.store(ct.scan(t, axis=0, op="min"))
    d.store(ct.cumprod(t, 1, reverse=True))


@ct.kernel
def scans_int(a: Mut[Tensor[i32, (64,)]], b: Mut[Tensor[i32, (64,)]],
              h: Mut[Tensor[f16, (64,)]], x: Tensor[i32, (-1,)], y: Tensor[f16, (-1,)]) -> None:
    t = ct.load_tile_like(x, a)
    a.store(ct.scan(t, 0, "max"))
    b.store(ct.cumsum(t, 0, reverse=True) + ct.cumprod(t % 3 - 1, 0))
    h.store(ct.cumsum(ct.load_tile_like(y, h), 0))


CASES = [("scans", {}), ("scans_int", {})]


def _x() -> np.ndarray:
    rng = np.random.default_rng(7)
    x = rng.uniform(0.5, 1.5, (16, 32)).astype(np.float32)
    x[2, 5] = np.nan
    return x


def _scans() -> list[np.ndarray]:
    outs = [ct.zeros((16, 32), f32).partition((8, 32)) for _ in range(4)]
    return host(scans(*outs, ct.from_numpy(_x())).sync())


def _scans_int() -> list[np.ndarray]:
    rng = np.random.default_rng(8)
    x = rng.integers(-50, 50, 128).astype(np.int32)
    y = rng.uniform(0, 1, 128).astype(np.float16)
    outs = [ct.zeros((128,), i32).partition((64,)), ct.zeros((128,), i32).partition((64,)),
            ct.zeros((128,), f16).partition((64,))]
    return host(scans_int(*outs, ct.from_numpy(x), ct.from_numpy(y)).sync())


def _rev(fn: np.ufunc, x: np.ndarray, axis: int) -> np.ndarray:
    return np.flip(fn.accumulate(np.flip(x, axis), axis=axis), axis)


def test_interpreter_matches_numpy() -> None:
    a, b, c, d, x = on_interpreter(_scans)
    np.testing.assert_allclose(a, np.cumsum(x, 1), rtol=1e-6)
    np.testing.assert_array_equal(b, _rev(np.maximum, x, 1))
    for half in (slice(0, 8), slice(8, 16)):
        np.testing.assert_array_equal(c[half], np.minimum.accumulate(x[half], axis=0))
    np.testing.assert_allclose(d, _rev(np.multiply, x, 1), rtol=1e-5)
    assert np.isnan(b[2, :6]).all() and not np.isnan(b[2, 6:]).any()
    ai, bi, h, xi, y = on_interpreter(_scans_int)
    for half in (slice(0, 64), slice(64, 128)):
        np.testing.assert_array_equal(ai[half], np.maximum.accumulate(xi[half]))
        want = _rev(np.add, xi[half], 0) + np.cumprod(xi[half] % 3 - 1)
        np.testing.assert_array_equal(bi[half], want)
        wide = np.cumsum(y[half].astype(np.float32)).astype(np.float16)  # f16 adds in f32
        np.testing.assert_array_equal(h[half], wide)


def test_lowers_and_assembles(compiler: KernelCompiler) -> None:
    texts = assemble(compiler, __file__, CASES)
    assert "reverse = true" in texts[0] or "reverse=true" in texts[0].replace(" ", "")
    assert all("scan" in t for t in texts)


@pytest.mark.gpu
def test_gpu_matches_interpreter(on_cuda: object) -> None:
    got, want = _scans(), on_interpreter(_scans)
    for g, w in zip(got[:4], want[:4], strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-5)  # the scan order may differ in rounding
    same(_scans_int(), on_interpreter(_scans_int))
