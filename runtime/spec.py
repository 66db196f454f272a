"""Specialization: what a compiled kernel may assume about one launch's arguments.

The key holds the Const values, each tensor's facts (base alignment, stride and extent
divisibility, contiguity: they drive `assume div_by` and so TMA) and each Mut partition's tile
shape and order, and whether it is persistent. Divisibility is capped at 16 bytes (or 16
elements), so launches that differ only beyond that share one compiled kernel.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..compiler.dsl.orders import TileOrder
from ..compiler.dtypes import DType

if TYPE_CHECKING:
    from .kernel import Kernel

CAP = 16


def pow2_divisor(n: int, cap: int = CAP) -> int:
    """The largest power of two <= cap dividing n (cap for 0)."""
    if n == 0:
        return cap
    low = n & -n if n > 0 else (-n) & n
    return min(low, cap)


@dataclass(frozen=True)
class TensorFacts:
    dtype: DType
    rank: int
    align: int  # bytes dividing the base pointer, <= 16
    stride_div: tuple[int, ...]  # bytes dividing each stride, <= 16
    shape_div: tuple[int, ...]  # elements dividing each extent, <= 16
    contiguous: bool  # C order (last stride 1, the others packed)


@dataclass(frozen=True)
class MutFacts:
    tensor: TensorFacts
    tile: tuple[int, ...]
    order: TileOrder
    persistent: bool


ArgFacts = TensorFacts | MutFacts | DType | None  # tensors, Mut partitions, scalars, Consts


@dataclass(frozen=True)
class Specialization:
    """One compiled variant of a kernel. `args` follows the signature's parameter order."""

    kernel: Kernel
    consts: tuple[tuple[str, Any], ...]
    args: tuple[ArgFacts, ...]

    @property
    def key(self) -> tuple[Any, ...]:
        return (self.consts, self.args)

    @property
    def const_values(self) -> dict[str, Any]:
        return dict(self.consts)


def tensor_facts(dtype: DType, ptr: int, shape: tuple[int, ...], strides: tuple[int, ...],
                 contiguous: bool) -> TensorFacts:
    item = dtype.itemsize
    return TensorFacts(dtype, len(shape), pow2_divisor(ptr),
                       tuple(pow2_divisor(s * item) for s in strides),
                       tuple(pow2_divisor(n) for n in shape), contiguous)
