"""Element types of tiles and tensors: the one dtype table. Each entry names its Tile IR scalar,
its NumPy compute and storage dtypes and the NumPy/torch names that mean it; the lowering, the
interpreter, the host storage and `ct.dtype` lookups all read it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Kind = Literal["float", "int", "uint", "bool"]


@dataclass(frozen=True)
class DType:
    name: str
    kind: Kind
    bits: int
    numpy_name: str  # compute dtype in NumPy (the interpreter rounds bf16/tf32/f8 through float32)
    tileir: str  # the Tile IR scalar (a `bytecode.types.Scalar` member name)
    storage: str  # NumPy dtype of its bytes in memory (bf16 and f8 are stored as their bits)
    aliases: tuple[str, ...] = ()  # NumPy / torch dtype names that mean it
    finite_max: float = 0.0  # floats: the largest finite value
    has_inf: bool = True  # floats: whether the format encodes infinities (f8e4m3 has only NaN)
    storage_only: bool = False  # loads, stores and astype only: Tile IR has no arithmetic on it
    min_sm: int = 0  # the oldest GPU (sm_XX) tileiras compiles the type for; 0: any

    @property
    def rounded(self) -> bool:
        """Computed in float32 by the interpreter and rounded to the format after each op."""
        return self.is_float and self.numpy_name == "float32" and self.name != "f32"

    def __str__(self) -> str:
        return self.name

    def __eq__(self, other: object) -> bool:
        """The same dtype: another DType of that name, or its class in the DSL (`t.dtype ==
        ct.f32` on the host, as `a.dtype == np.float32` is in NumPy)."""
        if isinstance(other, DType):
            return self.name == other.name
        marked = getattr(other, "dtype", None) if isinstance(other, type) else None
        return isinstance(marked, DType) and marked.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)

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


BOOL = DType("bool_", "bool", 1, "bool", "I1", "bool", ("bool",))
I8 = DType("i8", "int", 8, "int8", "I8", "int8", ("int8",))
I16 = DType("i16", "int", 16, "int16", "I16", "int16", ("int16",))
I32 = DType("i32", "int", 32, "int32", "I32", "int32", ("int32",))
I64 = DType("i64", "int", 64, "int64", "I64", "int64", ("int64",))
U8 = DType("u8", "uint", 8, "uint8", "I8", "uint8", ("uint8",))
U16 = DType("u16", "uint", 16, "uint16", "I16", "uint16", ("uint16",))
U32 = DType("u32", "uint", 32, "uint32", "I32", "uint32", ("uint32",))
U64 = DType("u64", "uint", 64, "uint64", "I64", "uint64", ("uint64",))
F16 = DType("f16", "float", 16, "float16", "F16", "float16", ("float16",), 65504.0)
BF16 = DType("bf16", "float", 16, "float32", "BF16", "uint16", ("bfloat16",),
              3.3895313892515355e38)
TF32 = DType("tf32", "float", 32, "float32", "TF32", "float32", (), 3.4028234663852886e38)
F32 = DType("f32", "float", 32, "float32", "F32", "float32", ("float32",),
             3.4028234663852886e38)
F64 = DType("f64", "float", 64, "float64", "F64", "float64", ("float64",),
             1.7976931348623157e308)
F8E4M3 = DType("f8e4m3", "float", 8, "float32", "F8E4M3FN", "uint8", (), 448.0, False)
F8E5M2 = DType("f8e5m2", "float", 8, "float32", "F8E5M2", "uint8", (), 57344.0)
# OCP MX formats (Tile IR 13.3+/13.2+): f4e2m1 values are packed two to a byte in memory (see
# runtime/floats.py); f8e8m0 is a power of two 2**(code - 127), code 0xFF is NaN, no zero/sign.
# tileiras 13.4 for sm_90: "Incompatibility with architecture 'sm_90': unsupported type ...".
F4E2M1 = DType("f4e2m1", "float", 4, "float32", "F4E2M1FN", "uint8", (), 6.0, False, True, 100)
F8E8M0 = DType("f8e8m0", "float", 8, "float32", "F8E8M0FNU", "uint8", (), 2.0**127, False, True,
               100)

ALL_DTYPES: tuple[DType, ...] = (
    BOOL, I8, I16, I32, I64, U8, U16, U32, U64, F16, BF16, TF32, F32, F64, F8E4M3, F8E5M2,
    F4E2M1, F8E8M0,
)
BY_NAME: dict[str, DType] = {d.name: d for d in ALL_DTYPES}
# the float dtypes with arithmetic (not storage formats, not tf32): fma, rounding and the
# composed math functions take these
ARITH_FLOATS = frozenset({"f16", "bf16", "f32", "f64"})
BY_NAME["bool"] = BOOL
# the dtype of each NumPy dtype a host array holds as it is (`ct.from_numpy(a)`), by its name
BY_NUMPY_NAME: dict[str, DType] = {d.storage: d for d in (BOOL, I8, I16, I32, I64, U8, U16, U32,
                                                          U64, F16, F32, F64)}


def arithmetic_refusal(dtype: DType) -> str | None:
    """Why Tile IR has no arithmetic, comparison or reduction on `dtype` (None: it has):
    tileiras refuses `addf`, `cmpf`, `maxf`, ... on tf32 and f8 tiles (mma inputs) and on the
    MX storage formats, so the frontend refuses them on every backend alike."""
    if dtype.storage_only:
        return "a storage format"
    if dtype.is_float and dtype.name not in ARITH_FLOATS:
        return "an mma input format"
    return None
BY_ALIAS: dict[str, DType] = {a: d for d in ALL_DTYPES for a in d.aliases}


def integer_range(dtype: DType) -> tuple[int, int]:
    if dtype.kind == "uint":
        return 0, 2**dtype.bits - 1
    if dtype.kind == "bool":
        return 0, 1
    return -(2 ** (dtype.bits - 1)), 2 ** (dtype.bits - 1) - 1
