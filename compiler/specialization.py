"""What one compiled variant of a kernel may assume: the lowering's input, filled by the launcher.

Per parameter (signature order): a tensor's `TensorFacts`, a Mut partition's `MutFacts` (its
tensor's facts plus the tile order and whether the launch is persistent), a scalar's `DType`, or
`None` for a Const. Facts are capped powers of two, so launches that differ only beyond 16
bytes share a cubin. Units match the runtime's: `align` and `stride_div` in bytes, `shape_div`
in elements. Every field is hashable and goes into the cache key.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .dsl.orders import TileOrder, row_major
from .dtypes import DType

CAP = 16  # facts are capped here: 16-byte alignment is all TMA asks for


@dataclass(frozen=True)
class TensorFacts:
    dtype: DType
    rank: int
    align: int  # bytes dividing the base address (power of two <= 16; 1 when unknown)
    stride_div: tuple[int, ...]  # bytes dividing each stride (power of two <= 16)
    shape_div: tuple[int, ...]  # elements dividing each extent (power of two <= 16)
    contiguous: bool  # C order: last stride 1, the others packed
    descending: tuple[int, ...] = ()  # the strides, when any is negative (GPU: CT508)

    def stride_div_elems(self, axis: int) -> int:
        """The stride divisor in elements (what `assume div_by` on a stride value needs)."""
        return max(1, self.stride_div[axis] // self.dtype.itemsize) if self.stride_div else 1


@dataclass(frozen=True)
class MutFacts:
    tensor: TensorFacts
    tile: tuple[int, ...]
    order: TileOrder = row_major
    persistent: bool = False
    # per axis: the slab spans the tensor's whole extent (one slab along it)
    whole: tuple[bool, ...] = ()

    @property
    def linear(self) -> bool:
        """Blocks numbered linearly (see `tiling.py`): any order but the default, or persistent."""
        return self.persistent or self.order != row_major


ParamFacts = TensorFacts | MutFacts | DType | None


@dataclass(frozen=True)
class Specialization:
    consts: tuple[tuple[str, Any], ...]  # Const values by name, in signature order
    args: tuple[ParamFacts, ...]  # per parameter, in signature order (None for Consts)
    arch: str = "sm_90"
    # `kernel.with_hints(...)`: code-generation hints over the decorator's, by name
    hints: tuple[tuple[str, int], ...] = ()
    # `kernel.dependent()`: a programmatic-dependent-launch wait as the body's first statement
    entry_wait: bool = False

    @property
    def const_values(self) -> dict[str, Any]:
        return dict(self.consts)


def pow2_divisor(n: int, cap: int = CAP) -> int:
    """The largest power of two <= cap dividing n (cap for 0)."""
    if n == 0:
        return cap
    n = abs(n)
    return min(n & -n, cap)


def tensor_facts(dtype: DType, ptr: int | None, shape: tuple[int, ...],
                 strides: tuple[int, ...], contiguous: bool) -> TensorFacts:
    """Facts of a tensor at `ptr` (None: a `ct.meta` tensor, assumed allocator-aligned)."""
    item = dtype.itemsize
    return TensorFacts(dtype, len(shape), CAP if ptr is None else pow2_divisor(ptr),
                       tuple(pow2_divisor(s * item) for s in strides),
                       tuple(pow2_divisor(n) for n in shape), contiguous,
                       strides if any(s < 0 for s in strides) else ())
