"""Python literals and Const ints take the dtype of the tile they meet."""
import math

import numpy as np

import cutile as ct
from cutile import Const, Mut, Tensor, f16, f32, i8, i32, u8


@ct.kernel
def literals(h: Mut[Tensor[f16, (64,)]], b: Mut[Tensor[i8, (64,)]], z: Mut[Tensor[f32, (64,)]],
             y: Tensor[f16, (-1,)], N: Const[int], S: Const[float]) -> None:
    t = ct.load_tile_like(y, h)
    h.store(t * 2.0 + 1 - t / 3)
    h.store(t * N + N)
    h.store(t * S)
    small = t.astype(i8)
    b.store(small + 1 - 127 + small * -2)
    b.store(small * N)
    z.store(t.astype(f32) / N + (N * 2 - 1) + N // 2)


@ct.kernel
def infinities(z: Mut[Tensor[f32, (64,)]], y: Tensor[f32, (-1,)]) -> None:
    t = ct.load_tile_like(y, z, padding=-np.inf)  # NumPy's constants, and float("...") texts
    m = ct.maximum(ct.where(t > 0, t, float("-inf")), -np.inf)
    z.store(ct.where(ct.isnan(m), np.nan, m) * np.pi + float("1e-6") + np.e)


@ct.kernel
def not_a_number(z: Mut[Tensor[f32, (64,)]], y: Tensor[f32, (-1,)]) -> None:
    t = ct.load_tile_like(y, z)
    z.store(t + float("ten"))  # E: CT104 "'float' cannot be called"
    z.store(t * math.sqrt(64))  # a compile-time number: folded, as at the host
    z.store(t * np.exp(t))  # E: CT104 "use ct.exp(...)"


@ct.kernel
def bad(b: Mut[Tensor[i8, (64,)]], y: Tensor[f16, (-1,)], S: Const[float]) -> None:
    small = ct.load_tile_like(y, b).astype(i8)
    c = small + 1000  # E: CT214 "1000 does not fit in i8"
    d = small * 0.5  # E: CT214 "float literal 0.5"
    e = small.astype(u8) + -1  # E: CT214
    f = small.astype(i32) + 2**31  # E: CT214
    g = small * S  # E: CT214
    b.store(c + d + e + f + g)
