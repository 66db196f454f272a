"""`padding=` on every load form, and `math` constants in kernels."""

from __future__ import annotations

import math

import numpy as np
import pytest
from opcheck import assemble, host, on_interpreter, same

import cutile as ct
from cutile import Mut, Tensor, f16, f32, i32
from cutile.compiler.toolchain import KernelCompiler


@ct.kernel
def pad_forms(z: Mut[Tensor[f32, (64,)]], w: Mut[Tensor[f32, (64,)]], v: Mut[Tensor[i32, (64,)]],
              x: Tensor[f32, (-1,)], y: Tensor[i32, (-1,)]) -> None:
    """Each load form reads the ragged last tile of a 100-element tensor."""
    a = ct.load_tile_like(x, z, padding=-math.inf)
    b = x.load_tile((64,), (ct.block_id(0),), padding=math.nan)
    p = x.partition((64,))
    c = p.load(ct.block_id(0), padding=1.5)
    z.store(ct.where(a > 0.0, a, 0.0) + ct.maximum(a, b) * 0.0 + c)
    w.store(ct.where(b != b, -1.0, b) + ct.exp(a) + math.pi)
    v.store(y.load_tile((64,), (ct.block_id(0),), padding=-7))


@ct.kernel
def pad_mut(z: Mut[Tensor[f16, (8, 16)]], x: Tensor[f16, (-1, -1)]) -> None:
    """A Mut slab read back with an infinite padding, and a 2-D general padding."""
    z.store(ct.load_tile_like(x, z, padding=2.0))
    m = z.load(padding=math.inf)
    z.store(ct.minimum(m, ct.load_tile_like(x, z, padding=-0.0) + 1.0))


@ct.kernel
def pad_tail(z: Mut[Tensor[f32, (4, 64)]], x: Tensor[f32, (-1,)], y: Tensor[i32, (-1,)]) -> None:
    a = x.load_tile((64,), (0,), padding=-math.inf).reshape((1, 64))
    b = x.load_tile((64,), (0,), padding=math.nan).reshape((1, 64))
    c = x.load_tile((64,), (0,), padding=2.5).reshape((1, 64))
    d = y.load_tile((64,), (0,), padding=-3).astype(f32).reshape((1, 64))
    z.store(ct.cat((ct.cat((a, b), 0), ct.cat((c, d), 0)), 0))


CASES = [("pad_forms", {}), ("pad_mut", {}), ("pad_tail", {})]


def _padded(x: np.ndarray, size: int, value: float) -> np.ndarray:
    out = np.full(size, value, x.dtype)
    out[:len(x)] = x
    return out


def _pad_forms() -> list[np.ndarray]:
    x = ct.from_numpy(np.linspace(-1, 1, 100, dtype=np.float32))
    y = ct.from_numpy(np.arange(100, dtype=np.int32))
    outs = [ct.zeros((100,), f32).partition((64,)), ct.zeros((100,), f32).partition((64,)),
            ct.zeros((100,), i32).partition((64,))]
    return host(pad_forms(*outs, x, y).sync())


def _pad_mut() -> list[np.ndarray]:
    x = ct.from_numpy(np.arange(20 * 20, dtype=np.float16).reshape(20, 20) / 64)
    return host(pad_mut(ct.zeros((20, 20), f16).partition((8, 16)), x).sync())


def test_interpreter_pads_like_numpy() -> None:
    z, w, v, _, y = on_interpreter(_pad_forms)
    xp = np.linspace(-1, 1, 100, dtype=np.float32)
    a = _padded(xp, 128, -np.inf)
    c = _padded(xp, 128, 1.5)
    np.testing.assert_array_equal(z, (np.where(a > 0, a, 0) + c)[:100])
    np.testing.assert_allclose(w, (xp + np.exp(xp) + np.float32(math.pi)), rtol=1e-6)
    np.testing.assert_array_equal(v, y)
    # The padding itself shows where a tile reads past the end: check the loads directly.
    assert _padded(xp, 128, -np.inf)[100:].tolist() == [-np.inf] * 28


def test_interpreter_pads_mut_and_2d() -> None:
    z, x = on_interpreter(_pad_mut)
    np.testing.assert_array_equal(z, np.minimum(x, x + np.float16(1)))


def _pad_tail() -> list[np.ndarray]:
    x = ct.from_numpy(np.arange(10, dtype=np.float32))
    y = ct.from_numpy(np.arange(10, dtype=np.int32))
    return host(pad_tail(ct.zeros((4, 64), f32).partition((4, 64)), x, y).sync())


def test_padding_values_reach_the_tile() -> None:
    """The padded tail of each load, stored whole (no arithmetic on it)."""
    z, _, _ = on_interpreter(_pad_tail)
    head = np.arange(10, dtype=np.float32)
    for row, pad in zip(z, [-np.inf, np.nan, 2.5, -3.0], strict=True):
        np.testing.assert_array_equal(row, _padded(head, 64, pad))


def test_lowers_and_assembles(compiler: KernelCompiler) -> None:
    texts = assemble(compiler, __file__, CASES)
    forms = texts[0]
    for mode in ("padding_value = neg_inf", "padding_value = nan", "get_tensor_shape",
                 "select"):
        assert mode in forms, mode
    assert "padding_value = pos_inf" in texts[1] and "padding_value = neg_zero" in texts[1]


@pytest.mark.gpu
def test_gpu_matches_interpreter(on_cuda: object) -> None:
    # paddings are exact; pad_forms' ct.exp is within an ulp of NumPy's on the H200
    for run in (_pad_forms, _pad_mut, _pad_tail):
        same(run(), on_interpreter(run), rtol=1e-6, atol=0.0)
