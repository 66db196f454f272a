import cutile as ct
from cutile import Acc, Const, Mut, Tensor, bf16, f16, f32, f64, i32, i64, u32


@ct.kernel
def colsum(acc: Acc[Tensor[f32, ("BN",)], "add"], x: Tensor[f32, (-1, "BN")],
           BM: Const[int], BN: Const[int]) -> None:
    t = x.load_tile((BM, BN), (ct.block_id(0), 0))
    acc.add(ct.sum(t, 0), (0,))


@ct.kernel
def histogram(h: Acc[Tensor[i32, (-1,)], "add"], x: Tensor[i32, (-1,)], B: Const[int]) -> None:
    v = x.load_tile((B,), (ct.block_id(0),), padding=-1)
    h.add_at((v,), 1)
    h.add_at(v, ct.full((B,), 2, i32))


@ct.kernel
def scatter2d(acc: Acc[Tensor[f64, (-1, -1)], "max"], x: Tensor[f64, (-1,)],
              rows: Tensor[i64, (-1,)], B: Const[int]) -> None:
    bx = ct.block_id(0)
    r = rows.load_tile((B,), (bx,))
    v = x.load_tile((B,), (bx,))
    acc.max_at((r.reshape((B, 1)), ct.arange(4, i32).reshape((1, 4))), v.reshape((B, 1)))
    acc.max(v.reshape((B, 1)), (bx, 0))


@ct.kernel
def bits(a: Acc[Tensor[u32, (-1,)], "or"], b: Acc[Tensor[i64, (-1,)], "xor"],
         c: Acc[Tensor[i32, (-1,)], "and"], d: Acc[Tensor[f32, (-1,)], "min"],
         x: Tensor[u32, (-1,)], B: Const[int]) -> None:
    t = x.load_tile((B,), (ct.block_id(0),))
    a.or_(t, (0,))
    a.or_at(t.astype(i32), t)
    b.xor(t.astype(i64), (0,))
    b.xor_at((t,), 1)
    c.and_(t.astype(i32), (1,))
    c.and_at((t,), -1)
    d.min(t.astype(f32), (0,))
    d.min_at(t, 0.5)


@ct.kernel
def halves(a: Acc[Tensor[f16, (-1,)], "add"], b: Acc[Tensor[bf16, (-1,)], "add"],
           z: Mut[Tensor[f32, (16,)]], x: Tensor[f32, (-1,)]) -> None:
    t = ct.load_tile_like(x, z)
    a.add(t.astype(f16), (0,))
    b.add(t.astype(bf16), z.tile_index())
    z.store(t)
