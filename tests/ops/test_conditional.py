"""Conditional expressions (`a if c else b`) on Consts and scalar bool tiles, and `return`
from one branch of an `if` in a @ct.function helper."""

from __future__ import annotations

import numpy as np
import pytest
from opcheck import assemble, host, on_interpreter, same

import cutile as ct
from cutile import Const, Mut, Tensor, f32
from cutile.compiler.toolchain import KernelCompiler


@ct.function
def leaky(t, slope):
    if slope == 0.0:
        return ct.maximum(t, 0.0)
    if ct.max(t, 0) < 0.0:
        return t * slope
    return ct.where(t > 0.0, t, t * slope)


@ct.kernel
def choose(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], s: f32,
           SCALE: Const[bool]) -> None:
    t = ct.load_tile_like(x, z)
    k = 2.0 if SCALE else 1.0
    u = t * k if s > 0.0 else -t
    z.store(u + leaky(t, 0.1) + leaky(t, 0.0) + (s if s < 1.0 else 1.0))


CASES = [("choose", {"SCALE": True})]


def _choose(s: float, scale: bool) -> list[np.ndarray]:
    x = np.linspace(-4, 2, 128, dtype=np.float32)
    x[64:] -= 10  # the second block is all negative: leaky's early return
    return host(choose(ct.zeros((128,), f32).partition((64,)), ct.from_numpy(x), np.float32(s),
                       SCALE=scale).sync())


def _reference(x: np.ndarray, s: float, scale: bool) -> np.ndarray:
    u = x * (2.0 if scale else 1.0) if s > 0 else -x
    leak = np.where(x > 0, x, x * np.float32(0.1))
    return u + leak + np.maximum(x, 0) + np.float32(min(s, 1.0))


@pytest.mark.parametrize(("s", "scale"), [(0.5, True), (-1.0, True), (3.0, False)])
def test_interpreter_matches_numpy(s: float, scale: bool) -> None:
    z, x, _ = on_interpreter(lambda: _choose(s, scale))
    np.testing.assert_allclose(z, _reference(x, s, scale), rtol=1e-6)


def test_lowers_and_assembles(compiler: KernelCompiler) -> None:
    (text,) = assemble(compiler, __file__, CASES)
    assert "select" in text and "if" in text


@pytest.mark.gpu
def test_gpu_matches_interpreter(on_cuda: object) -> None:
    for s, scale in [(0.5, True), (-1.0, False)]:
        want = on_interpreter(lambda s=s, scale=scale: _choose(s, scale))
        same(_choose(s, scale), want, rtol=1e-6)
