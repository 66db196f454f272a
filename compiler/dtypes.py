"""Element types of tiles and tensors."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Kind = Literal["float", "int", "uint", "bool"]


@dataclass(frozen=True)
class DType:
    name: str
    kind: Kind
    bits: int
    numpy_name: str  # storage dtype in NumPy (the interpreter rounds bf16/tf32/f8 through float32)

    def __str__(self) -> str:
        return self.name

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def is_integer(self) -> bool:
        return self.kind in ("int", "uint")

    @property
    def is_bool(self) -> bool:
        return self.kind == "bool"

    @property
    def itemsize(self) -> int:
        return max(1, self.bits // 8)


BOOL = DType("bool_", "bool", 1, "bool")
I8 = DType("i8", "int", 8, "int8")
I16 = DType("i16", "int", 16, "int16")
I32 = DType("i32", "int", 32, "int32")
I64 = DType("i64", "int", 64, "int64")
U8 = DType("u8", "uint", 8, "uint8")
U16 = DType("u16", "uint", 16, "uint16")
U32 = DType("u32", "uint", 32, "uint32")
U64 = DType("u64", "uint", 64, "uint64")
F16 = DType("f16", "float", 16, "float16")
BF16 = DType("bf16", "float", 16, "float32")
TF32 = DType("tf32", "float", 32, "float32")
F32 = DType("f32", "float", 32, "float32")
F64 = DType("f64", "float", 64, "float64")
F8E4M3 = DType("f8e4m3", "float", 8, "float32")
F8E5M2 = DType("f8e5m2", "float", 8, "float32")

ALL_DTYPES: tuple[DType, ...] = (
    BOOL, I8, I16, I32, I64, U8, U16, U32, U64, F16, BF16, TF32, F32, F64, F8E4M3, F8E5M2,
)
BY_NAME: dict[str, DType] = {d.name: d for d in ALL_DTYPES}
BY_NAME["bool"] = BOOL


def integer_range(dtype: DType) -> tuple[int, int]:
    if dtype.kind == "uint":
        return 0, 2**dtype.bits - 1
    if dtype.kind == "bool":
        return 0, 1
    return -(2 ** (dtype.bits - 1)), 2 ** (dtype.bits - 1) - 1
