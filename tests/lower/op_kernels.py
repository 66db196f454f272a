"""Kernels covering every operation family of the lowering (compiled, never run on the CPU)."""

import cutile as ct
from cutile import (
    Const,
    Mut,
    Tensor,
    bf16,
    f8e4m3,
    f16,
    f32,
    f64,
    i8,
    i16,
    i32,
    i64,
    tf32,
    u8,
    u32,
)


@ct.kernel
def float_math(z: Mut[Tensor[f32, (64, 32)]], x: Tensor[f32, (-1, -1)],
               y: Tensor[f32, (-1, -1)], s: f32) -> None:
    a = ct.load_tile_like(x, z)
    b = ct.load_tile_like(y, z)
    t = (a + b) * s - a / b + a ** b + a // b + a % b
    t = t + ct.maximum(a, b) + ct.minimum(a, b) - (-a) + ct.abs(b)
    t = t + ct.exp(a) + ct.exp2(a) + ct.log(b) + ct.log2(b) + ct.sqrt(b) + ct.rsqrt(b)
    t = t + ct.sin(a) + ct.cos(a) + ct.tanh(a) + ct.floor(a) + ct.ceil(a)
    c = (a < b) & (a <= b) | (a > b) ^ (a >= b)
    c = c | (a == b) | (a != b)
    z.store(ct.where(c, t * a, 0.0))  # a product no add absorbs: mulf


@ct.kernel
def int_math(z: Mut[Tensor[i32, (128,)]], x: Tensor[i32, (-1,)], y: Tensor[i32, (-1,)],
             u: Tensor[u32, (-1,)], n: i32) -> None:
    a = ct.load_tile_like(x, z)
    b = ct.load_tile_like(y, z)
    w = ct.load_tile_like(u, z)
    t = a + b - a * b + a // b + a % b + (a & b) + (a | b) + (a ^ b) + (a << 2) + (a >> 1)
    t = t + ct.maximum(a, b) + ct.minimum(a, b) + (-a) + ct.abs(b) + (~a) + n
    q = (w // 3 + w % 5 + (w >> 2) + ct.maximum(w, w + 1)).astype(i32)
    c0 = a > n
    c = (a < b) | (a >= n) | ((w > 7) & ~(a == b)) | (a != b) | (not c0)
    z.store(ct.where(c, t + q, a))


@ct.kernel
def casts(z: Mut[Tensor[f32, (128,)]], h: Tensor[f16, (-1,)], b: Tensor[bf16, (-1,)],
          c: Tensor[i8, (-1,)], d: Tensor[u8, (-1,)], e: Tensor[i64, (-1,)]) -> None:
    th = ct.load_tile_like(h, z)
    tb = ct.load_tile_like(b, z)
    f = th.astype(f32) + tb.astype(f32)
    back = f.astype(bf16).astype(f16).astype(f32)
    i = ct.load_tile_like(c, z).astype(i32) + ct.load_tile_like(d, z).astype(i32)
    wide = ct.load_tile_like(e, z)
    narrow = wide.astype(i16).astype(i32) + wide.astype(i32)
    flag = (i > 0).astype(f32) + f.astype(ct.bool_).astype(f32) + i.astype(ct.bool_).astype(f32)
    z.store(back + i.astype(f32) + narrow.astype(f32) + f.astype(i32).astype(f32) + flag
            + d.load_tile((128,), 0).astype(f32) + f.astype(tf32).astype(f32))


@ct.kernel
def reductions(z: Mut[Tensor[f32, (16, 64)]], x: Tensor[f32, (-1, -1)],
               h: Tensor[f16, (-1, -1)], k: Tensor[i32, (-1, -1)]) -> None:
    t = ct.load_tile_like(x, z)
    th = ct.load_tile_like(h, z)
    ti = ct.load_tile_like(k, z)
    rows = ct.sum(t, 1, keepdims=True) + ct.max(t, 1, keepdims=True) + ct.min(t, 1,
                                                                             keepdims=True)
    rows = rows + ct.prod(t, 1, keepdims=True) + ct.sum(th, 1, keepdims=True).astype(f32)
    cols = ct.sum(t, 0) + ct.max(ti, 0).astype(f32) + ct.min(ti, 0).astype(f32)
    ints = ct.sum(ti, axis=1, keepdims=True).astype(f32)
    scan = ct.cumsum(t, 1) + ct.cumsum(ti, 0).astype(f32) + ct.cumsum(th, 1).astype(f32)
    z.store(scan + rows + cols.reshape((1, 64)) + ints)


@ct.kernel
def shapes(z: Mut[Tensor[f32, (4, 8, 16)]], x: Tensor[f32, (-1, -1, -1)]) -> None:
    t = ct.load_tile_like(x, z)
    p = ct.permute(t, (2, 0, 1))
    flat = p.reshape((16, 32))
    tt = flat.transpose().reshape((4, 8, 16))
    half = x.load_tile((2, 8, 16), (0, 0, 0))
    both = ct.cat((half, half), 0)
    r = ct.arange(16, i32).astype(f32)
    e = ct.expand_dims(ct.expand_dims(r, 0), 0)
    z.store(tt + both + ct.broadcast_to(e, (4, 8, 16)) + ct.full((4, 8, 16), 2.0, f32))


@ct.kernel
def matmuls(z: Mut[Tensor[f32, (64, 64)]], a16: Tensor[f16, (-1, -1)],
            b16: Tensor[f16, (-1, -1)], a8: Tensor[i8, (-1, -1)], b8: Tensor[i8, (-1, -1)],
            af: Tensor[f32, (-1, -1)], bf: Tensor[bf16, (-1, -1)],
            a_e4: Tensor[f8e4m3, (-1, -1)]) -> None:
    i, j = z.tile_index()
    ta = a16.load_tile((64, 32), (i, 0))
    tb = b16.load_tile((32, 64), (0, j))
    acc = ct.mma(ta, tb, ct.zeros((64, 64), f32))
    acc16 = ct.mma(ta, tb, ct.zeros((64, 64), f16)).astype(f32)
    ti = ct.mma(a8.load_tile((64, 32), (i, 0)), b8.load_tile((32, 64), (0, j)),
                ct.zeros((64, 64), i32)).astype(f32)
    fa = af.load_tile((64, 32), (i, 0))
    tf = ct.mma(fa, fa.transpose().reshape((32, 64)), ct.zeros((64, 64), f32))
    tbf = bf.load_tile((64, 32), (i, 0))
    ab = tbf @ tbf.transpose()
    e4 = a_e4.load_tile((64, 32), (i, 0))
    f8 = ct.mma(e4, e4.transpose(), ct.zeros((64, 64), f32))
    f8 = ct.mma(e4, e4.transpose(), f8, fast_acc=True)
    z.store(acc + acc16 + ti + tf + ab.astype(f32) + f8)


@ct.kernel
def doubles(z: Mut[Tensor[f64, (16, 16)]], x: Tensor[f64, (-1, -1)]) -> None:
    t = ct.load_tile_like(x, z)
    z.store(ct.mma(t, t, t) + ct.sqrt(ct.abs(t)))


@ct.kernel
def control(z: Mut[Tensor[i32, ("B",)]], x: Tensor[i32, (-1,)], n: i32,
            B: Const[int]) -> None:
    t = ct.load_tile_like(x, z)
    i = 0
    while i < n:
        t = t + 1
        i += 1
    for j in range(n):
        if j > 3:
            break
        if j == 1:
            continue
        t = t * 2
    if n > 5:
        t = t - 1
    elif n > 2:
        t = t + 7
    else:
        t = t * 3
    z.store(t)


@ct.kernel
def mut_roundtrip(z: Mut[Tensor[f32, (32, 32)]], x: Tensor[f32, (-1, -1)], n: i32) -> None:
    z.store(ct.load_tile_like(x, z))
    for _ in range(n):
        z.store(z.load() * 2.0)  # each load sees the previous store (token chain)
    if n > 3:
        z.store(z.load() + 1.0)


@ct.kernel
def debug(z: Mut[Tensor[f32, (128,)]], x: Tensor[f32, (-1,)], n: i32) -> None:
    t = ct.load_tile_like(x, z)
    ct.printf("block %d of n=%d\n", ct.block_id(0), n)
    ct.device_assert(n > 0, "n must be positive")
    for k in range(n):
        ct.printf("k=%d\n", k)
    z.store(t)


@ct.kernel(pdl=True)
def dependent(z: Mut[Tensor[f32, (128,)]], w: Tensor[f32, (-1,)], x: Tensor[f32, (-1,)]) -> None:
    wt = ct.load_tile_like(w, z)
    ct.wait_for_predecessor()
    z.store(wt + ct.load_tile_like(x, z))


@ct.kernel
def partitions(z: Mut[Tensor[f32, (16, 16)]], x: Tensor[f32, (-1, -1)]) -> None:
    i, _ = z.tile_index()
    p = x.partition((16, 16))
    acc = ct.zeros((16, 16), f32)
    for k in range(ct.num_tiles(p, 1)):
        acc = acc + p.load((i, k))
    z.store(acc + (ct.num_blocks(0) + ct.block_id(1)).astype(f32))


@ct.kernel
def cube(z: Mut[Tensor[f32, (2, 4, 8)]], x: Tensor[f32, (-1, -1, -1)]) -> None:
    a, b, c = z.tile_index()
    z.store(ct.load_tile_like(x, z) + (a + b + c).astype(f32))


@ct.kernel(occupancy=2, num_ctas=1, opt_level=2)
def hinted(z: Mut[Tensor[f32, (128,)]], x: Tensor[f32, (-1,)]) -> None:
    z.store(ct.load_tile_like(x, z) * 3.0)


@ct.kernel
def two_partitions(z: Mut[Tensor[f32, (16, 16)]], x: Tensor[f32, (-1, -1)]) -> None:
    small = x.partition((16, 16))
    wide = x.partition((16, 64))
    n = ct.num_tiles(small, 1) * 100 + ct.num_tiles(wide, 1)
    z.store(ct.full((16, 16), 1.0, f32) * n.astype(f32))


@ct.kernel
def slabs(z: Mut[Tensor[f32, (3, 100)]], w: Mut[Tensor[f32, (1, -1)]],
          x: Tensor[f32, (-1, -1)]) -> None:
    # A slab larger than a tile: whole (a (4, 128) tile), a tile inside it, a dynamic extent.
    t = z.load(padding=-1.0)
    z.store(t + ct.sum(z.load((4, 64), (0, 1)), 1, keepdims=True))
    n = w.shape[1]
    for j in range(ct.cdiv(n, 64)):
        w.store(w.load((1, 64), (0, j)) + 1.0, (0, j))
