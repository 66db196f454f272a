"""Host views (`t[a:b]`, `narrow`, `view`, `permute`, `split_at`) and the regions they lease.

A view is a new `Tensor` handle on its base's buffer (offset and strides changed, no copy). Views
of one tensor share a `Root` (handle.py): the first handle viewed, whose axes are the frame in
which every view's `Region` is a box of element ranges per axis. A region is exact through slicing,
integer indexing and permuting; `view(shape)` keeps the box (the same elements) but loses the
axis map, so slicing such a view keeps its whole box (conservative: it may report an overlap
that element-exact reasoning would not, never the reverse).

Leases by region: while a launch is pending, the root remembers the boxes it reads and writes
(`Root.pending`). A write (a `Mut` partition of a view, or `partition()` of any handle of the
root) overlapping a pending read is CT303; any use overlapping a pending write is CT307. Two
handles of one buffer with different roots (two DLPack imports of the same memory) fall back to
the byte-range test that whole tensors use.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, TypeVar

from ..compiler.launch.moves import kernel_label
from ..compiler.launch.regions import (
    Index,
    Layout,
    axis_problem,
    boxes_intersect,
    index_problem,
    key_problem,
    narrow_problem,
    permute_problem,
    split_problem,
    view_strided_problem,
)
from ..diagnostics import messages as msg
from ..diagnostics.diagnostic import Note, Span
from ..diagnostics.errors import CutileError, error_for
from .errors import launch_error
from .handle import Region, TensorHandle, region_of
from .layout import contiguous_strides, is_contiguous, resolve_shape
from .sites import Site, argument_label, argument_span

if TYPE_CHECKING:
    from .ops import LaunchOp

H = TypeVar("H", bound=TensorHandle)  # the handle's class (Tensor): views are of that class

# -- making views ----------------------------------------------------------------------------
def make_view(t: H, offset: int, shape: tuple[int, ...], strides: tuple[int, ...],
              region: Region) -> H:
    return t._derive(offset * t._dtype.itemsize, shape, strides, region)


def getitem(t: H, key: Any, site: Site) -> H:
    """Basic indexing: ints (drop the axis), slices with a positive step, `...`."""
    items = _expand(key if isinstance(key, tuple) else (key,), len(t._shape), site)
    norm: list[Index] = []
    for axis, (item, n) in enumerate(zip(items, t._shape, strict=True)):
        given: Index = (item.start, item.stop, item.step) if isinstance(item, slice) else int(item)
        problem = index_problem(axis, given, n)
        if problem is not None:
            raise _bad(site, problem)
        norm.append(given)
    # where the view's elements are: the checker's rule for views it can follow too
    layout, shape = Layout(0, t._strides).indexed(t._shape, tuple(norm))
    region = region_of(t)
    found = region.frame.indexed(t._shape, tuple(norm))
    assert found is not None  # every index was validated above
    return make_view(t, layout.offset, shape, layout.strides, Region(region.root, found[0]))


def _expand(key: tuple[Any, ...], rank: int, site: Site) -> list[int | slice]:
    """The key with `...` expanded and missing trailing axes as full slices."""
    problem = key_problem(key, rank)  # the checker's rule for keys it can read too
    if problem is not None:
        raise _bad(site, problem)
    explicit = [k for k in key if k is not Ellipsis]
    fill = [slice(None)] * (rank - len(explicit))
    if Ellipsis in key:
        at = next(i for i, k in enumerate(key) if k is Ellipsis)
        return [*explicit[:at], *fill, *explicit[at:]]
    return [*explicit, *fill]


def _is_int(v: object) -> bool:
    import numpy as np

    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def narrow(t: H, axis: int, start: int, length: int, site: Site) -> H:
    axis = _axis(t, axis, site)
    n = t._shape[axis]
    if not (_is_int(start) and _is_int(length)):
        raise _bad(site, f"narrow() takes int bounds, not {start!r} and {length!r}")
    problem = narrow_problem(axis, int(start), int(length), n)
    if problem is not None:
        raise _bad(site, problem)
    key: list[Any] = [slice(None)] * len(t._shape)
    key[axis] = slice(int(start), int(start) + int(length))
    return getitem(t, tuple(key), site)


def split_at(t: H, axis: int, k: int, site: Site) -> tuple[H, H]:
    axis = _axis(t, axis, site)
    n = t._shape[axis]
    if not _is_int(k):
        raise _bad(site, f"split_at() takes an int position, not {k!r}")
    problem = split_problem(axis, int(k), n)
    if problem is not None:
        raise _bad(site, problem)
    return narrow(t, axis, 0, int(k), site), narrow(t, axis, int(k), n - int(k), site)


def permute(t: H, axes: tuple[int, ...], site: Site) -> H:
    rank = len(t._shape)
    norm = [_axis(t, a, site) for a in axes]
    problem = permute_problem(tuple(int(a) for a in axes), rank)
    if problem is not None:
        raise _bad(site, problem)
    region = region_of(t)
    return make_view(t, 0, tuple(t._shape[a] for a in norm), tuple(t._strides[a] for a in norm),
                     Region(region.root, region.frame.permuted(tuple(norm))))


def view(t: H, shape: tuple[int, ...], site: Site) -> H:
    if not is_contiguous(t._shape, t._strides):
        raise _bad(site, view_strided_problem(shape, t._shape, t._strides))
    dims = resolve_shape(shape, math.prod(t._shape), t._shape, site)
    region = region_of(t)
    return make_view(t, 0, dims, contiguous_strides(dims), region.reshaped(len(dims)))


def _axis(t: TensorHandle, axis: object, site: Site) -> int:
    rank = len(t._shape)
    if not _is_int(axis):
        raise _bad(site, f"an axis is an int, not {axis!r}")
    problem = axis_problem(int(axis), rank)  # type: ignore[call-overload]
    if problem is not None:
        raise _bad(site, problem)
    a: int = int(axis)  # type: ignore[call-overload]
    return a + rank if a < 0 else a


def _bad(site: Site, detail: str) -> Exception:
    return launch_error(msg.BAD_VIEW, site, detail=detail)


# -- region leases -----------------------------------------------------------------------------
def region_conflict(region: Region, writes: bool) -> tuple[bool, LaunchOp] | None:
    """The first pending launch whose region meets this one where one of the two writes:
    (whether that launch writes, the launch); None when there is none."""
    for box, pending_writes, op in region.root.live():
        if (pending_writes or writes) and boxes_intersect(box, region.box):
            return pending_writes, op
    return None


def region_error(conflict: tuple[bool, LaunchOp], name: str, action: str,
                 span: Span) -> CutileError:
    """CT307 when the pending launch writes the region; CT303 when it reads it (and this is a
    write)."""
    pending_writes, op = conflict
    message = msg.REGION_WRITTEN if pending_writes else msg.REGION_READ
    label = kernel_label(op.kernel_name)
    note = Note(msg.LEASED_HERE.format(kernel=label), op.site.span())
    return error_for([message.at(span, (note,), name=name, kernel=label, action=action)])


def check_launch(values: list[Any], muts: tuple[int, ...], tensors: tuple[int, ...],
                 where: dict[int, int | str], site: Site) -> list[tuple[Region, bool]]:
    """The regions a launch would lease (its Mut partitions write, its tensors read), checked
    against the pending launches of their roots; [] when no argument belongs to a view family
    (the usual case, one attribute read per argument)."""
    taken: list[tuple[Region, bool]] = []
    for writes, indices in ((True, muts), (False, tensors)):
        for i in indices:
            region = values[i]._region
            if region is not None:
                taken.append((region, writes))
    for region, writes in taken:
        conflict = region_conflict(region, writes)
        if conflict is not None:
            i = next(j for j in (*muts, *tensors) if values[j]._region is region)
            at = where.get(i, i)
            action = "read by another launch" if not writes else "passed to an Acc parameter" \
                if isinstance(values[i], TensorHandle) else "passed to a Mut parameter"
            raise region_error(conflict, argument_label(site, at, "the argument"), action,
                               argument_span(site, at))
    return taken


def lease_launch(taken: list[tuple[Region, bool]], op: LaunchOp) -> None:
    for region, writes in taken:
        region.root.pending.append((region.box, writes, op._own_ref()))
