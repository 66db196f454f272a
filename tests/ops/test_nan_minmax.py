"""NaN wins in ct.max/ct.min (reductions), ct.scan's max/min and ct.maximum/ct.minimum, on the
interpreter (NumPy's semantics) and in the lowering (`propagate_nan` on every maxf/minf)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from opcheck import assemble, host, on_interpreter, same

import cutile as ct
from cutile import Mut, Tensor, f16, f32
from cutile.compiler.toolchain import KernelCompiler


@ct.kernel
def nan_minmax(a: Mut[Tensor[f32, (8,)]], b: Mut[Tensor[f32, (8, 1)]],
               c: Mut[Tensor[f32, (8, 32)]], d: Mut[Tensor[f32, (8, 32)]],
               e: Mut[Tensor[f32, (32,)]], x: Tensor[f32, (-1, -1)],
               y: Tensor[f32, (-1, -1)]) -> None:
    t = ct.load_tile_like(x, c)
    u = ct.load_tile_like(y, c)
    a.store(ct.max(t, 1))
    b.store(ct.min(t, axis=1, keepdims=True))
    c.store(ct.maximum(t, u))
    d.store(ct.minimum(u, t))
    e.store(ct.max(t, 0) + ct.min(u, 0))


@ct.kernel
def nan_minmax_f16(a: Mut[Tensor[f16, (64,)]], b: Mut[Tensor[f16, (64,)]],
                   x: Tensor[f16, (-1, -1)]) -> None:
    t = x.load_tile((64, 16), (ct.block_id(0), 0))
    a.store(ct.max(t, 1))
    b.store(ct.minimum(ct.min(t, 1), math.nan))


CASES = [("nan_minmax", {}), ("nan_minmax_f16", {})]


def _inputs() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(11)
    x = rng.uniform(-2, 2, (16, 32)).astype(np.float32)
    y = rng.uniform(-2, 2, (16, 32)).astype(np.float32)
    x[1, 3] = x[9, 31] = x[12, 0] = np.nan  # rows 1, 9, 12 and columns 0, 3, 31 of the first
    y[1, 4] = y[5, 3] = np.nan  # NaN in y only, and a NaN in both at another place
    y[12, 0] = np.nan
    return x, y


def _run() -> list[np.ndarray]:
    x, y = _inputs()
    outs = [ct.zeros((16,), f32).partition((8,)), ct.zeros((16, 1), f32).partition((8, 1)),
            ct.zeros((16, 32), f32).partition((8, 32)),
            ct.zeros((16, 32), f32).partition((8, 32)), ct.zeros((64,), f32).partition((32,))]
    return host(nan_minmax(*outs, ct.from_numpy(x), ct.from_numpy(y)).sync())


def _run_f16() -> list[np.ndarray]:
    x = np.random.default_rng(12).uniform(-4, 4, (128, 16)).astype(np.float16)
    x[3, 7] = x[100, 0] = np.nan
    outs = [ct.zeros((128,), f16).partition((64,)) for _ in range(2)]
    return host(nan_minmax_f16(*outs, ct.from_numpy(x)).sync())


def test_interpreter_matches_numpy() -> None:
    a, b, c, d, e, _, _ = on_interpreter(_run)
    x, y = _inputs()
    np.testing.assert_array_equal(a, np.max(x, 1))
    np.testing.assert_array_equal(b, np.min(x, 1, keepdims=True))
    np.testing.assert_array_equal(c, np.maximum(x, y))
    np.testing.assert_array_equal(d, np.minimum(y, x))
    want_e = np.concatenate([np.max(x[:8], 0) + np.min(y[:8], 0),
                             np.max(x[8:], 0) + np.min(y[8:], 0)])
    np.testing.assert_array_equal(e, want_e)
    assert np.isnan(a[[1, 9, 12]]).all() and np.isnan(a).sum() == 3
    assert np.isnan(c[1, 4]) and np.isnan(d[5, 3])  # NaN in the second operand wins too


def test_interpreter_f16() -> None:
    a, b, _ = on_interpreter(_run_f16)
    assert np.isnan(a[[3, 100]]).all() and np.isnan(a).sum() == 2
    assert np.isnan(b).all()  # minimum with a NaN literal is NaN everywhere


def test_lowering_propagates_nan(compiler: KernelCompiler) -> None:
    for text in assemble(compiler, __file__, CASES):
        lines = [ln for ln in text.splitlines() if "maxf" in ln or "minf" in ln]
        assert lines
        for line in lines:
            assert "propagate_nan" in line, line


@pytest.mark.gpu
def test_gpu_matches_interpreter(on_cuda: object) -> None:
    same(_run(), on_interpreter(_run))
    same(_run_f16(), on_interpreter(_run_f16))
