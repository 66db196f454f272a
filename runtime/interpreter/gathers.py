"""Element-addressed memory in the interpreter: gathers read `padding` outside the tensor, and
scatters drop what falls outside; no index ever reaches NumPy unchecked (negative indices would
wrap around in NumPy, on the GPU they are outside)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .memory import TensorRef
from .numeric import Array, fit, from_storage, to_storage


def _positions(ref: TensorRef, indices: Sequence[Any]) -> tuple[tuple[Array, ...], Array]:
    """(clipped index arrays, in-bounds mask) for one index array per axis, of one shape.
    Indices compare as Python-sized integers: u64 values above 2**63 are outside, not negative."""
    arrays = [np.asarray(i) for i in indices]
    shape = np.broadcast_shapes(*(a.shape for a in arrays)) if arrays else ()
    inside = np.ones(shape, dtype=bool)
    clipped = []
    for a, n in zip(arrays, ref.data.shape, strict=True):
        a = np.broadcast_to(a, shape)
        ok = (a >= 0) & (a < n) if a.dtype.kind == "i" else a < n
        inside &= ok
        clipped.append(np.where(ok, a, 0).astype(np.int64))
    return tuple(clipped), inside


def gather(ref: TensorRef, indices: Sequence[Any], padding: float = 0) -> Array:
    pos, inside = _positions(ref, indices)
    pad = fit(padding, ref.dtype)
    if ref.data.size == 0:  # nothing to read: every element is outside
        return fit(np.broadcast_to(pad, inside.shape), ref.dtype)
    values = from_storage(ref.data[pos], ref.dtype)
    return fit(np.where(inside, values, pad), ref.dtype)


def load_at(ref: TensorRef, offsets: Sequence[int], shape: Sequence[int],
            padding: float = 0) -> Array:
    """The tile of `shape` whose first element is at element `offsets`."""
    grids = np.meshgrid(*(np.arange(n, dtype=np.int64) + o for o, n in
                          zip(offsets, shape, strict=True)), indexing="ij")
    return gather(ref, grids, padding)


def scatter(ref: TensorRef, indices: Sequence[Any], values: Any, mask: Any = None) -> None:
    """Writes values where in bounds (and where `mask`); with repeated indices one value wins
    (the last in row-major order here; on the GPU any of them)."""
    pos, inside = _positions(ref, indices)
    if mask is not None:
        inside &= np.broadcast_to(np.asarray(mask, dtype=bool), inside.shape)
    vals = np.broadcast_to(np.asarray(values), inside.shape)
    keep = tuple(p[inside] for p in pos)
    ref.data[keep] = to_storage(vals[inside], ref.dtype)
