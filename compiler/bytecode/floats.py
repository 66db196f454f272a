"""Bit patterns of floating-point values in every Tile IR float format (and back)."""

from __future__ import annotations

import functools
import math
import struct

from .types import Scalar

# (exponent bits, mantissa bits, bias, has infinities, NaN encoding style) of the narrow formats.
# "fn": finite only, the all-ones pattern is NaN; "fnu": also unsigned.
_NARROW: dict[Scalar, tuple[int, int, bool]] = {
    Scalar.F8E4M3FN: (4, 3, True),
    Scalar.F8E5M2: (5, 2, True),
    Scalar.F8E8M0FNU: (8, 0, False),
    Scalar.F4E2M1FN: (2, 1, True),
    Scalar.F8E5M3FNU: (5, 3, False),
}


def to_bits(value: float, ty: Scalar) -> int:
    """The IEEE-style bit pattern of `value` rounded to `ty` (round to nearest, ties to even)."""
    if ty is Scalar.F64:
        return int(struct.unpack("<Q", struct.pack("<d", value))[0])
    if ty is Scalar.F32:
        return _f32_bits(value)
    if ty is Scalar.F16:
        return int(struct.unpack("<H", struct.pack("<e", value))[0])
    if ty is Scalar.BF16:
        return _round_f32_bits(_f32_bits(value), 16)
    if ty is Scalar.TF32:
        return _round_f32_bits(_f32_bits(value), 13)
    if ty in _NARROW:
        return _nearest_code(value, ty)
    raise ValueError(f"{ty} is not a float type")


def from_bits(bits: int, ty: Scalar) -> float:
    if ty is Scalar.F64:
        return float(struct.unpack("<d", struct.pack("<Q", bits))[0])
    if ty is Scalar.F32:
        return float(struct.unpack("<f", struct.pack("<I", bits))[0])
    if ty is Scalar.F16:
        return float(struct.unpack("<e", struct.pack("<H", bits))[0])
    if ty is Scalar.BF16:
        return from_bits(bits << 16, Scalar.F32)
    if ty is Scalar.TF32:
        return from_bits(bits << 13, Scalar.F32)
    if ty in _NARROW:
        return _decode_narrow(bits, ty)
    raise ValueError(f"{ty} is not a float type")


def _f32_bits(value: float) -> int:
    try:
        return int(struct.unpack("<I", struct.pack("<f", value))[0])
    except OverflowError:
        return 0x7F800000 if value > 0 else 0xFF800000


def _round_f32_bits(bits: int, drop: int) -> int:
    """Keep the high bits of an f32 pattern, rounding to nearest even (NaN stays NaN)."""
    if (bits & 0x7F800000) == 0x7F800000 and bits & 0x007FFFFF:
        return (bits >> drop) | 1 << (22 - drop)
    half = 1 << (drop - 1)
    rounded = bits + half - 1 + ((bits >> drop) & 1)
    return (rounded >> drop) & ((1 << (32 - drop)) - 1)


def _decode_narrow(bits: int, ty: Scalar) -> float:
    ebits, mbits, signed = _NARROW[ty]
    width = ty.bits
    sign = -1.0 if signed and bits >> (width - 1) & 1 else 1.0
    exp = (bits >> mbits) & ((1 << ebits) - 1)
    man = bits & ((1 << mbits) - 1)
    bias = (1 << (ebits - 1)) - 1
    if ty is Scalar.F8E5M2 and exp == (1 << ebits) - 1:
        return sign * math.inf if man == 0 else math.nan
    if ty is Scalar.F8E4M3FN and exp == 15 and man == 7:
        return math.nan
    if ty is Scalar.F8E8M0FNU:
        return math.nan if bits == 0xFF else 2.0 ** (exp - 127)
    if ty is Scalar.F8E5M3FNU and bits == 0xFF:
        return math.nan
    if exp == 0:
        return sign * man * 2.0 ** (1 - bias - mbits)
    return sign * (1 + man / (1 << mbits)) * 2.0 ** (exp - bias)


@functools.cache
def _codes(ty: Scalar) -> list[tuple[float, int]]:
    out = []
    for code in range(1 << ty.bits):
        v = _decode_narrow(code, ty)
        if not math.isnan(v):
            out.append((v, code))
    return out


# f8e4m3 and f8e5m2 constants follow cutile's conversion rule (runtime/floats.py): a magnitude
# from this boundary up (past it for f8e4m3, whose boundary 464 is a tie that goes to 448) and
# +-inf become NaN (f8e4m3, sign kept) or +-inf (f8e5m2); NaN is 0x7F. The lowering's
# conversions (compiler/lower/arith.py) take the boundaries from here.
F8_OVERFLOW = {Scalar.F8E4M3FN: (464.0, False, 0x7F), Scalar.F8E5M2: (61440.0, True, 0x7C)}


def _nearest_code(value: float, ty: Scalar) -> int:
    """Narrow formats have at most 256 codes, so rounding is a nearest search (ties to even)."""
    if math.isnan(value):
        # f4E2M1FN has no NaN: the largest code, as cutile's conversions (runtime/floats.py)
        nan = {Scalar.F8E4M3FN: 0x7F, Scalar.F8E5M2: 0x7F, Scalar.F8E8M0FNU: 0xFF,
               Scalar.F8E5M3FNU: 0xFF, Scalar.F4E2M1FN: 0x7}.get(ty)
        if nan is None:
            raise ValueError(f"{ty} has no NaN")
        return nan
    codes = _codes(ty)
    if ty is Scalar.F8E8M0FNU:  # toward zero, saturating: as tileiras's ftof to it (rz)
        below = [vc for vc in codes if vc[0] <= value]
        return max(below)[1] if below else codes[0][1]
    if _NARROW[ty][2] and math.copysign(1.0, value) < 0:  # the sign bit (-0.0 included)
        return _nearest_code(-value, ty) | 1 << (ty.bits - 1)
    if ty in F8_OVERFLOW:
        limit, tie_overflows, code = F8_OVERFLOW[ty]
        if value > limit or (tie_overflows and value == limit):
            return code
    if math.isinf(value) and not any(math.isinf(v) for v, _ in codes):
        value = math.copysign(max(abs(v) for v, _ in codes), value)  # saturate: no infinity
    best = min(codes, key=lambda vc: (abs(vc[0] - value), vc[1] & 1))
    return best[1]
