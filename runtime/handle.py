"""A tensor handle's data: its memory, element layout, ownership record and view family.

`Tensor` (tensor.py) derives from `TensorHandle` and adds the host API's methods (declared in
compiler/hostapi), which delegate to helpers: views, partitions, DLPack, the access checks of
each call's effect. Those helpers take a `TensorHandle`, so they sit below tensor.py and never
import it: the Tensor class imports its helpers, never the reverse.

A view family (views.py): the views of one tensor share a `Root`, the frame in which every
view's `Region` is a box of element ranges per axis, and the record of the regions its pending
launches lease.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Self

from ..compiler.dtypes import DType
from ..compiler.launch.regions import Box, Frame
from .backends.base import Backend, Buffer
from .layout import byte_range
from .ownership import Owned, State, check_usable
from .sites import Site, caller_site, receiver_name

if TYPE_CHECKING:
    from .ops import LaunchOp


class Root:
    """The frame of a family of views, and the regions its pending launches lease."""

    __slots__ = ("__weakref__", "pending")

    def __init__(self) -> None:
        # (box, whether the launch writes it, the launch (weakly))
        self.pending: list[tuple[Box, bool, weakref.ref[LaunchOp]]] = []

    def live(self) -> list[tuple[Box, bool, LaunchOp]]:
        """The pending entries of launches still running (dropping the rest)."""
        out, keep = [], []
        for box, writes, ref in self.pending:
            op = ref()
            if op is not None and not op.finished:
                out.append((box, writes, op))
                keep.append((box, writes, ref))
        self.pending = keep
        return out


@dataclass(frozen=True, slots=True)
class Region:
    root: Root
    frame: Frame

    @property
    def box(self) -> Box:
        return self.frame.box

    def reshaped(self, rank: int) -> Region:
        """The same elements under another shape: the box stays, the axis map is lost."""
        return Region(self.root, self.frame.reshaped(rank))

    def key(self) -> tuple[int, Box]:
        """What the launch contract compares (facts.py: same root id, boxes intersect)."""
        return (id(self.root), self.frame.box)


class TensorHandle(Owned):
    """Element strides; memory owned by a Buffer (None for meta tensors). Its ownership record
    is its own (`Owned`'s slots)."""

    __slots__ = ("__weakref__", "_backend", "_base", "_buf", "_dtype", "_kid", "_offset",
                 "_region", "_shape", "_strides")

    def __init__(self, backend: Backend | None, buf: Buffer | None, offset: int,
                 shape: tuple[int, ...], strides: tuple[int, ...], dtype: DType,
                 region: Region | None = None) -> None:
        self._backend = backend
        self._buf = buf
        self._offset = offset  # bytes from buf.ptr
        self._shape = shape
        self._strides = strides
        self._dtype = dtype
        self._state = State.LIVE  # Owned.__init__, inlined
        self._how = ""
        self._site = None
        self._op = None
        self._leases = None
        # fixed for the handle's life, cached for launches: the address of element 0 (0 for a
        # meta tensor), and the launch descriptor's id (0 until a launch computes it)
        self._base = buf.ptr + offset if buf is not None else 0
        self._kid = 0
        # None until a view is taken of this memory: then the box it covers (views.py)
        self._region = region

    def _use(self, site: Site | None = None) -> None:
        if self._state is State.MOVED:
            site = site or caller_site()
            check_usable(self, receiver_name(site, "the tensor"), site)

    def _derive(self, offset: int, shape: tuple[int, ...], strides: tuple[int, ...],
                region: Region | None) -> Self:
        """A new handle of this class on the same memory, `offset` bytes further."""
        return type(self)(self._backend, self._buf, self._offset + offset, shape, strides,
                          self._dtype, region)

    def _moved_copy(self, how: str, site: Site, shape: tuple[int, ...] | None = None,
                    strides: tuple[int, ...] | None = None) -> Self:
        """A new handle on the same memory; this handle becomes moved."""
        region = self._region
        if region is not None and shape is not None and shape != self._shape:
            region = region.reshaped(len(shape))
        # `is None`, not `or`: a 0-d shape and its strides are the empty tuple
        new = self._derive(0, self._shape if shape is None else shape,
                           self._strides if strides is None else strides, region)
        if shape is None and strides is None:
            new._kid = self._kid  # the same descriptor (plans.handle_id)
        self._move(how, site)
        return new

    def _handoff(self) -> Self:
        """A new handle on the same memory, exclusively leased (a launch takes it for an Acc
        parameter, as it takes a Mut partition); the launch moves this handle."""
        new = self._derive(0, self._shape, self._strides, self._region)  # a view stays in its
        new._state, new._kid = State.EXCLUSIVE, self._kid  # family (its region)
        return new


def region_of(t: TensorHandle) -> Region:
    """The tensor's region, making it the root of a new family if it has none. A root made now
    takes over the handle's pending readers, so a later view sees them."""
    region = t._region
    if region is None:
        root = Root()
        frame = Frame.root(t._shape, t._strides)
        region = Region(root, frame)
        for op in t.active_leases():
            root.pending.append((frame.box, False, op._own_ref()))
        t._region = region
    return region


def byte_extent(t: TensorHandle) -> tuple[int, int]:
    """Bytes [lo, hi) relative to the tensor's offset that its elements touch."""
    return byte_range(t._shape, t._strides, t._dtype.itemsize)
