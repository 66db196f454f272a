"""`t.reshape((B, -1))`: one dimension inferred from the element count, as NumPy's reshape."""

import numpy as np
import pytest
from opcheck import assemble, host, on_interpreter, same

import cutile as ct
from cutile import Const, Mut, Tensor, f32
from cutile.compiler.toolchain import KernelCompiler


@ct.kernel
def row_sums(z: Mut[Tensor[f32, ("R",)]], x: Tensor[f32, (-1,)], R: Const[int]) -> None:
    """Each block's 256 values as R rows (-1 columns: 256 / R), summed per row; then the
    flat tile back through (-1,) and (2, -1)."""
    t = x.load_tile((256,), (ct.block_id(0),))
    rows = t.reshape((R, -1))
    flat = rows.reshape((-1,)).reshape((2, -1))
    z.store(ct.sum(rows, 1) + ct.sum(flat, 0)[0:R] * 0.0)


CASES = [("row_sums", {"R": 8}), ("row_sums", {"R": 32})]


def _run(r: int) -> list[np.ndarray]:
    x = np.arange(512, dtype=np.float32) / 3
    return host(row_sums(ct.zeros((2 * r,), f32).partition((r,)), ct.from_numpy(x)).sync())


@pytest.mark.parametrize("r", [8, 32])
def test_inferred_dimension_matches_numpy(r: int) -> None:
    z, x = on_interpreter(lambda: _run(r))
    want = np.concatenate([x[:256].reshape(r, -1).sum(1), x[256:].reshape(r, -1).sum(1)])
    np.testing.assert_allclose(z, want, rtol=1e-6)


def test_lowers_and_assembles(compiler: KernelCompiler) -> None:
    assert len(assemble(compiler, __file__, CASES)) == len(CASES)


@pytest.mark.gpu
def test_gpu_matches_interpreter(on_cuda: object) -> None:
    same(_run(8), on_interpreter(lambda: _run(8)))
