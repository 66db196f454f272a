"""Kernels the runtime tests launch (they must live in a file: the frontend reads source)."""

import cutile as ct
from cutile import Const, Mut, Tensor, bf16, f16, f32, i32


@ct.kernel
def add(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], y: Tensor[f32, (-1,)],
        B: Const[int]) -> None:
    z.store(ct.load_tile_like(x, z) + ct.load_tile_like(y, z))


@ct.kernel
def scale(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], s: f32, B: Const[int]) -> None:
    z.store(ct.load_tile_like(x, z) * s)


@ct.kernel
def inc(z: Mut[Tensor[f32, ("B",)]], B: Const[int]) -> None:
    z.store(z.load() + 1.0)


@ct.kernel
def two_outputs(a: Mut[Tensor[f32, (16, "N")]], b: Mut[Tensor[f32, (16,)]],
                x: Tensor[f32, (-1, -1)], N: Const[int]) -> None:
    t = ct.load_tile_like(x, a)
    a.store(t)
    b.store(ct.sum(t, 1))


@ct.kernel
def fixed(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (256,)]) -> None:
    z.store(ct.load_tile_like(x, z))


@ct.kernel
def needs_const(z: Mut[Tensor[f32, (64,)]], K: Const[int]) -> None:
    z.store(ct.full((64,), K, f32))


@ct.kernel
def const_defaults(z: Mut[Tensor[f32, ("B",)]], B: Const[int] = 32, K: Const[int] = 3,
                   S: Const[float] = 0.5) -> None:
    z.store(ct.full((B,), K, f32) * S + B)


@ct.kernel
def matmul(c: Mut[Tensor[f32, ("BM", "BN")]], a: Tensor[f16, (-1, -1)],
           b: Tensor[f16, (-1, -1)], BM: Const[int], BN: Const[int], BK: Const[int]) -> None:
    i, j = c.tile_index()
    acc = ct.zeros((BM, BN), f32)
    pa = a.partition((BM, BK))
    for k in range(ct.num_tiles(pa, 1)):
        acc = ct.mma(pa.load((i, k)), b.load_tile((BK, BN), (k, j)), acc)
    c.store(acc)


@ct.kernel
def where_tile(z: Mut[Tensor[i32, ("BM", "BN")]], BM: Const[int], BN: Const[int]) -> None:
    i, j = z.tile_index()
    z.store(ct.full((BM, BN), i * 100 + j, i32))


@ct.kernel
def persistent_copy(z: Mut[Tensor[f32, (16,)]], x: Tensor[f32, (-1,)]) -> None:
    for zt in z.tiles():
        zt.store(x.load_tile((16,), zt.tile_index()) + 1.0)


@ct.kernel
def to_half(z: Mut[Tensor[f16, ("B",)]], w: Mut[Tensor[bf16, ("B",)]], x: Tensor[f32, (-1,)],
            B: Const[int]) -> None:
    t = ct.load_tile_like(x, z)
    z.store(t.astype(f16))
    w.store(t.astype(bf16))


@ct.kernel
def rowsum(z: Mut[Tensor[f32, ("B", 1)]], x: Tensor[f32, (-1, 64)], B: Const[int]) -> None:
    t = x.load_tile((B, 64), (ct.block_id(0), 0))
    z.store(ct.sum(t, 1, keepdims=True))


@ct.kernel
def pair(a: Mut[Tensor[f32, ("B",)]], b: Mut[Tensor[f32, ("B",)]], B: Const[int]) -> None:
    a.store(ct.full((B,), 1.0, f32))
    b.store(ct.full((B,), 2.0, f32))


@ct.kernel
def shift(z: Mut[Tensor[i32, ("B",)]], s: i32, B: Const[int]) -> None:
    z.store(z.load() + s)


@ct.kernel
def persistent_inc(z: Mut[Tensor[f32, (1,)]]) -> None:
    for zt in z.tiles():
        zt.store(zt.load() + 1.0)


@ct.kernel
def persistent_scale2d(z: Mut[Tensor[f32, (2, 4)]], x: Tensor[f32, (-1, -1)]) -> None:
    for zt in z.tiles():
        i, j = zt.tile_index()
        zt.store(ct.load_tile_like(x, zt) * 2.0 + ct.full((2, 4), 0.0, f32) * (i + j).astype(f32))


# the slab's static facts read before the loop (Liger's persistent RMSNorm backward sizes its
# register accumulator so): no slab is reached there
@ct.kernel
def persistent_running_sum(z: Mut[Tensor[f32, (1, "N")]], x: Tensor[f32, (-1, "N")],
                           N: Const[int]) -> None:
    TN = z.tile_shape[1]
    rows = z.shape[0]
    acc = ct.zeros((1, TN), f32)
    for zt in z.tiles():
        acc = acc + ct.load_tile_like(x, zt) * rows
        zt.store(acc)



# several outputs of a persistent kernel walked together: a row of y with its mean and rstd
@ct.kernel
def persistent_layer_norm(y: Mut[Tensor[f32, (1, "N")]], mean: Mut[Tensor[f32, (1, 1)]],
                          rstd: Mut[Tensor[f32, (1, 1)]], x: Tensor[f32, (-1, "N")],
                          N: Const[int]) -> None:
    for yt, mt, rt in zip(y.tiles(), mean.tiles(), rstd.tiles(), strict=True):
        row = ct.load_tile_like(x, yt)
        mu = ct.sum(row, 1, keepdims=True) / N
        d = ct.where(ct.arange(yt.tile_shape[1], i32).reshape((1, yt.tile_shape[1])) < N,
                     row - mu, 0.0)
        r = 1.0 / ct.sqrt(ct.sum(d * d, 1, keepdims=True) / N + 1e-5)
        yt.store(d * r)
        mt.store(mu)
        rt.store(r)

@ct.kernel
def persistent_old_form(z: Mut[Tensor[f32, (1,)]]) -> None:
    for idx in z.tiles():
        z.store(z.load() + 1.0, idx)


@ct.function
def _bump(z):  # type: ignore[no-untyped-def]
    z.store(z.load() + 1.0)


@ct.kernel
def inc_via_helper(z: Mut[Tensor[f32, (16,)]]) -> None:
    _bump(z)


@ct.kernel
def two_rank5(a: Mut[Tensor[f32, (1, 1, 1, 1, 1)]], b: Mut[Tensor[f32, (1, 1, 1, 1, 1)]]
              ) -> None:
    a.store(ct.zeros((1, 1, 1, 1, 1), f32))
    b.store(ct.zeros((1, 1, 1, 1, 1), f32))


@ct.kernel
def rank4_rank3(a: Mut[Tensor[f32, (1, 1, 1, 4)]], b: Mut[Tensor[f32, (1, 1, 1)]],
                x: Tensor[f32, (-1, -1, -1)]) -> None:
    """Tile grids (g0, g1, g2, 1) and (g0, g1, g2): one block per (i, j, k) for both."""
    t = ct.load_tile_like(x, b)
    a.store(ct.broadcast_to(t.reshape((1, 1, 1, 1)), (1, 1, 1, 4)))
    b.store(t)
