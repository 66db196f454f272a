"""Narrow float formats NumPy lacks (bf16, f8e4m3, f8e5m2, tf32, and the MX formats f4e2m1 and
f8e8m0 at the end): rounding and bit patterns.

Host storage keeps the device's bytes: bf16 as uint16 bit patterns, f8 as uint8 bit patterns,
tf32 as float32 (its low 13 mantissa bits zero). Values round to nearest even, once, as the GPU's
conversions do; out-of-range values become inf (bf16, tf32, f8e5m2) or NaN (f8e4m3).
"""

from __future__ import annotations

from functools import cache

import numpy as np
from numpy.typing import NDArray

from ..compiler.bytecode.floats import F8_OVERFLOW as BOUNDARIES
from ..compiler.bytecode.types import Scalar

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


# -- f8e4m3 (OCP e4m3fn) and f8e5m2 -------------------------------------------------------------
# THE conversion rule (host constructors, the interpreter's astype and the GPU's, see
# compiler/lower/arith.py): round to nearest, ties to even, on the value given (a float64 rounds
# once). A magnitude that rounds past the largest finite value is NaN in f8e4m3 (it has no
# infinity; |x| > 464, and 464 itself is a tie that goes to 448) and +-inf in f8e5m2
# (|x| >= 61440); +-inf likewise, keeping the sign: torch's and ml_dtypes' rule. NaN becomes the
# code 0x7F whatever its sign (torch keeps the sign; the GPU's conversion drops it, and the sign
# of a NaN from arithmetic differs between the CPU and the GPU anyway).
#
# NaN codes survive where the GPU keeps bytes (loads, stores, bitcasts, selects): an f8 NaN
# widened to float32 here carries its code in its payload (`_tagged`), and converting such a
# float32 back gives that code. Conversions drop it (runtime/interpreter/numeric.py `untag`).
F8_NAN = 0x7F
_TAG = 0x7FC00100  # quiet NaN, payload 0x100 | code: an f8 NaN code kept in a float32


def _tagged(code: int) -> float:
    bits = np.uint32(_TAG | code | (code & 0x80) << 24)
    return float(bits.view(np.float32))


@cache
def _f8_table(exp_bits: int, man_bits: int, ieee_inf: bool) -> F32Array:
    """The value of each of the 256 codes of an f8 format (OCP FP8: e4m3fn and e5m2); a NaN
    code is a NaN that carries the code."""
    bias = 2 ** (exp_bits - 1) - 1
    values = np.empty(256, dtype=np.float32)
    for code in range(256):
        sign = -1.0 if code & 0x80 else 1.0
        e = (code >> man_bits) & ((1 << exp_bits) - 1)
        m = code & ((1 << man_bits) - 1)
        top = e == (1 << exp_bits) - 1
        if ieee_inf and top:
            values[code] = sign * np.inf if m == 0 else _tagged(code)
        elif not ieee_inf and top and m == (1 << man_bits) - 1:
            values[code] = _tagged(code)  # e4m3fn: only S.1111.111 is NaN; no infinities
        elif e == 0:
            values[code] = sign * m * 2.0 ** (1 - bias - man_bits)
        else:
            values[code] = sign * (1 + m / 2**man_bits) * 2.0 ** (e - bias)
    return values


FORMATS = {"f8e4m3": (4, 3, False), "f8e5m2": (5, 2, True)}
# the smallest magnitude that overflows (rounds past the largest finite value), and whether that
# boundary itself overflows (the tie goes to the even code: 448 is even, 57344 odd): the
# lowering's and the constant folder's boundaries
F8_OVERFLOW = {name: BOUNDARIES[ty][:2] for name, ty in (("f8e4m3", Scalar.F8E4M3FN),
                                                        ("f8e5m2", Scalar.F8E5M2))}


def f8_bits_to_f32(bits: NDArray[np.uint8], name: str) -> F32Array:
    codes = np.asarray(bits)
    # indexing with a flat array keeps a 0-d input an array (table[code] would be a scalar)
    return _f8_table(*FORMATS[name])[codes.reshape(-1)].reshape(codes.shape)


def _kept_codes(values: NDArray[np.generic], name: str) -> NDArray[np.int16]:
    """The f8 NaN code a float32 NaN carries (see `_tagged`), else -1."""
    if np.asarray(values).dtype != np.float32:
        return np.full(np.shape(values), -1, np.int16)
    bits = np.require(values, np.float32, "C").view(np.uint32)
    code = (bits & np.uint32(0xFF)).astype(np.int16)
    table = _f8_table(*FORMATS[name])
    carried = ((bits & np.uint32(0x7FFFFF00)) == _TAG) & np.isnan(table[code])
    return np.where(carried, code, np.int16(-1)).astype(np.int16)


def f32_to_f8_bits(values: NDArray[np.generic], name: str) -> NDArray[np.uint8]:
    """The conversion rule above. Compared in float64, where every f8 value and every float32
    or float64 input is exact, so a float64 input is rounded once (through float32 it would be
    rounded twice)."""
    table = _f8_table(*FORMATS[name]).astype(np.float64)
    codes = np.arange(128, dtype=np.uint8)
    finite = np.isfinite(table[:128])
    pos_codes, pos_vals = codes[finite], table[:128][finite]  # ascending with the code
    kept = _kept_codes(values, name)
    with np.errstate(invalid="ignore"):  # NaN and inf: decided below
        v = np.asarray(values, dtype=np.float64)
        mag = np.abs(v)
        hi = np.clip(np.searchsorted(pos_vals, mag), 0, len(pos_vals) - 1)
        lo = np.clip(hi - 1, 0, len(pos_vals) - 1)
        d_hi, d_lo = np.abs(pos_vals[hi] - mag), np.abs(mag - pos_vals[lo])
        pick_lo = (d_lo < d_hi) | ((d_lo == d_hi) & (pos_codes[lo] % 2 == 0))
    code = np.where(pick_lo, pos_codes[lo], pos_codes[hi])
    limit, tie_overflows = F8_OVERFLOW[name]
    over = (mag >= limit) if tie_overflows else (mag > limit)  # +-inf included
    code = np.where(over, np.uint8(0x7C if FORMATS[name][2] else F8_NAN), code)
    sign = np.where(np.signbit(v), np.uint8(0x80), np.uint8(0))
    code = np.where(np.isnan(v), np.uint8(F8_NAN), code | sign)
    return np.where(kept >= 0, kept, code).astype(np.uint8)


def untag(values: F32Array) -> F32Array:
    """f8 values as plain float32: a NaN loses the code it carried (a conversion, unlike a
    bitcast, gives the canonical NaN)."""
    return np.where(np.isnan(values), np.float32(np.nan), values).astype(np.float32)


# -- OCP MX formats: f4e2m1 (element) and f8e8m0 (block scale) --------------------------------
# f4e2m1 (S.EE.M, bias 1): 0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives; no inf, no NaN.
# Conversion rounds to nearest even and saturates at +-6 (inf too); NaN becomes +6, the largest
# code (the format has no NaN). A cutile tensor keeps one code per byte (the low nibble);
# `pack_f4e2m1` gives the two-per-byte layout Tile IR and the MX spec use.
F4E2M1_VALUES = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0], dtype=np.float64)
_F4_TABLE = np.concatenate([F4E2M1_VALUES, -F4E2M1_VALUES]).astype(np.float32)


def f4e2m1_bits_to_f32(bits: NDArray[np.uint8]) -> F32Array:
    codes = np.asarray(bits) & np.uint8(0x0F)
    out: F32Array = _F4_TABLE[codes.reshape(-1)].reshape(codes.shape)
    return out


def f32_to_f4e2m1_bits(values: NDArray[np.generic]) -> NDArray[np.uint8]:
    """Nearest code, ties to the even code (even mantissa), saturating at +-6."""
    v = np.asarray(values, dtype=np.float64)
    mag = np.abs(v)
    hi = np.clip(np.searchsorted(F4E2M1_VALUES, mag), 0, 7)
    lo = np.clip(hi - 1, 0, 7)
    d_hi, d_lo = np.abs(F4E2M1_VALUES[hi] - mag), np.abs(mag - F4E2M1_VALUES[lo])
    pick_lo = (d_lo < d_hi) | ((d_lo == d_hi) & (lo % 2 == 0))
    code = np.where(pick_lo, lo, hi).astype(np.uint8)
    code = np.where(mag > 6.0, np.uint8(7), code)  # past the range and +-inf saturate
    sign = np.where(np.signbit(v) & ~np.isnan(v), np.uint8(0x8), np.uint8(0))
    return np.where(np.isnan(v), np.uint8(7), code | sign).astype(np.uint8)


def pack_f4e2m1(codes: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """f4e2m1 codes (one per byte, shape (..., n), n even) -> packed bytes (..., n // 2):
    element 2i in the low nibble of byte i, element 2i + 1 in its high nibble (the order of
    the OCP MX spec, PTX's e2m1x2 and Tile IR's f4E2M1FN in memory)."""
    c = np.asarray(codes, dtype=np.uint8)
    if c.ndim == 0 or c.shape[-1] % 2:
        raise ValueError(f"packing f4e2m1 needs an even last dimension, not shape {c.shape}")
    return ((c[..., 0::2] & 0x0F) | ((c[..., 1::2] & 0x0F) << 4)).astype(np.uint8)


def unpack_f4e2m1(packed: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """The inverse of `pack_f4e2m1`: bytes (..., m) -> codes (..., 2m)."""
    p = np.asarray(packed, dtype=np.uint8)
    out = np.empty((*p.shape[:-1], 2 * p.shape[-1]), dtype=np.uint8)
    out[..., 0::2] = p & 0x0F
    out[..., 1::2] = p >> 4
    return out


# f8e8m0 (E8M0, unsigned, bias 127): code c is 2**(c - 127) for c in 0..254, 0xFF is NaN; no
# zero, no sign, no inf. Conversion rounds toward zero (to the power of two at or below the
# value): tileiras accepts only 'zero' or 'positive_inf' rounding for f32 -> f8E8M0FNU, and the
# MX scale of a block is 2**floor(log2(amax)) divided by the element format's top power. It
# saturates: above 2**127 and +inf give 0xFE, below 2**-127 (zero, negatives, -inf) give 0x00.
E8M0_NAN = 0xFF


def f8e8m0_bits_to_f32(bits: NDArray[np.uint8]) -> F32Array:
    codes = np.asarray(bits).astype(np.int32)
    with np.errstate(over="ignore"):
        out = np.ldexp(np.float32(1.0), codes - 127).astype(np.float32)
    return np.where(codes == E8M0_NAN, np.float32(np.nan), out).astype(np.float32)


def f32_to_f8e8m0_bits(values: NDArray[np.generic]) -> NDArray[np.uint8]:
    v = np.asarray(values, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        _, exp = np.frexp(np.where(v > 0, v, 1.0))  # v = m * 2**exp, m in [0.5, 1)
    code = np.clip(exp - 1 + 127, 0, 254)
    code = np.where(v > 0, code, 0)
    code = np.where(np.isposinf(v), 254, code)
    return np.where(np.isnan(v), E8M0_NAN, code).astype(np.uint8)


MX_FORMATS = {"f4e2m1": (f32_to_f4e2m1_bits, f4e2m1_bits_to_f32),
              "f8e8m0": (f32_to_f8e8m0_bits, f8e8m0_bits_to_f32)}
