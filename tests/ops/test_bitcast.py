"""t.bitcast(dtype): the same bits as another dtype of the same width."""

from __future__ import annotations

import numpy as np
import pytest
from opcheck import assemble, host, on_interpreter, same

import cutile as ct
from cutile import Mut, Tensor, bf16, f16, f32, i16, i32, u16, u32
from cutile.compiler.toolchain import KernelCompiler


@ct.kernel
def bits32(a: Mut[Tensor[i32, (64,)]], b: Mut[Tensor[f32, (64,)]], c: Mut[Tensor[u32, (64,)]],
           x: Tensor[f32, (-1,)], n: Tensor[i32, (-1,)]) -> None:
    t = ct.load_tile_like(x, a)
    a.store(t.bitcast(i32))
    b.store((ct.load_tile_like(n, b) & 0x7FFFFFFF).bitcast(f32))  # |x| through the bits
    c.store(t.bitcast(u32) >> 23)  # the biased exponent (and sign)


@ct.kernel
def bits16(a: Mut[Tensor[u16, (64,)]], b: Mut[Tensor[i16, (64,)]], c: Mut[Tensor[f16, (64,)]],
           h: Tensor[f16, (-1,)], g: Tensor[bf16, (-1,)]) -> None:
    a.store(ct.load_tile_like(h, a).bitcast(u16))
    b.store(ct.load_tile_like(g, b).bitcast(i16))
    c.store(ct.load_tile_like(g, c).bitcast(u16).bitcast(f16))


CASES = [("bits32", {}), ("bits16", {})]


def _f32() -> np.ndarray:
    x = np.linspace(-3, 3, 128, dtype=np.float32)
    x[:4] = [np.inf, -np.inf, -0.0, 1e-40]
    return x


def _bits32() -> list[np.ndarray]:
    x = _f32()
    outs = [ct.zeros((128,), i32).partition((64,)), ct.zeros((128,), f32).partition((64,)),
            ct.zeros((128,), u32).partition((64,))]
    return host(bits32(*outs, ct.from_numpy(x), ct.from_numpy(x.view(np.int32))).sync())


def _bits16() -> list[np.ndarray]:
    v = np.linspace(-2, 2, 128, dtype=np.float32)
    outs = [ct.zeros((128,), u16).partition((64,)), ct.zeros((128,), i16).partition((64,)),
            ct.zeros((128,), f16).partition((64,))]
    return host(bits16(*outs, ct.from_numpy(v.astype(np.float16)),
                       ct.from_numpy(v, bf16)).sync())


def test_interpreter_matches_numpy_views() -> None:
    a, b, c, x, _ = on_interpreter(_bits32)
    np.testing.assert_array_equal(a, x.view(np.int32))
    np.testing.assert_array_equal(b, np.abs(x))
    np.testing.assert_array_equal(c, x.view(np.uint32) >> 23)
    u, i, h, hx, gx = on_interpreter(_bits16)
    np.testing.assert_array_equal(u, hx.view(np.uint16))
    gbits = (gx.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    np.testing.assert_array_equal(i, gbits.view(np.int16))
    np.testing.assert_array_equal(h.view(np.uint16), gbits)


def test_lowers_and_assembles(compiler: KernelCompiler) -> None:
    texts = assemble(compiler, __file__, CASES)
    assert all("bitcast" in t for t in texts)


@pytest.mark.gpu
def test_gpu_matches_interpreter(on_cuda: object) -> None:
    same(_bits32(), on_interpreter(_bits32))
    got, want = _bits16(), on_interpreter(_bits16)
    for g, w in zip(got, want, strict=True):  # compare bits: NaN payloads must survive
        np.testing.assert_array_equal(np.asarray(g).view(np.uint8), np.asarray(w).view(np.uint8))
