"""How each cutile dtype is stored in host memory, and conversions to and from NumPy values.

Storage is the device's byte layout (so host<->device copies and DLPack are plain byte copies):
bf16 -> uint16 bits, f8 -> uint8 bits, tf32 -> float32, f16 -> float16, bool -> 1 byte;
f8e8m0 -> uint8 bits, f4e2m1 -> one uint8 code per element (low nibble; the device's packed
two-per-byte layout is `floats.pack_f4e2m1`, and a GPU launch with f4e2m1 tensors is refused).
`decode` widens bf16/f8 to float32 for `.numpy()`; `encode` rounds to nearest even.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ..compiler import dtypes as d
from ..compiler.dtypes import DType
from ..compiler.hostapi.shapes import fill_number, fill_problem
from . import floats
from .errors import launch_error
from .memo import Memo
from .sites import caller_site

_STORAGE: dict[str, np.dtype[np.generic]] = {t.name: np.dtype(t.storage) for t in d.ALL_DTYPES}
_FROM_NUMPY: dict[np.dtype[np.generic], DType] = {np.dtype(n): t
                                                  for n, t in d.BY_NUMPY_NAME.items()}


def storage(dtype: DType) -> np.dtype[np.generic]:
    return _STORAGE[dtype.name]


def from_numpy_dtype(dt: np.dtype[np.generic]) -> DType | None:
    return _FROM_NUMPY.get(dt)


def encode(values: object, dtype: DType) -> NDArray[np.generic]:
    """NumPy values (any dtype) -> storage values of `dtype`, rounded as the device would."""
    # the narrow formats round the value given (float64 included) once: see floats.to_f32_odd
    if dtype.name == "bf16":
        return floats.f32_to_bf16_bits(np.asarray(values))
    if dtype.name in floats.FORMATS:
        return floats.f32_to_f8_bits(np.asarray(values), dtype.name)
    if dtype.name in floats.MX_FORMATS:
        return floats.MX_FORMATS[dtype.name][0](np.asarray(values))
    if dtype.name == "tf32":
        return floats.round_tf32(np.asarray(values))
    with np.errstate(over="ignore"):  # past a float dtype's range is inf, as on the device
        return np.asarray(values).astype(storage(dtype))


def decode(stored: NDArray[np.generic], dtype: DType) -> NDArray[np.generic]:
    """Storage values -> NumPy values: bf16 and f8 widen (exactly) to float32."""
    if dtype.name == "bf16":
        return floats.bf16_bits_to_f32(stored.view(np.uint16))
    if dtype.name in floats.FORMATS:
        return floats.f8_bits_to_f32(stored.view(np.uint8), dtype.name)
    if dtype.name in floats.MX_FORMATS:
        return floats.MX_FORMATS[dtype.name][1](stored.view(np.uint8))
    return stored


def fill_pattern(value: object, dt: DType) -> bytes:
    """The bytes of `value` as one stored element of `dt` (`ct.full`'s value); a value that
    does not fit is CT406 at the user's call (as the kernel-side literal rule, CT214), not a
    silent wrap or an OverflowError (the checker's rule too: compiler/hostapi/shapes.py)."""
    key = (type(value), value, dt.name) if type(value) in (int, bool) else None
    known = None if key is None else _patterns.get(key)
    if known is not None:
        return known
    problem = fill_problem(value, dt)
    if problem is not None:
        raise launch_error(problem[0], caller_site(), **problem[1])
    pattern = encode(np.array([fill_number(value, dt)]), dt).tobytes()
    return pattern if key is None else _patterns.keep(key, pattern)


# (the value's class, the value, the dtype's name) -> its fill bytes, for Python ints and bools
# (`ct.zeros`, `ct.ones`; the class too, as True == 1). Floats are not kept: -0.0 == 0.0 and NaN
# never equals itself, so a float key would give 0.0's bytes for -0.0
_patterns: Memo[bytes] = Memo(1024)
