"""Accumulators (Acc parameters): the interpreter against NumPy, every op and dtype lowered and
assembled by tileiras, and (with -m gpu) CUDA against the interpreter. Float sums are compared
with a tolerance: the order in which blocks accumulate is unspecified on the GPU."""

import re
from typing import Any

import numpy as np
import pytest
from opcheck import assemble, host, on_interpreter

import cutile as ct
from cutile import Acc, Const, Mut, Tensor, bf16, f16, f32, f64, i32, i64, u32
from cutile.compiler.toolchain import KernelCompiler


@ct.kernel
def colsum(acc: Acc[Tensor[f32, ("BN",)], "add"], x: Tensor[f32, (-1, "BN")],
           BM: Const[int], BN: Const[int]) -> None:
    t = x.load_tile((BM, BN), (ct.block_id(0), 0))
    acc.add(ct.sum(t, 0), (0,))


@ct.kernel
def histogram(h: Acc[Tensor[i32, (-1,)], "add"], x: Tensor[i32, (-1,)], B: Const[int]) -> None:
    v = x.load_tile((B,), (ct.block_id(0),), padding=-1)  # -1 pads: dropped as out of range
    h.add_at((v,), 1)


@ct.kernel
def tiles2d(mx: Acc[Tensor[f32, (-1, -1)], "max"], mn: Acc[Tensor[f64, (-1, -1)], "min"],
            x: Tensor[f32, (-1, -1)], B: Const[int]) -> None:
    """Every block folds its tile of x into tile (0, 0) and tile (1, 1) of the outputs."""
    t = x.load_tile((B, B), (ct.block_id(0), ct.block_id(1)))
    mx.max(t, (0, 0))
    mx.max(t, (1, 1))
    mn.min(t.astype(f64), (0, 0))


@ct.kernel
def scatter2d(acc: Acc[Tensor[f32, (-1, -1)], "add"], rows: Tensor[i64, (-1,)],
              cols: Tensor[i32, (-1,)], v: Tensor[f32, (-1,)], B: Const[int]) -> None:
    i = ct.block_id(0)
    r = rows.load_tile((B,), (i,))
    c = cols.load_tile((B,), (i,))
    acc.add_at((r.reshape((B, 1)), c.reshape((1, B))), v.load_tile((B,), (i,)).reshape((B, 1)))


@ct.kernel
def bits(o: Acc[Tensor[u32, (-1,)], "or"], a: Acc[Tensor[i64, (-1,)], "and"],  # noqa: F722
         x: Acc[Tensor[i32, (-1,)], "xor"], v: Tensor[u32, (-1,)], B: Const[int]) -> None:
    t = v.load_tile((B,), (ct.block_id(0),))
    o.or_(t, (0,))
    a.and_at((t % 16,), t.astype(i64) | 0xF0F0)
    x.xor(t.astype(i32), (1,))


@ct.kernel
def halves(a: Acc[Tensor[f16, (-1,)], "add"], b: Acc[Tensor[bf16, (-1,)], "add"],
           z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    t = ct.load_tile_like(x, z)
    a.add(t.astype(f16), (0,))
    b.add_at((ct.arange(64, i32) % 8,), t.astype(bf16))
    z.store(t)


@ct.kernel
def scattered(mx: Acc[Tensor[f32, (-1,)], "max"], mn: Acc[Tensor[i64, (-1,)], "min"],
              o: Acc[Tensor[u32, (-1,)], "or"], x: Acc[Tensor[i32, (-1,)], "xor"],  # noqa: F722
              a: Acc[Tensor[i32, (-1,)], "and"],  # noqa: F722
              v: Tensor[f32, (-1,)], B: Const[int]) -> None:
    t = v.load_tile((B,), (ct.block_id(0),))
    k = ct.arange(B, i32) % 8
    mx.max_at((k,), t)
    mn.min_at((k,), (t * 100.0).astype(i64))
    o.or_at((k,), ct.arange(B, u32))
    x.xor_at((k,), ct.arange(B, i32))
    a.and_(ct.full((B,), -3, i32) - ct.block_id(0), (0,))


@ct.kernel
def edges(acc: Acc[Tensor[i32, (-1, -1)], "add"], rows: Tensor[i32, (-1,)],
          far: Tensor[i64, (-1,)], B: Const[int]) -> None:
    """Tile indices and element indices at the edge, negative and huge: nothing outside the
    tensor may be written (an i64 index past 2**32 must not wrap into range)."""
    b = ct.block_id(0)
    r = rows.load_tile((1,), (b,)).reshape(())
    acc.add(ct.full((B, B), 1, i32), (r, r))
    f = far.load_tile((B,), (0,))
    acc.add_at((f, f), 100)


@ct.kernel
def loss_sum(total: Acc[Tensor[f32, (1,)], "add"], x: Tensor[f32, (-1,)], B: Const[int]) -> None:
    """A scalar accumulated at a scalar index (a loss sum): rank-0 values and indices."""
    total.add_at((0,), ct.sum(x.load_tile((B,), (ct.block_id(0),)), 0))


@ct.kernel
def narrow(a: Acc[Tensor[f32, (-1,)], "add"], h: Acc[Tensor[f16, (-1, -1)], "add"],
           m: Acc[Tensor[i64, (-1, -1)], "max"], idx: Tensor[i32, (-1,)]) -> None:
    """Whole-tile accumulation into narrow tiles (too narrow for a bulk copy, 8 bytes a row)
    at the tensors' edges and outside them: only elements inside are changed."""
    j = idx.load_tile((1,), (ct.block_id(0),)).reshape(())
    a.add(ct.full((2,), 1.0, f32), (j,))
    h.add(ct.full((4, 2), 1.0, f16), (j, j))
    m.max(ct.full((4, 1), 7, i64) + j.astype(i64), (j, 0))


@ct.kernel
def wide_index(acc: Acc[Tensor[i32, (-1,)], "add"], seen: Mut[Tensor[i32, (1, 4)]],
               x: Tensor[i32, (-1,)], w: Tensor[i64, (-1,)]) -> None:
    """An i64 tile index past i32's range (2**32 and its neighbours) is outside the tensor, as
    on the interpreter: it must not wrap into range, for an accumulation or for a load."""
    j = w.load_tile((1,), (seen.tile_index()[0],)).reshape(())
    acc.add(ct.full((4,), 1, i32), (j,))
    seen.store(x.load_tile((4,), (j,), padding=-7).reshape((1, 4)))


@ct.kernel
def huge_index(seen: Mut[Tensor[i32, (1, 4)]], x: Tensor[i32, (-1,)],
               w: Tensor[i32, (-1,)]) -> None:
    """An i32 tile index whose element offset passes i32's range (2**30 tiles of 4) reads
    zeros, as on the interpreter, not a tile it would wrap to."""
    j = w.load_tile((1,), (seen.tile_index()[0],)).reshape(())
    seen.store(x.load_tile((4,), (j,)).reshape((1, 4)))


@ct.kernel
def wide_extrema(mx: Acc[Tensor[f64, (-1, -1)], "max"], x: Tensor[f64, (-1, -1)],
                 B: Const[int]) -> None:
    """f64 max over a reshaped 2-D tile of 512+ elements, whole and scattered (tileiras 13.4
    crashed on it until float max/min's element atomics were made rank 1)."""
    t = x.load_tile((1, B * B), (ct.block_id(0), 0)).reshape((B, B))
    mx.max(t, (0, 0))
    lanes = ct.arange(B, i32)
    mx.max_at(((lanes % 4).reshape((B, 1)), lanes.reshape((1, B))), t)


CASES = [("colsum", {"BM": 32, "BN": 16}), ("histogram", {"B": 128}), ("tiles2d", {"B": 16}),
         ("scatter2d", {"B": 32}), ("bits", {"B": 64}), ("halves", {}), ("scattered", {"B": 32}),
         ("edges", {"B": 16}), ("loss_sum", {"B": 32}), ("narrow", {}), ("wide_index", {}),
         ("huge_index", {}), ("wide_extrema", {"B": 32})]
RNG = np.random.default_rng(16)
X = RNG.standard_normal((100, 16)).astype(np.float32)
BINS = RNG.integers(-5, 40, 1000).astype(np.int32)  # some outside [0, 32): dropped
GRID2 = RNG.standard_normal((64, 48)).astype(np.float32)
ROWS = RNG.integers(-3, 20, 96).astype(np.int64)
COLS = RNG.integers(-3, 12, 96).astype(np.int32)
VALS = RNG.standard_normal(96).astype(np.float32)
BITS = RNG.integers(0, 2**32, 256, dtype=np.uint64).astype(np.uint32)
# small integers: every partial sum is exact in f16 and bf16, so the order in which the GPU's
# blocks add them (unspecified) cannot change the result
HALF = RNG.integers(-3, 4, 256).astype(np.float32)


def _colsum() -> list[Any]:
    return host(colsum(ct.zeros((16,), f32), ct.from_numpy(X), BM=32, grid=4).sync())


def _histogram() -> list[Any]:
    return host(histogram(ct.zeros((32,), i32), ct.from_numpy(BINS), B=128, grid=8).sync())


def _tiles2d() -> list[Any]:
    mx = ct.full((20, 20), -np.inf, f32)
    mn = ct.full((20, 20), np.inf, f64)
    return host(tiles2d(mx, mn, ct.from_numpy(GRID2), B=16, grid=(4, 3)).sync())


def _scatter2d() -> list[Any]:
    return host(scatter2d(ct.zeros((16, 8), f32), ct.from_numpy(ROWS), ct.from_numpy(COLS),
                          ct.from_numpy(VALS), B=32, grid=3).sync())


def _bits() -> list[Any]:
    x0 = np.arange(8, dtype=np.int32)
    return host(bits(ct.zeros((64,), u32), ct.full((16,), -1, i64), ct.from_numpy(x0),
                     ct.from_numpy(BITS), B=64, grid=4).sync())


def _halves() -> list[Any]:
    return host(halves(ct.zeros((64,), f16), ct.zeros((8,), bf16),
                       ct.zeros((256,), f32).partition((64,)), ct.from_numpy(HALF)).sync())


def _scattered() -> list[Any]:
    return host(scattered(ct.full((8,), -np.inf, f32), ct.full((8,), 2**40, i64),
                          ct.zeros((8,), u32), ct.zeros((8,), i32), ct.full((32,), -1, i32),
                          ct.from_numpy(VALS), B=32, grid=3).sync())


def test_scattered_extrema_and_bits() -> None:
    mx, mn, o, x, a, _ = on_interpreter(_scattered)
    k = np.arange(96) % 32 % 8
    want_mx = np.full(8, -np.inf, np.float32)
    np.maximum.at(want_mx, k, VALS)
    np.testing.assert_array_equal(mx, want_mx)
    want_mn = np.full(8, 2**40, np.int64)
    np.minimum.at(want_mn, k, (VALS * np.float32(100.0)).astype(np.int64))
    np.testing.assert_array_equal(mn, want_mn)
    lanes = np.arange(96) % 32
    want_o, want_x = np.zeros(8, np.uint32), np.zeros(8, np.int32)
    np.bitwise_or.at(want_o, k, lanes.astype(np.uint32))
    np.bitwise_xor.at(want_x, k, lanes.astype(np.int32))
    np.testing.assert_array_equal(o, want_o)
    np.testing.assert_array_equal(x, want_x)
    np.testing.assert_array_equal(a, np.full(32, (-1 & -3 & -4 & -5), np.int32))


EDGE_ROWS = np.array([-1, 0, 1, 2, 2**30, -2**31], np.int32)
FAR = np.array([-1, 0, 19, 20, 2**32, 2**32 + 1, -2**32, 2**63 - 1, -2**63, 2**31, 2**31 - 1,
                21, 40, 1 << 40, 5 - 2**32, 19 + 2**32], np.int64)


def _edges() -> list[Any]:
    return host(edges(ct.zeros((20, 20), i32), ct.from_numpy(EDGE_ROWS), ct.from_numpy(FAR),
                      B=16, grid=len(EDGE_ROWS)).sync())


def test_edge_negative_and_huge_indices_write_nothing_outside() -> None:
    acc, _, _ = on_interpreter(_edges)
    want = np.zeros((20, 20), np.int32)
    want[:16, :16] += 1  # tile (0, 0)
    want[16:, 16:] += 1  # tile (1, 1): its in-range corner only
    for i in (0, 19):  # the only in-range far indices, once per block
        want[i, i] += 100 * len(EDGE_ROWS)
    np.testing.assert_array_equal(acc, want)


NARROW_IDX = np.array([0, 2, -1, 3, 2**30, -2**31, 1], np.int32)


def _narrow() -> list[Any]:
    return host(narrow(ct.zeros((5,), f32), ct.zeros((9, 5), f16), ct.full((7, 2), -1, i64),
                       ct.from_numpy(NARROW_IDX), grid=len(NARROW_IDX)).sync())


def test_narrow_tiles_at_and_past_the_edges() -> None:
    a, h, m, _ = on_interpreter(_narrow)
    want_a, want_h = np.zeros(5, np.float32), np.zeros((9, 5), np.float32)
    want_m = np.full((7, 2), -1, np.int64)
    for j in NARROW_IDX.tolist():
        if 0 <= j < 2:  # (4, 1)-tiles of 7 rows: tile 1 is rows [4, 7); 2 is past the end
            want_m[4 * j:4 * j + 4, 0] = np.maximum(want_m[4 * j:4 * j + 4, 0], 7 + j)
        if 0 <= j < 3:  # (2,)-tiles of 5 elements: tile 2 is [4, 5)
            want_a[2 * j:2 * j + 2] += 1
            want_h[4 * j:4 * j + 4, 2 * j:2 * j + 2] += 1
    np.testing.assert_array_equal(a, want_a)
    np.testing.assert_array_equal(h.astype(np.float32), want_h)
    np.testing.assert_array_equal(m, want_m)


WIDE = np.array([2**32, 1, 2**32 + 2, -2**32 + 1, 2**31, 2, -1, 2**40], np.int64)


def _wide_index() -> list[Any]:
    return host(wide_index(ct.zeros((12,), i32), ct.zeros((len(WIDE), 4), i32).partition((1, 4)),
                           ct.from_numpy(np.arange(12, dtype=np.int32)), ct.from_numpy(WIDE))
                .sync())


def test_wide_tile_indices_stay_outside() -> None:
    acc, seen, _, _ = on_interpreter(_wide_index)
    np.testing.assert_array_equal(acc, [0] * 4 + [1] * 8)  # tiles 1 and 2 only
    want = np.full((len(WIDE), 4), -7, np.int32)
    want[1], want[5] = np.arange(4, 8), np.arange(8, 12)
    np.testing.assert_array_equal(seen, want)


HUGE = np.array([2**30, 2**30 + 1, 2**29 * 3, 2**31 - 1, -2**30, 2], np.int32)


def _huge_index() -> list[Any]:
    return host(huge_index(ct.zeros((len(HUGE), 4), i32).partition((1, 4)),
                           ct.from_numpy(np.arange(1, 13, dtype=np.int32)),
                           ct.from_numpy(HUGE)).sync())


def test_huge_tile_indices_read_padding() -> None:
    seen, _, _ = on_interpreter(_huge_index)
    want = np.zeros((len(HUGE), 4), np.int32)
    want[5] = [9, 10, 11, 12]
    np.testing.assert_array_equal(seen, want)


EXTREMA = RNG.standard_normal((64, 32))


def _wide_extrema() -> list[Any]:
    return host(wide_extrema(ct.full((32, 32), -np.inf, f64),
                             ct.from_numpy(EXTREMA.reshape(2, 1024)), B=32, grid=2).sync())


def test_wide_f64_extrema() -> None:
    mx, _ = on_interpreter(_wide_extrema)
    want = np.maximum(EXTREMA[:32], EXTREMA[32:])
    rows = np.arange(64)[:, None] % 32 % 4
    np.maximum.at(want, (rows, np.arange(32)), EXTREMA)
    np.testing.assert_array_equal(mx, want)


def _loss_sum() -> list[Any]:
    return host(loss_sum(ct.zeros((1,), f32), ct.from_numpy(VALS), B=32, grid=3).sync())


def test_scalar_add_at() -> None:
    total, _ = on_interpreter(_loss_sum)
    np.testing.assert_allclose(total, [VALS.sum()], rtol=1e-5)


def test_tile_add_sums_every_block() -> None:
    acc, _ = on_interpreter(_colsum)
    np.testing.assert_allclose(acc, X.sum(0), rtol=1e-5, atol=1e-5)


def test_scatter_add_counts_and_drops_out_of_range() -> None:
    h, _ = on_interpreter(_histogram)
    inside = BINS[(BINS >= 0) & (BINS < 32)]
    np.testing.assert_array_equal(h, np.bincount(inside, minlength=32))


def test_tile_max_min_mask_outside_the_tensor() -> None:
    mx, mn, _ = on_interpreter(_tiles2d)
    want = np.full((20, 20), -np.inf, np.float32)
    blocks = [GRID2[r:r + 16, c:c + 16] for r in range(0, 64, 16) for c in range(0, 48, 16)]
    for b in blocks:  # tile (0, 0) covers [0, 16)^2, tile (1, 1) [16, 20)^2 of a 20 x 20
        want[:16, :16] = np.maximum(want[:16, :16], b)
        want[16:, 16:] = np.maximum(want[16:, 16:], b[:4, :4])
    np.testing.assert_array_equal(mx, want)
    lo = np.minimum.reduce(blocks).astype(np.float64)
    np.testing.assert_array_equal(mn[:16, :16], lo)
    assert np.isinf(mn[16:, :]).all() and np.isinf(mn[:, 16:]).all()


def test_scatter_2d_broadcasts_indices_with_values() -> None:
    acc, *_ = on_interpreter(_scatter2d)
    want = np.zeros((16, 8), np.float64)
    for blk in range(3):
        sl = slice(blk * 32, blk * 32 + 32)
        r, c, v = ROWS[sl], COLS[sl], VALS[sl]
        for i in range(32):
            for j in range(32):
                if 0 <= r[i] < 16 and 0 <= c[j] < 8:
                    want[r[i], c[j]] += v[i]
    np.testing.assert_allclose(acc, want, rtol=1e-5, atol=1e-5)


def test_bitwise_ops() -> None:
    o, a, x, _ = on_interpreter(_bits)
    want_o = np.zeros(64, np.uint32)
    for blk in range(4):
        want_o |= BITS[blk * 64:(blk + 1) * 64]
    np.testing.assert_array_equal(o, want_o)
    want_a = np.full(16, -1, np.int64)
    np.bitwise_and.at(want_a, BITS % 16, BITS.astype(np.int64) | 0xF0F0)
    np.testing.assert_array_equal(a, want_a)
    # x has 8 elements: only the first 8 of tile 1 (elements 64..127) are outside: all dropped
    np.testing.assert_array_equal(x, np.arange(8, dtype=np.int32))


def test_narrow_float_adds() -> None:
    a, b, z, _ = on_interpreter(_halves)
    np.testing.assert_array_equal(a.astype(np.float32), HALF.reshape(4, 64).sum(0))
    want = np.zeros(8)
    np.add.at(want, np.arange(256) % 8, HALF)
    np.testing.assert_array_equal(b.astype(np.float32), want)
    np.testing.assert_array_equal(z, HALF)


def test_lowers_and_assembles(compiler: KernelCompiler) -> None:
    texts = dict(zip((c[0] for c in CASES), assemble(compiler, __file__, CASES), strict=True))

    def modes(name: str) -> list[str]:
        # tileirdisasm: `atomic_rmw_tko relaxed device %ptrs, MODE, %values, ...` per element,
        # `atomic_red_view_tko relaxed device %view[%i, %j], MODE, %tile ...` per tile ("view")
        found = re.findall(r"= atomic_(rmw|red_view)_tko relaxed device %\w+(?:\[[^]]*\])?, (\w+)",
                           texts[name])
        return [mode + (" view" if op == "red_view" else "") for op, mode in found]

    assert modes("colsum") == ["addf view"] and modes("histogram") == ["add"]
    # float max/min: signed max/min on the bits of non-negative values, unsigned min/max else
    assert modes("tiles2d") == ["max", "umin", "max", "umin", "min", "umax"]
    assert modes("bits") == ["or view", "and", "xor view"]
    assert modes("halves") == ["addf view", "addf"]
    assert modes("scattered") == ["max", "umin", "min", "or", "xor", "and view"]
    assert modes("edges") == ["add view", "add"] and modes("loss_sum") == ["addf"]
    assert modes("narrow") == ["addf view", "addf view", "max view"]
    assert modes("wide_index") == ["add view"] and modes("huge_index") == []
    assert modes("wide_extrema") == ["max", "umin"] * 2
    # the i64 index is range-checked before it is narrowed to i32 (-1 outside i32's range)
    assert "trunci" in texts["wide_index"] and "%cst_-2147483648_i64" in texts["wide_index"]


LAUNCHES = [_colsum, _histogram, _tiles2d, _scatter2d, _bits, _halves, _scattered, _edges,
            _loss_sum, _narrow, _wide_index, _huge_index, _wide_extrema]


@pytest.mark.gpu
@pytest.mark.parametrize("launch", LAUNCHES, ids=lambda f: f.__name__.strip("_"))
def test_gpu_matches_interpreter(on_cuda: object, launch: Any) -> None:
    got = launch()
    want = on_interpreter(launch)
    for g, w in zip(got, want, strict=True):
        g, w = np.asarray(g), np.asarray(w)
        if g.dtype.kind == "f" or str(g.dtype) == "bfloat16":
            np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64),
                                       rtol=2e-2, atol=2e-2)
        else:
            np.testing.assert_array_equal(g, w)
