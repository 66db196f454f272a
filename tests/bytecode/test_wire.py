"""Wire primitives and float bit patterns."""

from __future__ import annotations

import math

import pytest

from cutile.compiler.bytecode import floats
from cutile.compiler.bytecode.attrs import Dense
from cutile.compiler.bytecode.types import Scalar
from cutile.compiler.bytecode.wire import BytecodeFormatError, Reader, Writer


@pytest.mark.parametrize(("value", "encoded"), [
    (0, b"\x00"), (1, b"\x01"), (127, b"\x7f"), (128, b"\x80\x01"), (300, b"\xac\x02"),
    (2**63, b"\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01"),
])
def test_varint(value: int, encoded: bytes) -> None:
    w = Writer()
    w.varint(value)
    assert bytes(w.buf) == encoded
    assert Reader(encoded).varint() == value


@pytest.mark.parametrize(("value", "zigzag"), [(0, 0), (-1, 1), (1, 2), (-2, 3), (63, 126),
                                                (-(2**40), 2**41 - 1)])
def test_zigzag(value: int, zigzag: int) -> None:
    w = Writer()
    w.svarint(value)
    assert Reader(bytes(w.buf)).varint() == zigzag
    assert Reader(bytes(w.buf)).svarint() == value


def test_int_lists_and_padding() -> None:
    w = Writer()
    w.int_list([1, -1], 8)
    w.pad_to(8)
    assert bytes(w.buf) == b"\x02" + (1).to_bytes(8, "little") + b"\xff" * 8 + b"\xcb" * 7
    r = Reader(bytes(w.buf))
    assert r.int_list(8) == [1, -1]
    r.skip_pad(8)
    assert r.at_end()


def test_reader_rejects_truncation_and_bad_padding() -> None:
    with pytest.raises(BytecodeFormatError):
        Reader(b"\x80").varint()
    with pytest.raises(BytecodeFormatError):
        Reader(b"\x00\x00", 1).skip_pad(4)


@pytest.mark.parametrize(("value", "ty", "bits"), [
    (1.0, Scalar.F32, 0x3F800000), (-math.inf, Scalar.F32, 0xFF800000),
    (1.0, Scalar.F16, 0x3C00), (65504.0, Scalar.F16, 0x7BFF),
    (1.0, Scalar.BF16, 0x3F80), (3.140625, Scalar.BF16, 0x4049),
    (1.0, Scalar.F64, 0x3FF0000000000000),
    (1.0, Scalar.F8E4M3FN, 0x38), (448.0, Scalar.F8E4M3FN, 0x7E), (-2.0, Scalar.F8E4M3FN, 0xC0),
    (1.0, Scalar.F8E5M2, 0x3C), (57344.0, Scalar.F8E5M2, 0x7B),
])
def test_float_bits(value: float, ty: Scalar, bits: int) -> None:
    assert floats.to_bits(value, ty) == bits
    assert floats.from_bits(bits, ty) == value


def test_bf16_rounds_to_nearest_even() -> None:
    # 1 + 2^-8 is exactly between two bf16 values: ties go to the even one (1.0).
    assert floats.to_bits(1 + 2**-8, Scalar.BF16) == 0x3F80
    assert floats.to_bits(1 + 3 * 2**-8, Scalar.BF16) == 0x3F82


def test_dense_splat_and_i1_packing() -> None:
    assert Dense.splat(True, Scalar.I1).data == b"\xff"
    assert Dense.splat(-1, Scalar.I32).data == b"\xff\xff\xff\xff"
    assert Dense.splat(0.5, Scalar.F16).data == (0x3800).to_bytes(2, "little")
    assert Dense.of([True, False, True, True, False, False, False, False, True], Scalar.I1
                    ).data == b"\x0d\x01"
