"""Reading a tensor over a Mut slab whose extents are not powers of two (design.md §3): the slab is
one tile of `z.tile_shape`, and every element outside the slab's extents (a neighbour's slab,
even where the tensor goes on) or outside the tensor reads the padding. Each test runs on the
interpreter, and on CUDA under `pytest -m gpu` (the same kernels, checked against NumPy)."""

from __future__ import annotations

import numpy as np
import pytest
import slab_like_kernels as k
from rt_util import slab_boxes

import cutile as ct
from cutile import f32


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


@pytest.mark.parametrize(("rows", "hidden", "bm"), [(6, 100, 1), (5, 1000, 2), (7, 80, 3)])
def test_rms_norm_rows_of_any_width(backend: str, rows: int, hidden: int, bm: int) -> None:
    x = _rng(hidden).standard_normal((rows, hidden)).astype(np.float32)
    w = _rng(1).standard_normal(hidden).astype(np.float32)
    y = ct.zeros((rows, hidden), f32).partition((bm, hidden))  # an edge slab when bm ∤ rows
    y, *_ = k.rms_norm(y, ct.from_numpy(x), ct.from_numpy(w), 1e-6).sync()
    want = x / np.sqrt((x * x).mean(1, keepdims=True) + 1e-6) * w
    np.testing.assert_allclose(y.unpartition().numpy(), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("hidden", [100, 1000])
def test_layer_norm_rows_of_any_width(backend: str, hidden: int) -> None:
    x = (_rng(hidden).standard_normal((4, hidden)) * 3 + 2).astype(np.float32)
    w, b = (_rng(i).standard_normal(hidden).astype(np.float32) for i in (1, 2))
    y = ct.zeros((4, hidden), f32).partition((1, hidden))
    y, *_ = k.layer_norm(y, ct.from_numpy(x), ct.from_numpy(w), ct.from_numpy(b), 1e-5).sync()
    mu = x.mean(1, keepdims=True)
    want = (x - mu) / np.sqrt(((x - mu) ** 2).mean(1, keepdims=True) + 1e-5) * w + b
    np.testing.assert_allclose(y.unpartition().numpy(), want, rtol=1e-4, atol=1e-4)


def test_decode_attention_head_size_80(backend: str) -> None:
    batch, heads, seq, d = 2, 3, 50, 80
    rng = _rng(80)
    q = rng.standard_normal((batch, heads, d)).astype(np.float32)
    kk = rng.standard_normal((batch, seq, d)).astype(np.float32)
    v = rng.standard_normal((batch, seq, d)).astype(np.float32)
    scale = 1 / np.sqrt(d)
    out = ct.zeros((batch, heads, d), f32).partition((1, 1, d))
    out, *_ = k.decode_attention(out, ct.from_numpy(q), ct.from_numpy(kk), ct.from_numpy(v),
                                 scale, BS=16).sync()
    s = np.einsum("bhd,bsd->bhs", q, kk) * scale
    p = np.exp(s - s.max(-1, keepdims=True))
    want = np.einsum("bhs,bsd->bhd", p / p.sum(-1, keepdims=True), v)
    np.testing.assert_allclose(out.unpartition().numpy(), want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("blocks", [None, 1, 2, 5])
def test_persistent_slabs_shifted_by_their_own_max(backend: str, blocks: int | None) -> None:
    x = _rng(20).standard_normal((50, 70)).astype(np.float32)
    z = ct.zeros((50, 70), f32).partition((20, 30), blocks=blocks)
    z, _ = k.shift_blocks(z, ct.from_numpy(x)).sync()
    want = x.copy()
    for box in slab_boxes((50, 70), (20, 30)):
        want[box] -= x[box].max()
    np.testing.assert_array_equal(z.unpartition().numpy(), want)


@pytest.mark.parametrize("blocks", [None, 3])
def test_persistent_slab_load_and_load_like(backend: str, blocks: int | None) -> None:
    za = _rng(1).standard_normal((50, 70)).astype(np.float32)
    xa = _rng(2).standard_normal((50, 70)).astype(np.float32)
    z = ct.from_numpy(za).partition((20, 30), blocks=blocks)
    z, _ = k.add_blocks(z, ct.from_numpy(xa)).sync()
    np.testing.assert_array_equal(z.unpartition().numpy(), za + xa)


def test_accumulated_layer_norm_backward(backend: str) -> None:
    rows, n = 6, 100
    rng = _rng(6)
    x, dy = (rng.standard_normal((rows, n)).astype(np.float32) for _ in range(2))
    w = rng.standard_normal(n).astype(np.float32)
    mu = x.mean(1, keepdims=True)
    r = 1 / np.sqrt(((x - mu) ** 2).mean(1, keepdims=True) + 1e-5)
    dx = ct.zeros((rows, n), f32).partition((1, n))
    dw, db = ct.zeros((1, n), f32), ct.zeros((1, n), f32)
    dx, dw, db, *_ = k.layer_norm_backward(
        dx, dw, db, ct.from_numpy(dy), ct.from_numpy(x), ct.from_numpy(w),
        ct.from_numpy(mu.astype(np.float32)), ct.from_numpy(r.astype(np.float32))).sync()
    xhat = (x - mu) * r
    wg = w * dy
    want_dx = (wg - (xhat * (xhat * wg).mean(1, keepdims=True) + wg.mean(1, keepdims=True))) * r
    np.testing.assert_allclose(dx.unpartition().numpy(), want_dx, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(dw.numpy(), (dy * xhat).sum(0, keepdims=True), rtol=1e-4,
                               atol=1e-4)
    np.testing.assert_allclose(db.numpy(), dy.sum(0, keepdims=True), rtol=1e-4, atol=1e-4)


def test_rank1_slabs_read_nan_past_their_edge(backend: str) -> None:
    x = np.arange(1000, dtype=np.float32)
    z = ct.zeros((950,), f32).partition((100,))  # the last slab holds 50; x goes on
    z, _, _ = k.scale1(z, ct.from_numpy(x), 2.0).sync()
    np.testing.assert_array_equal(z.unpartition().numpy(), 2 * x[:950])


@pytest.mark.parametrize("xshape", [(10, 25), (12, 40), (4, 8)])
def test_a_slab_never_reads_its_neighbour(backend: str, xshape: tuple[int, int]) -> None:
    """3x10 slabs are 4x16 tiles: the tile's last row and six columns lie in neighbours' slabs
    (or past x, which may be larger or smaller than z): they must read the padding, 0."""
    shape = (10, 25)
    x = _rng(3).standard_normal(xshape).astype(np.float32)
    z = ct.zeros(shape, f32).partition((3, 10))
    z, _ = k.slab_sum2(z, ct.from_numpy(x)).sync()
    want = np.zeros(shape, np.float32)
    for rows, cols in slab_boxes(shape, (3, 10)):
        # the slab's box at its origin (3 x 10, not clipped at z's edge), clipped at x's
        box = (slice(rows.start, rows.start + 3), slice(cols.start, cols.start + 10))
        want[rows, cols] = x[box].sum()
    np.testing.assert_allclose(z.unpartition().numpy(), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("kernel", "shape", "slab"), [
    (k.slab_sum4, (3, 7, 11, 13), (1, 3, 5, 6)),
    (k.slab_sum5, (2, 3, 7, 11, 13), (1, 2, 3, 5, 6)),
])
def test_rank4_and_rank5_slabs(backend: str, kernel: ct.Kernel, shape: tuple[int, ...],
                               slab: tuple[int, ...]) -> None:
    x = _rng(len(shape)).standard_normal(shape).astype(np.float32)
    z = ct.zeros(shape, f32).partition(slab)
    z, _ = kernel(z, ct.from_numpy(x)).sync()
    want = np.zeros(shape, np.float32)
    for box in slab_boxes(shape, slab):
        want[box] = x[box].sum()
    np.testing.assert_allclose(z.unpartition().numpy(), want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(("zshape", "xshape"), [((3, 100), (3, 300)), ((3, 250), (3, 250)),
                                                 ((3, 100), (3, 60))])
def test_padding_past_the_row_whatever_x_holds(backend: str, zshape: tuple[int, int],
                                               xshape: tuple[int, int]) -> None:
    x = _rng(9).standard_normal(xshape).astype(np.float32)
    z = ct.zeros(zshape, f32).partition((1, 100))
    z, _ = k.padded_row(z, ct.from_numpy(x)).sync()
    want = np.zeros(zshape, np.float32)
    for rows, cols in slab_boxes(zshape, (1, 100)):
        tile = np.full((1, 128), 7.0, np.float32)
        part = x[rows, cols.start:cols.start + 100]
        tile[:, :part.shape[1]] = part
        want[rows, cols] = tile.sum()
    np.testing.assert_allclose(z.unpartition().numpy(), want, rtol=1e-5, atol=1e-4)


def test_host_view_slabs(backend: str) -> None:
    """A Mut partition of a column window of a wider tensor, read over from a strided view:
    the elements beside the window stay as they were."""
    base = _rng(4).standard_normal((6, 300)).astype(np.float32)
    xa = _rng(5).standard_normal((6, 400)).astype(np.float32)
    out = ct.from_numpy(base)
    src = ct.from_numpy(xa)
    y = out[:, 100:200].partition((1, 100))
    y, _ = k.padded_row(y, src[:, 150:250]).sync()
    want = base.copy()
    want[:, 100:200] = (xa[:, 150:250].sum(1, keepdims=True) + 28 * 7.0)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-4)


def test_strided_host_view_slabs(backend: str) -> None:
    """A permuted (column-major) view as the Mut tensor and as the tensor read over it."""
    xa = _rng(7).standard_normal((10, 25)).astype(np.float32)
    z = ct.zeros((25, 10), f32)
    zv = z.permute((1, 0)).partition((3, 10))
    zv, _ = k.slab_sum2(zv, ct.from_numpy(xa.T.copy()).permute((1, 0))).sync()
    want = np.zeros((10, 25), np.float32)
    for rows, cols in slab_boxes((10, 25), (3, 10)):
        want[rows, cols] = xa[rows, cols].sum()
    np.testing.assert_allclose(z.numpy().T, want, rtol=1e-5, atol=1e-5)
