"""Annotation markers and dtype classes of the kernel language.

Annotations are read by the frontend from source and never evaluated by cutile. For mypy and
pyright they must still be valid types: under TYPE_CHECKING the facade maps `Tensor`/`Tile`/`Acc`
to `Annotated` and `Mut`/`Const` to `Union` (one argument: the type itself), so
`Mut[Tensor[f32, ("B",)]]` is just `f32`, a `TileValue`, whose methods are declared below.
"""

from __future__ import annotations

import sys
from typing import Any, ClassVar, NoReturn

from .. import dtypes as _d
from ..dtypes import DType


class _Marker:
    """Runtime stand-in for a subscripted annotation such as `Mut[Tensor[f32, (128,)]]`."""

    def __init__(self, head: str, args: Any) -> None:
        self.head = head
        self.args = args if isinstance(args, tuple) else (args,)

    def __repr__(self) -> str:
        return f"{self.head}[{', '.join(map(repr, self.args))}]"


class _MarkerFactory:
    def __init__(self, head: str) -> None:
        self.head = head

    def __getitem__(self, args: Any) -> _Marker:
        return _Marker(self.head, args)

    def __repr__(self) -> str:
        return f"cutile.{self.head}"


Mut = _MarkerFactory("Mut")
Acc = _MarkerFactory("Acc")
Const = _MarkerFactory("Const")
Tile = _MarkerFactory("Tile")


def _kernel_only(name: str) -> NoReturn:
    from ...diagnostics.errors import CutileError

    raise CutileError(f"'{name}' is part of the kernel language: it can only be used inside a "
                      "@ct.kernel or @ct.function")


class TileValue:
    """What mypy sees for every kernel value. Calling these on the host raises CutileError."""

    dtype: ClassVar[DType]

    @property
    def shape(self) -> Any: return _kernel_only("shape")  # a tuple; a slab's may hold scalars
    @property
    def tile_shape(self) -> Any: return _kernel_only("tile_shape")  # of a Mut slab

    def __add__(self, other: Any) -> TileValue: return _kernel_only("+")
    def __radd__(self, other: Any) -> TileValue: return _kernel_only("+")
    def __sub__(self, other: Any) -> TileValue: return _kernel_only("-")
    def __rsub__(self, other: Any) -> TileValue: return _kernel_only("-")
    def __mul__(self, other: Any) -> TileValue: return _kernel_only("*")
    def __rmul__(self, other: Any) -> TileValue: return _kernel_only("*")
    def __truediv__(self, other: Any) -> TileValue: return _kernel_only("/")
    def __rtruediv__(self, other: Any) -> TileValue: return _kernel_only("/")
    def __floordiv__(self, other: Any) -> TileValue: return _kernel_only("//")
    def __rfloordiv__(self, other: Any) -> TileValue: return _kernel_only("//")
    def __mod__(self, other: Any) -> TileValue: return _kernel_only("%")
    def __rmod__(self, other: Any) -> TileValue: return _kernel_only("%")
    def __pow__(self, other: Any) -> TileValue: return _kernel_only("**")
    def __rpow__(self, other: Any) -> TileValue: return _kernel_only("**")
    def __matmul__(self, other: Any) -> TileValue: return _kernel_only("@")
    def __and__(self, other: Any) -> TileValue: return _kernel_only("&")
    def __rand__(self, other: Any) -> TileValue: return _kernel_only("&")
    def __or__(self, other: Any) -> TileValue: return _kernel_only("|")
    def __ror__(self, other: Any) -> TileValue: return _kernel_only("|")
    def __xor__(self, other: Any) -> TileValue: return _kernel_only("^")
    def __rxor__(self, other: Any) -> TileValue: return _kernel_only("^")
    def __lshift__(self, other: Any) -> TileValue: return _kernel_only("<<")
    def __rshift__(self, other: Any) -> TileValue: return _kernel_only(">>")
    def __neg__(self) -> TileValue: return _kernel_only("-")
    def __invert__(self) -> TileValue: return _kernel_only("~")
    def __lt__(self, other: Any) -> TileValue: return _kernel_only("<")
    def __le__(self, other: Any) -> TileValue: return _kernel_only("<=")
    def __gt__(self, other: Any) -> TileValue: return _kernel_only(">")
    def __ge__(self, other: Any) -> TileValue: return _kernel_only(">=")
    def __eq__(self, other: Any) -> TileValue: return _kernel_only("==")  # type: ignore[override]
    def __ne__(self, other: Any) -> TileValue: return _kernel_only("!=")  # type: ignore[override]
    def __bool__(self) -> bool: return _kernel_only("bool()")
    def __index__(self) -> int: return _kernel_only("range()")
    __hash__ = None  # type: ignore[assignment]

    def astype(self, dtype: Any) -> TileValue: return _kernel_only("astype")
    def bitcast(self, dtype: Any) -> TileValue: return _kernel_only("bitcast")
    def reshape(self, shape: Any) -> TileValue: return _kernel_only("reshape")
    def transpose(self) -> TileValue: return _kernel_only("transpose")
    # Tensors, Mut slabs and partitions:
    def store(self, tile: Any, index: Any = None) -> None: _kernel_only("store")
    # p.load(index), z.load(), z.load(shape, index) (a tile inside a Mut slab): for mypy the
    # partition's index arrives as `shape`, the first positional parameter
    def load(self, shape: Any = None, index: Any = None, *, padding: Any = None,
             latency: Any = None, allow_tma: Any = None) -> TileValue:
        return _kernel_only("load")
    def load_tile(self, shape: Any, index: Any, *, padding: Any = None, latency: Any = None,
                  allow_tma: Any = None) -> TileValue:
        return _kernel_only("load_tile")
    def load_at(self, shape: Any, offsets: Any, *, padding: Any = None) -> TileValue:
        return _kernel_only("load_at")
    def partition(self, shape: Any) -> TileValue: return _kernel_only("partition")
    def tile_index(self) -> Any: return _kernel_only("tile_index")
    def tiles(self) -> Any: return _kernel_only("tiles")
    # Accumulators (Acc parameters): only the declared op's pair exists in a kernel.
    def add(self, tile: Any, index: Any) -> None: _kernel_only("add")
    def max(self, tile: Any, index: Any) -> None: _kernel_only("max")
    def min(self, tile: Any, index: Any) -> None: _kernel_only("min")
    def or_(self, tile: Any, index: Any) -> None: _kernel_only("or_")
    def and_(self, tile: Any, index: Any) -> None: _kernel_only("and_")
    def xor(self, tile: Any, index: Any) -> None: _kernel_only("xor")
    def add_at(self, indices: Any, values: Any) -> None: _kernel_only("add_at")
    def max_at(self, indices: Any, values: Any) -> None: _kernel_only("max_at")
    def min_at(self, indices: Any, values: Any) -> None: _kernel_only("min_at")
    def or_at(self, indices: Any, values: Any) -> None: _kernel_only("or_at")
    def and_at(self, indices: Any, values: Any) -> None: _kernel_only("and_at")
    def xor_at(self, indices: Any, values: Any) -> None: _kernel_only("xor_at")


# The dtypes are classes (not variables) so that mypy and pyright accept them in annotations.
class bool_(TileValue):
    dtype = _d.BOOL


class i8(TileValue):
    dtype = _d.I8


class i16(TileValue):
    dtype = _d.I16


class i32(TileValue):
    dtype = _d.I32


class i64(TileValue):
    dtype = _d.I64


class u8(TileValue):
    dtype = _d.U8


class u16(TileValue):
    dtype = _d.U16


class u32(TileValue):
    dtype = _d.U32


class u64(TileValue):
    dtype = _d.U64


class f16(TileValue):
    dtype = _d.F16


class bf16(TileValue):
    dtype = _d.BF16


class tf32(TileValue):
    dtype = _d.TF32


class f32(TileValue):
    dtype = _d.F32


class f64(TileValue):
    dtype = _d.F64


class f8e4m3(TileValue):
    dtype = _d.F8E4M3


class f8e5m2(TileValue):
    dtype = _d.F8E5M2


class f4e2m1(TileValue):
    dtype = _d.F4E2M1


class f8e8m0(TileValue):
    dtype = _d.F8E8M0


DTypeLike = type[TileValue] | DType


def as_dtype(value: object) -> DType | None:
    """The DType behind `ct.f32` (a class), a DType, a NumPy/torch dtype or its name, or a NumPy
    scalar type (`np.float32`); else None."""
    if isinstance(value, DType):
        return value
    if isinstance(value, type) and issubclass(value, TileValue) and hasattr(value, "dtype"):
        return value.dtype
    if isinstance(value, type):
        value = _numpy_dtype(value)
    name = str(getattr(value, "name", value)).replace("torch.", "")
    return _d.BY_ALIAS.get(name) or _d.BY_NAME.get(name)


def _numpy_dtype(cls: type) -> object:
    """A NumPy scalar type's dtype (`np.float32` -> float32; ml_dtypes' bfloat16 too), else the
    class. NumPy is not imported for it: a program holding `np.float32` has imported it."""
    np = sys.modules.get("numpy")
    if np is None or not issubclass(cls, np.generic):
        return cls
    try:
        return np.dtype(cls)
    except TypeError:  # an abstract type such as np.floating
        return cls
