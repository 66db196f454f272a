"""ct.erf: exact in the interpreter, a documented composition on the GPU."""

from __future__ import annotations

import math

import numpy as np
import pytest
from opcheck import assemble, host, on_interpreter

import cutile as ct
from cutile import Mut, Tensor, bf16, f16, f32
from cutile.compiler.ops.composed import NumpySteps
from cutile.compiler.ops.erf import MAX_ERROR, formula
from cutile.compiler.toolchain import KernelCompiler


@ct.kernel
def erf32(z: Mut[Tensor[f32, (1024,)]], x: Tensor[f32, (-1,)]) -> None:
    z.store(ct.erf(ct.load_tile_like(x, z)) + ct.erf(0.5) * 0.0)


@ct.kernel
def erf_narrow(z: Mut[Tensor[f16, (256,)]], w: Mut[Tensor[bf16, (256,)]],
               x: Tensor[f16, (-1,)], y: Tensor[bf16, (-1,)]) -> None:
    z.store(ct.erf(ct.load_tile_like(x, z)))
    w.store(ct.erf(ct.load_tile_like(y, w)))


CASES = [("erf32", {}), ("erf_narrow", {})]
N = 1 << 16


def _exact(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[np.float64])(x.astype(np.float64))


def _inputs() -> np.ndarray:
    x = np.linspace(-6, 6, N, dtype=np.float32)
    x[:5] = [np.nan, np.inf, -np.inf, 0.0, -0.0]
    return x


def _erf32() -> list[np.ndarray]:
    return host(erf32(ct.zeros((N,), f32).partition((1024,)),
                      ct.from_numpy(_inputs())).sync())


def _erf_narrow() -> list[np.ndarray]:
    x = np.linspace(-4, 4, 1000, dtype=np.float32)
    return host(erf_narrow(ct.zeros((1000,), f16).partition((256,)),
                           ct.zeros((1000,), bf16).partition((256,)),
                           ct.from_numpy(x.astype(np.float16)),
                           ct.from_numpy(x, bf16)).sync())


def test_interpreter_is_exact() -> None:
    z, x = on_interpreter(_erf32)
    np.testing.assert_array_equal(z, _exact(x).astype(np.float32))


def test_interpreter_rounds_narrow_dtypes() -> None:
    z, w, x, y = on_interpreter(_erf_narrow)
    np.testing.assert_array_equal(z, _exact(x).astype(np.float16))
    np.testing.assert_allclose(w, _exact(y), atol=2 ** -8)


def test_the_lowered_formula_is_within_its_bound() -> None:
    """The composition the lowering emits, step by step in float32, against math.erf."""
    x = np.linspace(-6, 6, 1 << 20, dtype=np.float32)
    steps = NumpySteps(np.dtype(np.float32))
    err = np.abs(formula(steps, x).astype(np.float64) - _exact(x))
    assert err.max() < MAX_ERROR * 2 / 3  # the device's exp adds at most a few ulps of 0.16
    special = formula(steps, np.array([np.nan, np.inf, -np.inf, 0.0], np.float32))
    assert np.isnan(special[0]) and special[1:].tolist() == [1.0, -1.0, 0.0]


def test_lowers_and_assembles(compiler: KernelCompiler) -> None:
    text = assemble(compiler, __file__, CASES)[0]
    assert "fma" in text and "exp" in text and "divf" in text


@pytest.mark.gpu
def test_gpu_matches_interpreter(on_cuda: object) -> None:
    z, _ = _erf32()
    ref, _ = on_interpreter(_erf32)
    np.testing.assert_allclose(z, ref, atol=MAX_ERROR, rtol=0)
    assert np.isnan(z[0]) and z[1] == 1.0 and z[2] == -1.0 and z[3] == 0.0
    for got, want in zip(_erf_narrow()[:2], on_interpreter(_erf_narrow)[:2], strict=True):
        np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), atol=2 ** -7)
