"""`latency=` and `allow_tma=` on loads reach tileiras as load_view_tko's optimization hints and
change what it builds (the pinned tileiras, sm_90): more TMA stages for a longer latency, no
TMA staging without it. On the interpreter they change nothing."""


import numpy as np

import cutile as ct
from cutile import Const, Mut, Tensor, bf16, f32
from cutile.compiler.toolchain import KernelCompiler


@ct.kernel
def gemv(y: Mut[Tensor[f32, (1, "BN")]], x: Tensor[f32, (1, -1)], w: Tensor[bf16, (-1, -1)],
         BN: Const[int], BK: Const[int], LAT: Const[int], TMA: Const[bool]) -> None:
    _, j = y.tile_index()
    px = x.partition((1, BK))
    pw = w.partition((BN, BK))
    acc = ct.zeros((BN, BK), f32)
    for k in range(ct.num_tiles(pw, 1)):
        wt = pw.load((j, k), latency=LAT, allow_tma=TMA).astype(f32)
        acc = acc + wt * px.load((0, k), latency=LAT, allow_tma=TMA)
    y.store(ct.sum(acc, 1).reshape((1, BN)))


@ct.kernel
def plain(y: Mut[Tensor[f32, (1, "BN")]], x: Tensor[f32, (1, -1)], w: Tensor[bf16, (-1, -1)],
          BN: Const[int], BK: Const[int]) -> None:
    _, j = y.tile_index()
    acc = ct.zeros((BN, BK), f32)
    for k in range(ct.num_tiles(w.partition((BN, BK)), 1)):
        acc = acc + w.load_tile((BN, BK), (j, k)).astype(f32) * x.load_tile((1, BK), (0, k))
    y.store(ct.sum(acc, 1).reshape((1, BN)))


def _metas(n: int = 9728, k: int = 2560) -> tuple[object, object, object]:
    return (ct.meta((1, n), f32).partition((1, 32)), ct.meta((1, k), f32),
            ct.meta((n, k), bf16))


def test_hints_change_nothing_on_the_interpreter() -> None:
    rng = np.random.default_rng(0)
    w = ct.from_numpy(rng.standard_normal((64, 256)).astype(np.float32), bf16)
    x = ct.from_numpy(rng.standard_normal((1, 256)).astype(np.float32))
    y, x, w = gemv(ct.zeros((1, 64), f32).partition((1, 32)), x, w, BK=128, LAT=8,
                   TMA=False).sync()
    want = w.numpy().astype(np.float64) @ x.numpy()[0]
    np.testing.assert_allclose(y.unpartition().numpy()[0], want, rtol=1e-4, atol=1e-4)


def test_the_hints_are_in_the_module(compiler: KernelCompiler) -> None:
    c = gemv.compile(*_metas(256, 512), arch="sm_90", BK=128, LAT=7, TMA=False)
    assert "optimization_hints = <default = {allow_tma = false, latency = 7}>" in c.tileir
    assert "optimization_hints" not in plain.compile(*_metas(256, 512), arch="sm_90",
                                                     BK=128).tileir


def test_latency_buys_tma_stages_and_allow_tma_false_drops_them(
        compiler: KernelCompiler) -> None:
    """A bf16 GEMV with 32x128 weight tiles at occupancy 3, both loads hinted: tileiras keeps
    about 3 tiles in flight at latency 1 and 9 at latency 8 (27 and 73 KiB of shared memory
    with tileiras 13.4; hinting the weight load alone gave it less, 10 KiB)."""
    kernel = gemv.with_hints(occupancy=3)
    smem = {(lat, tma): kernel.compile(*_metas(), arch="sm_90", BK=128, LAT=lat,
                                       TMA=tma).resources.shared_bytes
            for lat, tma in ((1, True), (8, True), (8, False))}
    assert smem[(8, True)] > 2 * smem[(1, True)], smem
    assert smem[(8, False)] < 4096, smem
