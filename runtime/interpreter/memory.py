"""Global memory as the interpreter sees it: tensor views, padded loads and masked stores."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...compiler.dtypes import DType
from ...compiler.tiling import Tiling
from .. import hostdtypes
from ..partition import Partition
from ..tensor import Tensor
from .numeric import Array, fit, from_storage, to_storage


@dataclass
class TensorRef:
    """A kernel's view of a tensor argument (read-only, or a Mut partition's tensor)."""

    data: Array  # storage values, a view of the tensor's memory
    dtype: DType
    tile: tuple[int, ...] | None = None  # Mut: the partition's tile shape
    tiling: Tiling | None = None  # Mut: which block owns which tile


@dataclass
class PartitionRef:
    """`x.partition(shape)` inside a kernel."""

    tensor: TensorRef
    tile: tuple[int, ...]


def tensor_ref(value: Any) -> TensorRef:
    t: Tensor = value._tensor if isinstance(value, Partition) else value
    assert t._buf is not None and t._buf.host is not None
    dt = hostdtypes.storage(t._dtype)
    data: Array = np.ndarray(t._shape, dtype=dt, buffer=t._buf.host, offset=t._offset,
                             strides=tuple(s * dt.itemsize for s in t._strides))
    if isinstance(value, Partition):
        return TensorRef(data, t._dtype, value.tile, value.tiling)
    return TensorRef(data, t._dtype)


def _window(origin: tuple[int, ...], shape: tuple[int, ...], extent: tuple[int, ...]
            ) -> tuple[tuple[slice, ...], tuple[slice, ...]] | None:
    """Slices of the tensor and of the tile covering their overlap (None if empty)."""
    src, dst = [], []
    for o, s, n in zip(origin, shape, extent, strict=True):
        lo, hi = max(o, 0), min(o + s, n)
        if lo >= hi:
            return None
        src.append(slice(lo, hi))
        dst.append(slice(lo - o, hi - o))
    return tuple(src), tuple(dst)


def load(ref: TensorRef, index: tuple[int, ...], shape: tuple[int, ...],
         padding: float = 0) -> Array:
    """The tile at tile coordinates `index` (in units of `shape`); outside elements pad."""
    tile = fit(np.full(shape, padding), ref.dtype)
    origin = tuple(i * s for i, s in zip(index, shape, strict=True))
    win = _window(origin, shape, ref.data.shape)
    if win is not None:
        tile[win[1]] = from_storage(ref.data[win[0]], ref.dtype)
    return tile


def store(ref: TensorRef, index: tuple[int, ...], tile: Array) -> None:
    """Writes the tile at tile coordinates `index`; elements outside the tensor are dropped."""
    shape = tuple(tile.shape)
    origin = tuple(i * s for i, s in zip(index, shape, strict=True))
    win = _window(origin, shape, ref.data.shape)
    if win is not None:
        ref.data[win[0]] = to_storage(tile[win[1]], ref.dtype)


def slab(ref: TensorRef, index: tuple[int, ...], source: TensorRef | None = None
         ) -> TensorRef:
    """Slab `index` of a Mut partition as a tensor of its own: its origin is the slab's, its
    extents the slab's clipped at the tensor's edge, so tiles inside it pad and mask at the
    slab's edge even where the tensor continues (that is a neighbour's slab). With `source`
    (`ct.load_tile_like(x, z)`), the same region of another tensor, clipped at that one's edge."""
    assert ref.tile is not None
    src = ref if source is None else source
    region = tuple(slice(i * s, min((i + 1) * s, n))  # empty where the source ends first
                   for i, s, n in zip(index, ref.tile, src.data.shape, strict=True))
    return TensorRef(src.data[region], src.dtype)


def tiling_of(ref: TensorRef) -> Tiling:
    if ref.tiling is None:  # a read-only tensor: the frontend only tiles Mut parameters
        raise TypeError("tile mapping asked of a tensor that is not a Mut partition")
    return ref.tiling


_UFUNCS = {"add": np.add, "max": np.maximum, "min": np.minimum, "or": np.bitwise_or,
           "and": np.bitwise_and, "xor": np.bitwise_xor}


def accumulate(ref: TensorRef, op: str, indices: tuple[Array, ...], values: Array) -> None:
    """Accumulates `values` into the tensor at element `indices` (arrays of one shape), one
    element after another in row-major order (repeated indices all count); elements whose
    index is outside the tensor are dropped."""
    extent = ref.data.shape
    keep = np.ones(values.shape, dtype=bool)
    for i, n in zip(indices, extent, strict=True):
        keep &= (i >= 0) & (i < n)
    if not keep.any():
        return
    flat = np.ravel_multi_index(tuple(i[keep] for i in indices), extent)
    touched, where = np.unique(flat, return_inverse=True)
    at = np.unravel_index(touched, extent)
    current = from_storage(ref.data[at], ref.dtype)
    _UFUNCS[op].at(current, where, values[keep].astype(current.dtype))
    ref.data[at] = to_storage(fit(current, ref.dtype), ref.dtype)
