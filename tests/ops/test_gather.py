"""`ct.gather`, `x.load_at` and unsafe `ct.scatter`: the interpreter against NumPy, lowering and
assembly, and (with -m gpu) the GPU against the interpreter. Indices include negative, edge and
huge values: outside elements read the padding or are dropped, and nothing outside is touched."""

import importlib.util
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from opcheck import assemble, host, on_interpreter, same

import cutile as ct
from cutile import Const, Mut, Tensor, f16, f32, i8, i32, i64, u32
from cutile.compiler.toolchain import KernelCompiler


@ct.kernel
def gather_rows(z: Mut[Tensor[f32, ("BT", "D")]], table: Tensor[f32, (-1, -1)],
                ids: Tensor[i32, (-1,)], BT: Const[int], D: Const[int]) -> None:
    """Embedding-style: rows of `table` at token ids; columns past the table's width pad."""
    tok = ids.load_tile((BT,), (ct.block_id(0),), padding=-1)
    cols = ct.arange(D, i32) + ct.block_id(1) * D
    z.store(ct.gather(table, (tok.reshape((BT, 1)), cols.reshape((1, D))), padding=7.5))


@ct.kernel
def gather_edges(z: Mut[Tensor[f32, (64,)]], w: Mut[Tensor[f16, (64,)]],
                 x: Tensor[f32, (-1,)], h: Tensor[f16, (-1,)], a: Tensor[i64, (-1,)],
                 b: Tensor[u32, (-1,)], c: Tensor[i8, (-1,)]) -> None:
    """i64 indices (negative, huge), u32 (above 2**31) and i8 indices."""
    ia = ct.load_tile_like(a, z)
    ib = ct.load_tile_like(b, z)
    ic = ct.load_tile_like(c, z)
    z.store(ct.gather(x, ia, padding=-math.inf) + ct.gather(x, ib) + ct.gather(x, (ic,)))
    w.store(ct.gather(h, ib, padding=math.nan))


@ct.kernel
def load_at_2d(z: Mut[Tensor[f32, (16, 32)]], x: Tensor[f32, (-1, -1)],
               offs: Tensor[i32, (-1,)]) -> None:
    """Tiles at unaligned element offsets read from a tensor (a scalar gather gives each)."""
    i = ct.block_id(0)
    r = ct.gather(offs, 2 * i)
    c = ct.gather(offs, 2 * i + 1)
    z.store(x.load_at((16, 32), (r, c), padding=-1.0))


@ct.kernel
def load_at_u32(z: Mut[Tensor[f32, (16,)]], x: Tensor[f32, (-1,)],
                offs: Tensor[u32, (-1,)]) -> None:
    """u32 offsets near 2**32 must not wrap around into the tensor."""
    z.store(x.load_at((16,), (ct.gather(offs, ct.block_id(0)),), padding=-2.0))


@ct.kernel(unsafe=True)  # cutile: ignore[CT115]
def scatter_perm(y: Tensor[f32, (-1,)], idx: Tensor[i32, (-1,)], v: Tensor[f32, (-1,)],
                 B: Const[int]) -> None:
    """y[idx[k]] = v[k] where v[k] > 0; indices outside y are dropped."""
    k = ct.block_id(0)
    i = idx.load_tile((B,), (k,), padding=-1)
    t = v.load_tile((B,), (k,))
    ct.scatter(y, (i,), t, mask=t > 0.0)


@ct.kernel(unsafe=True)  # cutile: ignore[CT115]
def scatter_2d(y: Tensor[i32, (-1, -1)], rows: Tensor[i64, (-1,)]) -> None:
    """Row indices (huge and negative among them) times a column range, a scalar value."""
    r = rows.load_tile((32,), (0,), padding=-5)
    ct.scatter(y, (r.reshape((32, 1)), ct.arange(8, i32).reshape((1, 8))), 3)


@ct.kernel(unsafe=True)  # cutile: ignore[CT115]
def scatter_count(y: Tensor[i32, (-1,)], idx: Tensor[i32, (-1, -1)], B: Const[int]) -> None:
    """y[idx[r, :]] += 1 row after row (indices distinct within a row): each gather sees the
    scatters of the rows before it, through the loop-carried token of y."""
    for r in range(ct.num_tiles(idx.partition((1, B)), 0)):
        i = idx.load_tile((1, B), (r, 0)).reshape((B,))
        ct.scatter(y, (i,), ct.gather(y, (i,)) + 1)


CASES = [("gather_rows", {"BT": 8, "D": 16}), ("gather_edges", {}), ("load_at_2d", {}),
         ("load_at_u32", {}),
         ("scatter_perm", {"B": 32}), ("scatter_2d", {}),
         ("scatter_count", {"B": 16})]

HUGE = [2**40, -2**40, 2**62, -1, -(2**63), 99, 100, 0]


def _gather_rows() -> list[np.ndarray]:
    table = ct.from_numpy(np.arange(50 * 20, dtype=np.float32).reshape(50, 20))
    ids = ct.from_numpy(np.array([3, 49, 0, 50, -1, 7, 2**31 - 1, 12, 48, 1, -50], np.int32))
    z = ct.zeros((11, 32), f32).partition((8, 16))
    return host(gather_rows(z, table, ids).sync())


def _edges_inputs() -> tuple[np.ndarray, ...]:
    x = np.linspace(-3, 3, 100).astype(np.float32)
    a = np.resize(np.array(HUGE, np.int64), 64)
    a[8:] = np.arange(56) * 2 - 7
    b = (np.arange(64, dtype=np.uint64) * 3 + np.uint64(2**31 - 40)).astype(np.uint32)
    b[:8] = [0, 99, 100, 2**32 - 1, 2**31, 5, 63, 2**31 + 7]
    c = (np.arange(64) * 5 - 128).astype(np.int8)
    return x, a, b, c


def _gather_edges() -> list[np.ndarray]:
    x, a, b, c = _edges_inputs()
    zs = [ct.zeros((64,), f32).partition((64,)), ct.zeros((64,), f16).partition((64,))]
    return host(gather_edges(*zs, ct.from_numpy(x), ct.from_numpy(x.astype(np.float16)),
                             ct.from_numpy(a), ct.from_numpy(b), ct.from_numpy(c)).sync())


OFFS = np.array([0, 0, -5, -17, 30, 40, 7, 3, 44, 60, -16, -32, 2**31 - 8, 5, 5, -(2**31)],
                np.int32)


def _load_at() -> list[np.ndarray]:
    x = ct.from_numpy(np.arange(45 * 70, dtype=np.float32).reshape(45, 70))
    z = ct.zeros((16 * 8, 32), f32).partition((16, 32))
    return host(load_at_2d(z, x, ct.from_numpy(OFFS)).sync())


U32_OFFS = np.array([0, 2**32 - 5, 2**31 + 3, 90, 2**32 - 1, 84], np.uint32)


def _load_at_u32() -> list[np.ndarray]:
    x = ct.from_numpy(np.arange(100, dtype=np.float32))
    z = ct.zeros((16 * len(U32_OFFS),), f32).partition((16,))
    return host(load_at_u32(z, x, ct.from_numpy(U32_OFFS)).sync())


def _scatter_perm() -> list[np.ndarray]:
    n = 70
    idx = np.random.default_rng(1).permutation(96).astype(np.int32)[:96] - 13
    idx[:4] = [-1, 2**31 - 1, -(2**31), n]
    v = np.random.default_rng(2).standard_normal(96).astype(np.float32)
    out = scatter_perm(ct.zeros((n,), f32), ct.from_numpy(idx), ct.from_numpy(v), B=32,
                       grid=3).sync()
    return host(out)


def _scatter_2d() -> list[np.ndarray]:
    rows = np.array([0, 5, 9, 10, -1, 2**40, -(2**40), 3] * 4, np.int64)
    out = scatter_2d(ct.zeros((10, 6), i32), ct.from_numpy(rows), grid=1).sync()
    return host(out)


def _count_rows() -> np.ndarray:
    rng = np.random.default_rng(3)
    rows = np.stack([rng.permutation(24)[:16] - 2 for _ in range(9)]).astype(np.int32)
    rows[0, :2] = [2**31 - 1, -(2**31)]
    return rows


def _scatter_count() -> list[np.ndarray]:
    out = scatter_count(ct.zeros((20,), i32), ct.from_numpy(_count_rows()), B=16, grid=1).sync()
    return host(out)


def _np_gather(x: np.ndarray, idx: list[np.ndarray], pad: float) -> np.ndarray:
    idx = [np.asarray(i).astype(object) for i in idx]
    shape = np.broadcast_shapes(*(i.shape for i in idx))
    out = np.full(shape, pad, x.dtype)
    for pos in np.ndindex(*shape):
        where = tuple(int(np.broadcast_to(i, shape)[pos]) for i in idx)
        if all(0 <= w < n for w, n in zip(where, x.shape, strict=True)):
            out[pos] = x[where]
    return out


def test_gather_rows_on_interpreter() -> None:
    z, table, ids = on_interpreter(_gather_rows)
    cols = np.arange(32)
    want = _np_gather(table, [ids.reshape(-1, 1), cols.reshape(1, -1)], 7.5)
    np.testing.assert_array_equal(z, want)
    assert (z[3] == 7.5).all() and (z[4] == 7.5).all() and (z[0, 20:] == 7.5).all()


def test_gather_edges_on_interpreter() -> None:
    z, w, *_ = on_interpreter(_gather_edges)
    x, a, b, c = _edges_inputs()
    want = _np_gather(x, [a], -np.inf) + _np_gather(x, [b], 0.0) + _np_gather(x, [c], 0.0)
    np.testing.assert_array_equal(z, want)
    np.testing.assert_array_equal(w, _np_gather(x.astype(np.float16), [b], np.nan))
    assert np.isinf(z[0:8][[0, 1, 2, 4]]).all()  # 2**40, -2**40, 2**62, -(2**63): padding


def test_load_at_on_interpreter() -> None:
    z, x, _ = on_interpreter(_load_at)
    for blk in range(8):
        r, c = int(OFFS[2 * blk]), int(OFFS[2 * blk + 1])
        rows = (np.arange(16) + r).reshape(-1, 1)
        cols = (np.arange(32) + c).reshape(1, -1)
        want = _np_gather(x, [rows, cols], -1.0)
        np.testing.assert_array_equal(z[16 * blk:16 * blk + 16], want, err_msg=str(blk))


def test_load_at_u32_offsets_do_not_wrap() -> None:
    z, x, _ = on_interpreter(_load_at_u32)
    for blk, off in enumerate(U32_OFFS.tolist()):
        pos = np.arange(16) + off
        want = np.where(pos < 100, x[np.minimum(pos, 99)], -2.0)
        np.testing.assert_array_equal(z[16 * blk:16 * blk + 16], want, err_msg=str(off))


def test_scatter_on_interpreter() -> None:
    y, idx, v = on_interpreter(_scatter_perm)
    want = np.zeros(70, np.float32)
    for i, val in zip(idx.tolist(), v.tolist(), strict=True):
        if 0 <= i < 70 and val > 0:
            want[i] = val
    np.testing.assert_array_equal(y, want)
    (y2, rows) = on_interpreter(_scatter_2d)
    want2 = np.zeros((10, 6), np.int32)
    for r in rows.tolist():
        if 0 <= r < 10:
            want2[r, :6] = 3
    np.testing.assert_array_equal(y2, want2)


def test_gather_after_scatter_in_a_loop() -> None:
    y, rows = on_interpreter(_scatter_count)
    flat = rows.ravel()
    want = np.bincount(flat[(flat >= 0) & (flat < 20)], minlength=20)
    np.testing.assert_array_equal(y, want)


def _gather_empty() -> list[np.ndarray]:
    zs = [ct.zeros((64,), f32).partition((64,)), ct.zeros((64,), f16).partition((64,))]
    a = ct.from_numpy(np.arange(64, dtype=np.int64))
    b = ct.from_numpy(np.arange(64, dtype=np.uint32))
    c = ct.from_numpy(np.zeros(64, np.int8))
    return host(gather_edges(*zs, ct.zeros((0,), f32), ct.zeros((0,), f16), a, b, c).sync())


def test_gather_from_an_empty_tensor_reads_padding() -> None:
    z, w, *_ = on_interpreter(_gather_empty)
    assert (z == -np.inf).all() and np.isnan(w).all()


def test_lowers_and_assembles(compiler: KernelCompiler) -> None:
    texts = assemble(compiler, __file__, CASES)
    for text in texts[:4]:
        assert "load_ptr_tko" in text and "offset" in text
    for text in texts[4:]:
        assert "store_ptr_tko" in text


@pytest.mark.gpu
def test_gpu_matches_interpreter(on_cuda: object) -> None:
    for run in (_gather_rows, _gather_edges, _load_at, _load_at_u32, _scatter_perm,
                _scatter_2d, _scatter_count, _gather_empty):
        same(run(), on_interpreter(run))


BAD = '''
import cutile as ct
from cutile import Mut, Tensor, f32, i32


@ct.kernel
def bad_scatter(z: Mut[Tensor[f32, (16,)]], y: Tensor[f32, (-1,)], i: Tensor[i32, (-1,)]) -> None:
    t = ct.load_tile_like(y, z)
    ct.scatter(y, (ct.load_tile_like(i, z),), t)
    z.store(t)


@ct.kernel
def bad_gather(z: Mut[Tensor[f32, (16,)]], y: Tensor[f32, (-1, -1)], i: Tensor[i32, (-1,)]) -> None:
    z.store(ct.gather(y, ct.load_tile_like(i, z)))


@ct.kernel
def bad_padding(z: Mut[Tensor[i32, (16,)]], i: Tensor[i32, (-1,)]) -> None:
    z.store(i.load_at((16,), (3,), padding=0.5))
'''


@pytest.mark.parametrize(("name", "code"), [("bad_scatter", "CT112"), ("bad_gather", "CT203"),
                                            ("bad_padding", "CT214")])
def test_run_time_gives_the_edit_time_code(tmp_path: Path, name: str, code: str) -> None:
    from cutile.compiler import check_source
    from cutile.diagnostics.errors import KernelError

    path = tmp_path / "bad_gathers.py"
    path.write_text(BAD)
    edit = [(d.code, d.span.line) for d in check_source(BAD, str(path))
            if d.span.line > BAD[:BAD.index(f"def {name}")].count("\n")][:1]
    spec = importlib.util.spec_from_file_location("bad_gathers", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    dtype = i32 if name == "bad_padding" else f32
    args: list[Any] = [ct.zeros((16,), dtype).partition((16,))]
    if name != "bad_padding":
        args.append(ct.zeros((4, 4) if name == "bad_gather" else (16,), f32))
    args.append(ct.zeros((16,), i32))
    with pytest.raises(KernelError) as err:
        on_interpreter(lambda: getattr(mod, name)(*args).sync())
    run = [(d.code, d.span.line) for d in err.value.diagnostics]
    assert edit == [(code, edit[0][1])] and run == edit
