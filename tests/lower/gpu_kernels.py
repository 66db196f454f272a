"""Extra kernels for the GPU check: an f16 GEMM in column-major tile order (the examples' GEMMs
are bf16), a Mut slab read back after stores (token ordering) and fma contraction."""

import cutile as ct
from cutile import Const, Mut, Tensor, f16, f32, i32


@ct.kernel
def gemm_f16(c: Mut[Tensor[f16, ("BM", "BN")]], a: Tensor[f16, (-1, -1)],
             b: Tensor[f16, (-1, -1)], BM: Const[int], BN: Const[int], BK: Const[int]) -> None:
    i, j = c.tile_index()
    pa = a.partition((BM, BK))
    pb = b.partition((BK, BN))
    acc = ct.zeros((BM, BN), f32)
    for k in range(ct.num_tiles(pa, 1)):
        acc = ct.mma(pa.load((i, k)), pb.load((k, j)), acc)
    c.store(acc.astype(f16))


@ct.kernel
def reread(z: Mut[Tensor[f32, (32, 32)]], x: Tensor[f32, (-1, -1)], n: i32) -> None:
    z.store(ct.load_tile_like(x, z))
    for _ in range(n):
        z.store(z.load() * 2.0)
    if n > 3:
        z.store(z.load() + 1.0)


@ct.kernel
def fma_residual(z: Mut[Tensor[f32, (64, 32)]], x: Tensor[f32, (-1, -1)],
                 y: Tensor[f32, (-1, -1)], p: Tensor[f32, (-1, -1)]) -> None:
    """With p = fl(x * y), a contracted x * y - p is the product's exact rounding error."""
    a, b = ct.load_tile_like(x, z), ct.load_tile_like(y, z)
    z.store(a * b - ct.load_tile_like(p, z))


@ct.kernel
def fma_mix(z: Mut[Tensor[f32, (64, 32)]], h: Mut[Tensor[f16, (64, 32)]],
            x: Tensor[f32, (-1, -1)], col: Tensor[f32, (-1, 1)], row: Tensor[f32, (1, -1)],
            hx: Tensor[f16, (-1, -1)], s: f32) -> None:
    """Contracted with broadcast operands, a 0-d product, both subtraction forms and f16."""
    i, j = z.tile_index()
    a = ct.load_tile_like(x, z)
    c = col.load_tile((64, 1), (i, 0))
    r = row.load_tile((1, 32), (0, j))
    t = a * r - c
    u = c - a * s
    z.store(t + u * (s * s + 1.0))
    e = ct.load_tile_like(hx, z)
    h.store(e * e + e)
