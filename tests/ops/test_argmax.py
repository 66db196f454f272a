"""ct.argmax / ct.argmin: first index on ties, NaN as the extreme, as NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from opcheck import assemble, host, on_interpreter, same

import cutile as ct
from cutile import Mut, Tensor, f16, f32, i32
from cutile.compiler.toolchain import KernelCompiler


@ct.kernel
def arg_f32(a: Mut[Tensor[i32, (16,)]], b: Mut[Tensor[i32, (16,)]], c: Mut[Tensor[i32, (64,)]],
            d: Mut[Tensor[i32, (16, 1)]], x: Tensor[f32, (-1, -1)]) -> None:
    t = x.load_tile((16, 64), (ct.block_id(0), 0))
    a.store(ct.argmax(t, 1))
    b.store(ct.argmin(t, axis=-1))
    c.store(ct.argmax(t, 0))
    d.store(ct.argmin(t, 1, keepdims=True))


@ct.kernel
def arg_int(a: Mut[Tensor[i32, (8,)]], b: Mut[Tensor[i32, (8,)]], x: Tensor[i32, (-1, -1)],
            h: Tensor[f16, (-1, -1)]) -> None:
    a.store(ct.argmin(x.load_tile((8, 32), (ct.block_id(0), 0)), 1))
    b.store(ct.argmax(h.load_tile((8, 32), (ct.block_id(0), 0)), 1))


CASES = [("arg_f32", {}), ("arg_int", {})]


def _data() -> np.ndarray:
    rng = np.random.default_rng(5)
    x = rng.integers(-3, 4, (64, 64)).astype(np.float32)  # many ties
    x[3, 7] = x[3, 40] = np.nan  # the first NaN wins both ways
    x[5, :] = -np.inf
    x[6, 10:] = np.inf
    return x


def _arg_f32() -> list[np.ndarray]:
    outs = [ct.zeros((64,), i32).partition((16,)), ct.zeros((64,), i32).partition((16,)),
            ct.zeros((64 * 4,), i32).partition((64,)), ct.zeros((64, 1), i32).partition((16, 1))]
    return host(arg_f32(*outs, ct.from_numpy(_data())).sync())


def _arg_int() -> list[np.ndarray]:
    rng = np.random.default_rng(6)
    x = rng.integers(-5, 5, (24, 32)).astype(np.int32)
    h = rng.integers(-4, 4, (24, 32)).astype(np.float16)
    outs = [ct.zeros((24,), i32).partition((8,)), ct.zeros((24,), i32).partition((8,))]
    return host(arg_int(*outs, ct.from_numpy(x), ct.from_numpy(h)).sync())


def test_interpreter_matches_numpy() -> None:
    a, b, c, d, x = on_interpreter(_arg_f32)
    np.testing.assert_array_equal(a, np.argmax(x, 1))
    np.testing.assert_array_equal(b, np.argmin(x, 1))
    np.testing.assert_array_equal(c[:64], np.argmax(x[:16], 0))
    np.testing.assert_array_equal(c[64:128], np.argmax(x[16:32], 0))
    np.testing.assert_array_equal(d[:, 0], np.argmin(x, 1))
    assert a[3] == 7 and b[3] == 7 and a[6] == 10 and b[5] == 0
    ai, bi, xi, hi = on_interpreter(_arg_int)
    np.testing.assert_array_equal(ai, np.argmin(xi, 1))
    np.testing.assert_array_equal(bi, np.argmax(hi, 1))


def test_lowers_and_assembles(compiler: KernelCompiler) -> None:
    for text in assemble(compiler, __file__, CASES):
        assert "reduce" in text and "select" in text


@pytest.mark.gpu
def test_gpu_matches_interpreter(on_cuda: object) -> None:
    same(_arg_f32(), on_interpreter(_arg_f32))
    same(_arg_int(), on_interpreter(_arg_int))
