"""Kernels for the fma contraction tests (compiled, never run on the CPU)."""

import cutile as ct
from cutile import Mut, Tensor, bf16, f16, f32, f64, i32


@ct.kernel
def add_mul(z: Mut[Tensor[f32, (64, 32)]], x: Tensor[f32, (-1, -1)],
            y: Tensor[f32, (-1, -1)], w: Tensor[f32, (-1, -1)]) -> None:
    a, b, c = ct.load_tile_like(x, z), ct.load_tile_like(y, z), ct.load_tile_like(w, z)
    z.store(c + a * b)


@ct.kernel
def mul_sub(z: Mut[Tensor[f32, (64, 32)]], x: Tensor[f32, (-1, -1)],
            y: Tensor[f32, (-1, -1)], w: Tensor[f32, (-1, -1)]) -> None:
    a, b, c = ct.load_tile_like(x, z), ct.load_tile_like(y, z), ct.load_tile_like(w, z)
    z.store(a * b - c)


@ct.kernel
def sub_mul(z: Mut[Tensor[f32, (64, 32)]], x: Tensor[f32, (-1, -1)],
            y: Tensor[f32, (-1, -1)], w: Tensor[f32, (-1, -1)]) -> None:
    a, b, c = ct.load_tile_like(x, z), ct.load_tile_like(y, z), ct.load_tile_like(w, z)
    z.store(c - a * b)


@ct.kernel
def two_uses(z: Mut[Tensor[f32, (64, 32)]], x: Tensor[f32, (-1, -1)],
             y: Tensor[f32, (-1, -1)]) -> None:
    a, b = ct.load_tile_like(x, z), ct.load_tile_like(y, z)
    m = a * b
    z.store(m + a + m)


@ct.kernel
def not_fused(z: Mut[Tensor[f32, (64, 32)]], n: Mut[Tensor[i32, (64, 32)]],
              h: Tensor[f16, (-1, -1)], k: Tensor[i32, (-1, -1)]) -> None:
    a = ct.load_tile_like(h, z)
    z.store((a * a).astype(f32) + 1.0)  # the product is f16, the sum f32
    i = ct.load_tile_like(k, n)
    n.store(i * i + i)  # integers: muli + addi


@ct.kernel
def broadcasts(z: Mut[Tensor[f32, (64, 32)]], col: Tensor[f32, (-1, 1)],
               row: Tensor[f32, (1, -1)], s: f32, t: f32) -> None:
    c = col.load_tile((64, 1), (0, 0))
    r = row.load_tile((1, 32), (0, 0))
    full = c * r + r  # product of broadcast operands; the addend broadcast: (64, 32)
    outer = r * s - c  # the (1, 32) product is broadcast before the sub: not contracted
    z.store(full + outer + (s * t + 1.0))  # a 0-d product and a 0-d sum


@ct.kernel
def narrow_and_wide(a: Mut[Tensor[f16, (32,)]], b: Mut[Tensor[bf16, (32,)]],
                    d: Mut[Tensor[f64, (32,)]]) -> None:
    ha, hb, hd = a.load(), b.load(), d.load()
    a.store(ha * ha + ha)
    b.store(hb - hb * hb)
    d.store(hd * hd - hd)


@ct.kernel
def loops(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], n: i32) -> None:
    t = ct.load_tile_like(x, z)
    acc = ct.zeros((64,), f32)
    outside = t * t
    carried = t
    for _ in range(n):
        acc = acc * t + 1.0  # a loop-carried value through one fma
        acc = acc + outside  # the product is defined outside the loop: not contracted
        m = carried * t
        acc = acc + m
        carried = m  # the product is also carried: not contracted
    z.store(acc + carried)
