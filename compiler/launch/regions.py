"""The element region a host view covers, worked out once for the runtime and the checker.

A family of views shares a frame: the axes of the tensor first viewed (its root). A view's
region is a box there, `[lo, hi)` and a step per root axis (the indices lo, lo + step, ... below
hi), and a map from each of its own axes to a root axis (with the origin and step of the slice
that made it). The box is exact through slicing, integer indexing and permuting; `view(shape)`
keeps the box (the same elements) but loses the map, so later slices of it keep the whole box.
Two boxes meet where, on every root axis, their index progressions share an index: exact for
views of one root (`t[::2]` and `t[1::2]` share none), conservative after `view(shape)`.

The checker works with extents it may not know (None); an unknown extent's axis is
`[0, UNBOUNDED)`. It asks only where every index is a known int; the runtime validates the
indices first (CT406) and so never sees an out-of-range one here.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

Box = tuple[tuple[int, int, int], ...]  # per root axis: [lo, hi) element indices, step
AxisMap = tuple[int, int, int] | None  # a view axis: (root axis, origin, step); None: unknown
UNBOUNDED = 2**62
# one index of a view: an int (drops the axis) or (start, stop, step) with Nones as in Python
Index = int | tuple[int | None, int | None, int | None]


@dataclass(frozen=True, slots=True)
class Frame:
    """A view's box in its family's frame, and its own axes' map into that frame."""

    box: Box
    axes: tuple[AxisMap, ...]
    # the box is the view's own coordinate ranges (False after `view(shape)`, whose box is
    # its base's: a bounding box, so boxes that meet need not share elements)
    exact: bool = True

    @staticmethod
    def root(shape: tuple[int | None, ...], strides: tuple[int, ...] | None = None) -> Frame:
        """A family's frame. An axis of stride 0 (a broadcast import: its indices are one
        element) maps to none of the frame's, so every view covers all of it and two views
        that differ only there overlap, as their memory does."""
        shared = [strides is not None and strides[a] == 0 and n != 1
                  for a, n in enumerate(shape)]
        return Frame(tuple((0, UNBOUNDED if n is None else n, 1) for n in shape),
                     tuple(None if shared[a] else (a, 0, 1) for a in range(len(shape))))

    def permuted(self, order: tuple[int, ...]) -> Frame:
        return Frame(self.box, tuple(self.axes[a] for a in order), self.exact)

    def reshaped(self, rank: int) -> Frame:
        return Frame(self.box, (None,) * rank, False)

    def indexed(self, shape: tuple[int | None, ...], items: tuple[Index, ...]
                ) -> tuple[Frame, tuple[int | None, ...]] | None:
        """The frame and shape after `view[items]` (one item per axis); None when a slice's
        length cannot be known (a negative bound on an axis of unknown extent)."""
        box = list(self.box)
        axes: list[AxisMap] = []
        dims: list[int | None] = []
        for axis, (item, n) in enumerate(zip(items, shape, strict=True)):
            m = self.axes[axis]
            if isinstance(item, int):
                k = item + n if item < 0 and n is not None else item
                if k < 0:
                    return None
                if m is not None:
                    r, origin, s = m
                    box[r] = (origin + k * s, origin + k * s + 1, 1)
                continue
            norm = _slice(item, n)
            if norm is None:
                return None
            start, count, step = norm
            dims.append(count)
            if m is None:
                axes.append(None)
                continue
            r, origin, s = m
            lo = origin + start * s
            hi = UNBOUNDED if count is None else lo + max(count - 1, 0) * s * step + (
                1 if count else 0)
            box[r] = (lo, hi, s * step)
            axes.append((r, lo, s * step))
        return Frame(tuple(box), tuple(axes), self.exact), tuple(dims)


def _slice(item: tuple[int | None, int | None, int | None], n: int | None
           ) -> tuple[int, int | None, int] | None:
    """(start, count or None when unknown, step) of a slice on an axis of extent n."""
    start, stop, step = item
    step = 1 if step is None else step
    if step < 1:
        return None
    if n is not None:
        lo, hi, _ = slice(start, stop, step).indices(n)
        return lo, len(range(lo, hi, step)), step
    lo = 0 if start is None else start
    if lo < 0 or (stop is not None and stop < 0):
        return None
    if stop is None:
        return lo, None, step
    return lo, len(range(lo, stop, step)), step


@dataclass(frozen=True, slots=True)
class Layout:
    """Where a view's elements are in its storage: the offset of its first element and its
    strides, in elements (the runtime's `Tensor._offset` and `_strides`, worked out from the
    host code by the checker where every extent is known)."""

    offset: int
    strides: tuple[int, ...]

    @staticmethod
    def root(shape: tuple[int, ...]) -> Layout:
        return Layout(0, contiguous_strides(shape))

    def indexed(self, shape: tuple[int, ...], items: tuple[Index, ...]
                ) -> tuple[Layout, tuple[int, ...]]:
        """After `view[items]` (validated: one item per axis, ints in range, steps >= 1), for
        the checker and runtime/views.py's getitem alike: an empty slice adds no offset."""
        offset, dims, strides = self.offset, [], []
        for item, n, s in zip(items, shape, self.strides, strict=True):
            if isinstance(item, int):
                offset += (item + n if item < 0 else item) * s
                continue
            start, stop, step = slice(*item).indices(n)
            count = len(range(start, stop, step))
            offset += start * s if count else 0
            dims.append(count)
            strides.append(s * step)
        return Layout(offset, tuple(strides)), tuple(dims)

    def permuted(self, order: tuple[int, ...]) -> Layout:
        return Layout(self.offset, tuple(self.strides[a] for a in order))

    def contiguous(self, shape: tuple[int, ...]) -> bool:
        """The runtime's test (`Tensor.is_contiguous`)."""
        return is_contiguous(shape, self.strides)

    def extent(self, shape: tuple[int, ...]) -> tuple[int, int]:
        """The elements [lo, hi) of the storage its elements lie in (runtime/tensor.py's
        byte_extent, in elements and from the storage's start); empty for no elements."""
        lo, hi = element_range(shape, self.strides)
        return self.offset + lo, self.offset + hi


def contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def is_contiguous(shape: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    """Row-major without gaps; size-1 axes take any stride."""
    expect = contiguous_strides(shape)
    return all(n == 1 or s == e for n, s, e in zip(shape, strides, expect, strict=True))


def element_range(shape: tuple[int, ...], strides: tuple[int, ...]) -> tuple[int, int]:
    """The elements [lo, hi), relative to element 0, that a layout touches ((0, 0): none)."""
    if any(n == 0 for n in shape):
        return 0, 0
    lo = sum(s * (n - 1) for s, n in zip(strides, shape, strict=True) if s < 0)
    hi = sum(s * (n - 1) for s, n in zip(strides, shape, strict=True) if s > 0)
    return lo, hi + 1


def boxes_intersect(a: Box, b: Box) -> bool:
    """Whether two boxes of one frame share an element: on every axis an index both step to."""
    return len(a) == len(b) and all(_progressions_meet(x, y) for x, y in zip(a, b, strict=True))


def _progressions_meet(a: tuple[int, int, int], b: tuple[int, int, int]) -> bool:
    """Whether lo_a + i * step_a and lo_b + j * step_b (below their his) share a value: the
    common values are one residue modulo lcm(steps) when the starts differ by a multiple of
    gcd(steps) (none otherwise); the first at or past both starts must be below both ends."""
    (alo, ahi, sa), (blo, bhi, sb) = a, b
    lo, hi = max(alo, blo), min(ahi, bhi)
    if sa == sb == 1:  # the common case (plain slices): the ranges overlap
        return lo < hi
    g = math.gcd(sa, sb)
    if lo >= hi or (blo - alo) % g:
        return False
    m = sb // g
    k = (blo - alo) // g * pow(sa // g, -1, m) % m if m > 1 else 0
    first, period = alo + sa * k, sa // g * sb  # a common value, and the lcm
    return first + -((first - lo) // period) * period < hi


# -- what is wrong with a view's arguments (CT406 `view: ...`), worded once for both sides -------
def axis_problem(axis: int, rank: int) -> str | None:
    return None if -rank <= axis < rank else (
        f"axis {axis!r} is out of range for a tensor of rank {rank}")


def count_problem(count: int, rank: int) -> str | None:
    return None if count <= rank else f"too many indices ({count}) for a tensor of rank {rank}"


def key_problem(key: tuple[object, ...], rank: int | None) -> str | None:
    """What is wrong with a key `t[key]` before its extents are looked at: one `...` at most,
    only ints, slices of ints and `...`, no more indices than axes (rank None: not known)."""
    if sum(k is Ellipsis for k in key) > 1:
        return "an index can have only one ellipsis ('...')"
    for k in key:
        if not (k is Ellipsis or isinstance(k, slice) or is_index_int(k)):
            return f"views take ints, slices and '...'; got {k!r} (copy with numpy() for fancy " \
                   "indexing)"
        if isinstance(k, slice) and not all(v is None or is_index_int(v)
                                            for v in (k.start, k.stop, k.step)):
            return f"slice bounds must be ints, not {k!r}"
    count = sum(k is not Ellipsis for k in key)
    return None if rank is None else count_problem(count, rank)


def is_index_int(v: object) -> bool:
    """An int index: Python's or NumPy's integers (they register as Integral), never a bool."""
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def index_problem(axis: int, item: Index, n: int | None) -> str | None:
    """An int index outside a known extent, or a slice step below 1."""
    if isinstance(item, int):
        if n is not None and not -n <= item < n:
            return f"index {item} is out of range for axis {axis} of extent {n}"
        return None
    step = item[2]
    return None if step is None or step >= 1 else f"slice steps must be positive, not {step}"


def narrow_problem(axis: int, start: int, length: int, n: int | None) -> str | None:
    if start < 0 or length < 0 or (n is not None and start + length > n):
        return (f"narrow({axis}, {start}, {length}) needs 0 <= start and start + length <= "
                f"{'n' if n is None else n} (the extent of axis {axis})")
    return None


def split_problem(axis: int, k: int, n: int | None) -> str | None:
    if k < 0 or (n is not None and k > n):
        return (f"split_at({axis}, {k}) needs 0 <= k <= {'n' if n is None else n} (the extent "
                f"of axis {axis})")
    return None


def permute_problem(axes: tuple[int, ...], rank: int) -> str | None:
    norm = sorted(a + rank if a < 0 else a for a in axes)
    return None if norm == list(range(rank)) else (
        f"permute({axes}) must name each of the {rank} axes once")


def view_strided_problem(shape: object, dims: tuple[int, ...], strides: tuple[int, ...]) -> str:
    """`t.view(shape)` of a tensor that is not contiguous (`shape` as the call gave it)."""
    return (f"view({shape}) needs a contiguous tensor, but this one has shape {dims} and "
            f"strides {strides} (a permuted or sliced view); copy it first, or slice the view "
            "instead")


def resolve_dims(dims: tuple[int, ...], size: int) -> tuple[int, ...]:
    """A reshape's shape with its one -1 inferred where the size allows (the caller then
    checks that the sizes agree: BAD_RESHAPE otherwise)."""
    if dims.count(-1) == 1:
        known = math.prod(d for d in dims if d != -1)
        if known and size % known == 0:
            return tuple(size // known if d == -1 else d for d in dims)
    return dims
