"""ct.exp2 on f32 flushes subnormal results to zero, as the GPU's ex2 does (the lowering asks
for flush_to_zero): the interpreter gives the same 0 below 2**-126, and 2**-126 itself."""

from __future__ import annotations

import numpy as np
import pytest
from opcheck import assemble, host, on_interpreter, same

import cutile as ct
from cutile import Mut, Tensor, f32
from cutile.compiler.toolchain import KernelCompiler


@ct.kernel
def powers(z: Mut[Tensor[f32, (8,)]], x: Tensor[f32, (-1,)]) -> None:
    z.store(ct.exp2(ct.load_tile_like(x, z)))


CASES = [("powers", {})]
X = np.array([-200.0, -149.0, -127.0, -126.5, -126.0, -1.0, 0.0, 3.5], np.float32)


def _powers() -> list[np.ndarray]:
    return host(powers(ct.zeros((8,), f32).partition((8,)), ct.from_numpy(X)).sync())


def test_subnormal_results_are_zero_on_the_interpreter() -> None:
    z, _ = on_interpreter(_powers)
    want = np.exp2(X)
    want[want < 2.0**-126] = 0.0
    np.testing.assert_array_equal(z, want)
    assert z[4] == np.float32(2.0**-126) and z[3] == 0.0


def test_lowering_asks_for_flush_to_zero(compiler: KernelCompiler) -> None:
    (text,) = assemble(compiler, __file__, CASES)
    assert "exp2" in text and "flush_to_zero" in text


@pytest.mark.gpu
def test_gpu_matches_interpreter(on_cuda: object) -> None:
    same(_powers(), on_interpreter(_powers))
