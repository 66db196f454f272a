"""CT202 in each form a dtype mix takes, and what --fix --unsafe-fixes makes of it: the operand
that converts without loss is widened; a mix with no such direction (f32 and i32) is left alone
(the editor offers both conversions)."""

import cutile as ct
from cutile import Mut, Tensor, f16, f32, i32

@ct.kernel
def binary(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], h: Tensor[f16, (-1,)]) -> None:
    a, b = ct.load_tile_like(x, z), ct.load_tile_like(h, z)
    z.store(a + b)  # E: CT202


@ct.kernel
def narrow_left(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], h: Tensor[f16, (-1,)]) -> None:
    a, b = ct.load_tile_like(x, z), ct.load_tile_like(h, z)
    z.store(b * a)  # E: CT202


@ct.kernel
def compare(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], h: Tensor[f16, (-1,)]) -> None:
    a, b = ct.load_tile_like(x, z), ct.load_tile_like(h, z)
    z.store(ct.where(a < b, a, 0.0))  # E: CT202


@ct.kernel
def augmented(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], h: Tensor[f16, (-1,)]) -> None:
    a, b = ct.load_tile_like(x, z), ct.load_tile_like(h, z)
    a += b  # E: CT202
    z.store(a)


@ct.kernel
def call(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], h: Tensor[f16, (-1,)]) -> None:
    a, b = ct.load_tile_like(x, z), ct.load_tile_like(h, z)
    z.store(ct.maximum(b, a))  # E: CT202


@ct.kernel
def branches(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], h: Tensor[f16, (-1,)]) -> None:
    a, b = ct.load_tile_like(x, z), ct.load_tile_like(h, z)
    z.store(ct.where(a > 0.0, a, b))  # E: CT202


@ct.kernel
def conditional(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], h: Tensor[f16, (-1,)],
                s: f32) -> None:
    a, b = ct.load_tile_like(x, z), ct.load_tile_like(h, z)
    z.store(a if s > 0.0 else b)  # E: CT202


@ct.kernel
def concatenated(z: Mut[Tensor[f32, (128,)]], x: Tensor[f32, (-1,)],
                 h: Tensor[f16, (-1,)]) -> None:
    z.store(ct.cat((x.load_tile((64,), 0), h.load_tile((64,), 0))))  # E: CT202


@ct.kernel
def parenthesized(z: Mut[Tensor[f32, (64,)]], h: Tensor[ct.f16, (-1,)]) -> None:
    z.store(z.load() + (ct.load_tile_like(h, z) * 2))  # E: CT202


@ct.kernel
def no_exact_direction(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)],
                       n: Tensor[i32, (-1,)]) -> None:
    z.store(ct.load_tile_like(x, z) * ct.load_tile_like(n, z))  # E: CT202
