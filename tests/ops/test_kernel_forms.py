"""Kernel forms as NumPy and Triton users write them, on every backend: `None` and `...` in tile
subscripts, Python's math functions and min/max/abs folded on compile-time numbers, `t.T`, a
`Const[str]` that picks a code path, and outputs made with `ct.zeros_like` / `ct.empty_like`."""

import math

import numpy as np
import pytest
from opcheck import assemble, host, on_interpreter, same

import cutile as ct
from cutile import Const, Mut, Tensor, f32, i32
from cutile.compiler.toolchain import KernelCompiler


@ct.kernel
def forms(out: Mut[Tensor[f32, ("BN", "BM")]], x: Tensor[f32, (-1, -1)], BM: Const[int],
          BN: Const[int], ACT: Const[str] = "relu") -> None:
    m, n = x.shape
    j, i = out.tile_index()
    rows = i * BM + ct.arange(BM, i32)
    cols = j * BN + ct.arange(BN, i32)
    inside = (rows[:, None] < m) & (cols[None, ...] < n)
    t = ct.where(inside, x.load_tile((BM, BN), (i, j), padding=0.0), -1.0)
    t = t * (1 / math.sqrt(BN)) + min(BM, 4) - abs(-max(1, 2))
    if ACT == "relu":
        t = ct.maximum(t, 0.0)
    out.store(t.T)


CASES = [("forms", {"BM": 16, "BN": 32, "ACT": "relu"}),
         ("forms", {"BM": 16, "BN": 32, "ACT": "none"})]


def _run(act: str) -> list[np.ndarray]:
    x = (np.arange(40 * 50, dtype=np.float32).reshape(40, 50) % 13 - 6) / 4
    xt = ct.from_numpy(x)
    out = ct.empty_like(ct.zeros((64, 48), f32)).partition((32, 16))
    first = host(forms(out, xt, BM=16, BN=32, ACT=act).sync())[:1]
    like = ct.zeros_like(xt)
    return [*first, like.numpy()]


def _want(act: str) -> np.ndarray:
    x = (np.arange(40 * 50, dtype=np.float32).reshape(40, 50) % 13 - 6) / 4
    padded = np.full((48, 64), -1.0, np.float32)
    padded[:40, :50] = x
    y = padded * np.float32(1 / math.sqrt(32)) + 4 - 2
    return (np.maximum(y, 0) if act == "relu" else y).T


@pytest.mark.parametrize("act", ["relu", "none"])
def test_forms_match_numpy(act: str) -> None:
    out, zeros = on_interpreter(lambda: _run(act))
    np.testing.assert_allclose(out, _want(act), rtol=1e-6, atol=1e-6)
    assert zeros.shape == (40, 50) and not zeros.any()


def test_lowers_and_assembles(compiler: KernelCompiler) -> None:
    assert len(assemble(compiler, __file__, CASES)) == len(CASES)


@pytest.mark.gpu
@pytest.mark.parametrize("act", ["relu", "none"])
def test_gpu_matches_interpreter(on_cuda: object, act: str) -> None:
    same(_run(act), on_interpreter(lambda: _run(act)), rtol=1e-6, atol=1e-6)
