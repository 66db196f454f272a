"""Narrow float formats NumPy lacks (bf16, f8e4m3, f8e5m2, tf32): rounding and bit patterns.

Host storage keeps the device's bytes: bf16 as uint16 bit patterns, f8 as uint8 bit patterns,
tf32 as float32 (its low 13 mantissa bits zero). Values convert through float32 with
round-to-nearest-even, as the GPU's conversions do.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from numpy.typing import NDArray

F32Array = NDArray[np.float32]


def to_f32_odd(values: object) -> F32Array:
    """Values as float32 rounded to odd: an inexact result keeps its last bit set. Rounding
    that to a narrower format (bf16, tf32) to nearest even then equals rounding the wide value
    directly; going through float32 to nearest would round twice (a float64 just above a bf16
    midpoint would land on it and then round to even, the wrong way)."""
    wide = np.asarray(values)
    if wide.dtype == np.float32 or wide.dtype.kind not in "fiu":
        return np.asarray(wide, dtype=np.float32)
    wide = wide.astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        near = wide.astype(np.float32)
        inexact = (near.astype(np.float64) != wide) & np.isfinite(wide) & np.isfinite(near)
    bits = near.view(np.uint32)
    even = (bits & np.uint32(1)) == 0
    toward = np.where(wide > near, np.float32(np.inf), np.float32(-np.inf))
    return np.where(inexact & even, np.nextafter(near, toward), near).astype(np.float32)


def f32_to_bf16_bits(values: NDArray[np.generic]) -> NDArray[np.uint16]:
    bits = np.require(to_f32_odd(values), np.float32, "C").view(np.uint32)
    rounding = ((bits >> 16) & 1) + np.uint32(0x7FFF)
    out = ((bits + rounding) >> 16).astype(np.uint16)
    nan = np.isnan(bits.view(np.float32))
    return np.where(nan, np.uint16(0x7FC0), out).astype(np.uint16)


def bf16_bits_to_f32(bits: NDArray[np.uint16]) -> F32Array:
    wide = np.asarray(bits).astype(np.uint32)
    wide <<= 16  # in place: a 0-d input stays an array (a shift would make a scalar)
    return wide.view(np.float32)


def round_bf16(values: NDArray[np.generic]) -> F32Array:
    return bf16_bits_to_f32(f32_to_bf16_bits(values))


def round_tf32(values: NDArray[np.generic]) -> F32Array:
    """Keeps 10 mantissa bits (round to nearest even); the result is still float32."""
    narrow = to_f32_odd(values)
    bits = np.require(narrow, np.float32, "C").view(np.uint32)
    rounding = ((bits >> 13) & 1) + np.uint32(0xFFF)
    out = ((bits + rounding) & np.uint32(0xFFFFE000)).view(np.float32)
    return np.where(np.isnan(narrow), np.float32(np.nan), out).astype(np.float32)


@cache
def _f8_table(exp_bits: int, man_bits: int, ieee_inf: bool) -> F32Array:
    """The value of each of the 256 codes of an f8 format (OCP FP8: e4m3fn and e5m2)."""
    bias = 2 ** (exp_bits - 1) - 1
    values = np.empty(256, dtype=np.float32)
    for code in range(256):
        sign = -1.0 if code & 0x80 else 1.0
        e = (code >> man_bits) & ((1 << exp_bits) - 1)
        m = code & ((1 << man_bits) - 1)
        top = e == (1 << exp_bits) - 1
        if ieee_inf and top:
            values[code] = sign * np.inf if m == 0 else np.nan
        elif not ieee_inf and top and m == (1 << man_bits) - 1:
            values[code] = np.nan  # e4m3fn: only S.1111.111 is NaN; no infinities
        elif e == 0:
            values[code] = sign * m * 2.0 ** (1 - bias - man_bits)
        else:
            values[code] = sign * (1 + m / 2**man_bits) * 2.0 ** (e - bias)
    return values


FORMATS = {"f8e4m3": (4, 3, False), "f8e5m2": (5, 2, True)}


def f8_bits_to_f32(bits: NDArray[np.uint8], name: str) -> F32Array:
    codes = np.asarray(bits)
    # indexing with a flat array keeps a 0-d input an array (table[code] would be a scalar)
    return _f8_table(*FORMATS[name])[codes.reshape(-1)].reshape(codes.shape)


def f32_to_f8_bits(values: NDArray[np.generic], name: str) -> NDArray[np.uint8]:
    """Nearest code, ties to the even code; out of range and +-inf saturate to the largest
    finite value, as the GPU's conversions do (PTX converts to f8 only with `.satfinite`).
    Compared in float64, where every f8 value and every float32 or float64 input is exact, so
    a float64 input is rounded once (through float32 it would be rounded twice)."""
    table = _f8_table(*FORMATS[name]).astype(np.float64)
    codes = np.arange(128, dtype=np.uint8)
    finite = np.isfinite(table[:128])
    pos_codes, pos_vals = codes[finite], table[:128][finite]  # ascending with the code
    v = np.asarray(values, dtype=np.float64)
    mag = np.abs(v)
    hi = np.clip(np.searchsorted(pos_vals, mag), 0, len(pos_vals) - 1)
    lo = np.clip(hi - 1, 0, len(pos_vals) - 1)
    d_hi, d_lo = np.abs(pos_vals[hi] - mag), np.abs(mag - pos_vals[lo])
    pick_lo = (d_lo < d_hi) | ((d_lo == d_hi) & (pos_codes[lo] % 2 == 0))
    code = np.where(pick_lo, pos_codes[lo], pos_codes[hi])
    top = pos_vals[-1]
    half_ulp = (top - pos_vals[-2]) / 2
    over = mag > top + half_ulp
    code = np.where(over | np.isinf(v), pos_codes[-1], code)
    code = np.where(np.isnan(v), np.uint8(0x7F), code)
    sign = np.where(np.signbit(v), np.uint8(0x80), np.uint8(0))
    return (code | sign).astype(np.uint8)
