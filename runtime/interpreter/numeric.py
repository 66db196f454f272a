"""Tile values in the interpreter: NumPy arrays in a compute dtype, rounded like the device.

f16 computes in float16 (NumPy rounds each operation correctly); bf16, tf32 and f8 compute in
float32 and are rounded to their format after every operation that produces them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ...compiler.dtypes import DType, integer_range
from .. import floats, hostdtypes

Array = NDArray[Any]

def compute_dtype(dtype: DType) -> np.dtype[Any]:
    if dtype.rounded:
        return np.dtype(np.float32)
    return hostdtypes.storage(dtype)


def fit(values: Any, dtype: DType) -> Array:
    """`values` as a tile of `dtype`: converted (float -> int as `saturate`) and rounded to the
    format."""
    arr = np.asarray(values)
    if dtype.is_integer and arr.dtype.kind == "f":
        return saturate(arr, dtype)
    # the narrow formats round from the values given (f64 included), once: floats.to_f32_odd
    if dtype.name == "bf16":
        return floats.round_bf16(arr)
    if dtype.name == "tf32":
        return floats.round_tf32(arr)
    if dtype.name in floats.FORMATS:
        return floats.f8_bits_to_f32(floats.f32_to_f8_bits(arr, dtype.name), dtype.name)
    if dtype.name in floats.MX_FORMATS:
        encode, decode = floats.MX_FORMATS[dtype.name]
        return decode(encode(arr))
    return arr.astype(compute_dtype(dtype))


def saturate(arr: Array, dtype: DType) -> Array:
    """float -> int as the GPU converts (PTX cvt.rzi, compiler/lower/arith.py's _ftoi):
    truncated toward zero; past the range the dtype's min or max; NaN 0."""
    lo, hi = integer_range(dtype)
    x = np.trunc(arr.astype(np.float64))
    low, high = x < lo, x >= float(hi + 1)  # hi + 1 is a power of two: exact as a float
    inside = np.where(np.isnan(x) | low | high, 0.0, x).astype(compute_dtype(dtype))
    out = np.where(high, hi, np.where(low, lo, inside))
    return np.asarray(out, dtype=compute_dtype(dtype))


def bits_of(values: Any, dtype: DType) -> Array:
    """A tile's bits as unsigned integers of its width, as the device holds them (bf16 is the
    high half of its float32; an f8 value its code, a NaN the code it carries)."""
    if dtype.name == "bf16":
        return (np.asarray(values, np.float32).view(np.uint32) >> 16).astype(np.uint16)
    if dtype.name in floats.FORMATS or dtype.name in floats.MX_FORMATS:
        return hostdtypes.encode(np.asarray(values, np.float32), dtype).view(np.uint8)
    return np.array(values, copy=True).view(f"u{dtype.itemsize}")


def from_bits(bits: Array, dtype: DType) -> Array:
    """The inverse of `bits_of`: a tile of `dtype` holding those bits."""
    if dtype.is_float and dtype.rounded:
        return hostdtypes.decode(bits, dtype).astype(np.float32, copy=False)
    return bits.view(hostdtypes.storage(dtype))


def from_storage(stored: Array, dtype: DType) -> Array:
    return hostdtypes.decode(stored, dtype).astype(compute_dtype(dtype), copy=False)


def to_storage(values: Array, dtype: DType) -> Array:
    return hostdtypes.encode(values, dtype)
