"""Types of kernel values: tiles, global-memory tensors, partitions, compile-time constants."""

from __future__ import annotations

import math
from dataclasses import dataclass

from .dtypes import I32, DType


@dataclass(frozen=True)
class SymInt:
    """An integer known only at specialization time (a Const parameter, or arithmetic on one)."""

    expr: str

    def __str__(self) -> str:
        return self.expr


Dim = int | SymInt  # tile dimension: static int, or symbolic until Consts are specialized
DYNAMIC = -1  # tensor dimension known only at launch time
Shape = tuple[Dim, ...]


def fmt_shape(shape: Shape) -> str:
    inner = ", ".join(str(d) for d in shape)
    return f"({inner},)" if len(shape) == 1 else f"({inner})"


def is_static(shape: Shape) -> bool:
    return all(isinstance(d, int) for d in shape)


def num_elements(shape: Shape) -> int | None:
    if not is_static(shape):
        return None
    return math.prod(d for d in shape if isinstance(d, int))


@dataclass(frozen=True)
class TileType:
    dtype: DType
    shape: Shape

    @property
    def rank(self) -> int:
        return len(self.shape)

    def __str__(self) -> str:
        return f"Tile[{self.dtype}, {fmt_shape(self.shape)}]"


SCALAR_I32 = TileType(I32, ())  # ids, counts, extents and loop variables


@dataclass(frozen=True)
class TensorType:
    """A tensor in global memory. `mutable` marks a Mut slab, whose shape is its tile shape;
    `acc` an Acc parameter's op (a whole tensor that blocks only accumulate into)."""

    dtype: DType
    shape: Shape  # ints (DYNAMIC = -1 for dynamic) or SymInt
    mutable: bool = False
    acc: str | None = None

    @property
    def rank(self) -> int:
        return len(self.shape)

    def __str__(self) -> str:
        inner = f"Tensor[{self.dtype}, {fmt_shape(self.shape)}]"
        if self.acc is not None:
            return f'Acc[{inner}, "{self.acc}"]'
        return f"Mut[{inner}]" if self.mutable else inner


@dataclass(frozen=True)
class PartitionType:
    """A read-only view of a tensor as a grid of tiles (`x.partition(shape)` inside a kernel)."""

    tensor: TensorType
    tile: Shape

    def __str__(self) -> str:
        return f"Partition[{self.tensor.dtype}, tile {fmt_shape(self.tile)}]"


@dataclass(frozen=True)
class ConstType:
    """A compile-time value: int, bool, float or dtype. `value` is None until specialized."""

    kind: str  # "int" | "bool" | "float" | "dtype" | "str"
    value: object = None  # int, bool, float, DType, str, SymInt, or a tuple of those

    def __str__(self) -> str:
        return f"Const[{self.kind}]" if self.value is None else f"Const[{self.kind}] = {self.value}"


@dataclass(frozen=True)
class TupleType:
    items: tuple[Type, ...]

    def __str__(self) -> str:
        return "(" + ", ".join(str(t) for t in self.items) + ")"


@dataclass(frozen=True)
class SlabType:
    """One slab of a persistent Mut partition: `zt` in `for zt in z.tiles()`. It has the methods
    of a non-persistent `z`; the slab's tile coordinates ride on the value (`SlabVal`)."""

    tensor: TensorType
    owner: str  # the Mut parameter whose slab this is

    def __str__(self) -> str:
        return f"Slab[{self.tensor}] of {self.owner}"


@dataclass(frozen=True)
class TokenType:
    def __str__(self) -> str:
        return "token"


Type = TileType | TensorType | PartitionType | ConstType | TupleType | SlabType | TokenType


def describe(t: Type) -> str:
    """A short phrase for messages: 'a f32 tile of shape (128,)'."""
    if isinstance(t, TileType):
        if t.rank == 0:
            return f"a scalar {t.dtype}"
        return f"a {t.dtype} tile of shape {fmt_shape(t.shape)}"
    if isinstance(t, TensorType):
        if t.acc is not None:
            return f"an Acc {t.dtype} tensor"
        return f"a {'Mut ' if t.mutable else ''}{t.dtype} tensor"
    if isinstance(t, PartitionType):
        return "a partition"
    if isinstance(t, ConstType):
        return f"a Const {t.kind}"
    if isinstance(t, TupleType):
        return f"a tuple of {len(t.items)}"
    if isinstance(t, SlabType):
        return f"a slab of '{t.owner}'"
    return "a token"
