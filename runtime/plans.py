"""Launch plans: the per-kernel fast path that keeps a launch's host cost at a few microseconds.

Everything the binder decides (argument matching, dtype/rank/shape checks, Const inference, the
specialization, the grid, the executable) depends only on a cheap *descriptor* of the arguments:
per argument its type; for tensors and partitions the dtype, shape, strides and alignment class
of the base address (plus tile, order and blocks); for Consts the value. The first launch with
a descriptor goes through the binder and records a `LaunchPlan`; later ones only redo the checks
that depend on the values themselves (moved handles, Mut aliasing by address, integer scalars in
range) and the ownership bookkeeping. When one of those checks fails, the launch is redone on
the full path, which raises the error with its usual wording.
"""

from __future__ import annotations

import contextlib
from collections.abc import Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from ..compiler.dtypes import integer_range
from ..compiler.specialization import Specialization
from .backends.base import Backend, Executable
from .binding import Bound
from .ownership import State
from .partition import Partition
from .tensor import Tensor, byte_extent

if TYPE_CHECKING:
    from .kernel import Kernel

Key = tuple[Hashable, ...]


def _describe(kind: str, v: Any) -> Hashable:
    cls = type(v)
    if cls is Partition:
        t = v._tensor
        buf = t._buf
        # the low 4 bits decide the alignment fact (capped at 16 bytes); None: a meta tensor
        align = None if buf is None else (buf.ptr + t._offset) & 15
        order = v.order
        return (t._dtype.name, t._shape, t._strides, align, v.tile, order.kind, order.group,
                v.blocks)
    if cls is Tensor:
        buf = v._buf
        align = None if buf is None else (buf.ptr + v._offset) & 15
        return (v._dtype.name, v._shape, v._strides, align)  # names hash faster than DTypes
    if kind == "const":
        return (cls, v)  # the class too: 1, 1.0 and True hash alike
    return cast(Hashable, cls)  # a scalar's value is checked per launch, not keyed


@dataclass
class LaunchPlan:
    spec: Specialization
    grid: tuple[int, int, int]
    template: list[Any]  # per parameter: the Const's value, None for the others
    sources: tuple[tuple[int, int | str], ...]  # (parameter, positional index or keyword)
    muts: tuple[int, ...]
    tensors: tuple[int, ...]
    int_scalars: tuple[tuple[int, int, int], ...]  # (parameter, lo, hi)
    # (Mut parameter, another, their byte ranges from their bases): they must not overlap
    alias_pairs: tuple[tuple[int, int, int, int, int, int], ...]
    executables: dict[int, Executable]  # by id(backend)

    def __post_init__(self) -> None:
        self.owned = self.muts + self.tensors

    def values(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        values = self.template.copy()
        for i, src in self.sources:
            values[i] = args[src] if isinstance(src, int) else kwargs[src]
        return values

    def checks_pass(self, values: list[Any]) -> bool:
        """The value-dependent checks; False sends the launch down the full path."""
        moved = State.MOVED
        for i in self.owned:
            if values[i]._own.state is moved:
                return False
        for i, lo, hi in self.int_scalars:
            if not lo <= int(values[i]) <= hi:
                return False
        for i, j, alo, ahi, blo, bhi in self.alias_pairs:
            a = _tensor(values[i])
            b = _tensor(values[j])
            abuf, bbuf = a._buf, b._buf
            assert abuf is not None and bbuf is not None
            a0 = abuf.ptr + a._offset
            b0 = bbuf.ptr + b._offset
            if a0 + alo < b0 + bhi and b0 + blo < a0 + ahi and abuf.device == bbuf.device:
                return False
        return True

    def executable(self, kernel: Kernel, backend: Backend) -> Executable:
        exe = self.executables.get(id(backend))
        if exe is None:
            exe = self.executables[id(backend)] = kernel.executable(backend, self.spec)
        return exe


def _tensor(v: Any) -> Tensor:
    t: Tensor = v._tensor if type(v) is Partition else v
    return t


class Plans:
    """One kernel's launch plans, by argument descriptor."""

    def __init__(self, kinds: tuple[str, ...], names: tuple[str, ...],
                 scalar_ranges: dict[int, tuple[int, int]]) -> None:
        self.kinds = kinds
        self.index = {n: i for i, n in enumerate(names)}
        self.scalar_ranges = scalar_ranges
        self.plans: dict[Key, LaunchPlan] = {}

    def key(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Key | None:
        """The descriptor, or None when this call cannot have a plan (unknown keyword, too many
        arguments, an unhashable value): it then always takes the full path."""
        kinds = self.kinds
        if len(args) > len(kinds):
            return None
        parts: list[Hashable] = [len(args)]
        for i, v in enumerate(args):
            parts.append(_describe(kinds[i], v))
        for name, v in kwargs.items():
            at = self.index.get(name)
            if at is None:
                if name != "grid":
                    return None
                parts.append(("grid", _grid_key(v)))
                continue
            parts.append(name)
            parts.append(_describe(kinds[at], v))
        return tuple(parts)

    def find(self, key: Key | None) -> LaunchPlan | None:
        if key is None:
            return None
        try:
            return self.plans.get(key)
        except TypeError:  # an unhashable Const value: the full path every time
            return None

    def record(self, key: Key, bound: Bound, kwargs: dict[str, Any]) -> LaunchPlan:
        """A plan from a launch the binder accepted (`bound.values` are the caller's values)."""
        kinds = self.kinds
        template = [v if kinds[i] == "const" else None for i, v in enumerate(bound.values)]
        sources = tuple((i, w) for i, w in enumerate(bound.where)
                        if kinds[i] != "const" and (isinstance(w, int) or w in kwargs))
        muts = tuple(i for i, k in enumerate(kinds) if k == "mut")
        tensors = tuple(i for i, k in enumerate(kinds) if k == "tensor")
        extents = {i: byte_extent(_tensor(bound.values[i])) for i in (*muts, *tensors)}
        pairs = tuple((i, j, *extents[i], *extents[j]) for i in muts for j in (*muts, *tensors)
                      if j != i and not (kinds[j] == "mut" and j < i))
        ints = tuple((i, *r) for i, r in self.scalar_ranges.items())
        plan = LaunchPlan(bound.spec, bound.grid, template, sources, muts, tensors, ints,
                          pairs, {})
        with contextlib.suppress(TypeError):  # an unhashable Const: no plan, the full path
            self.plans[key] = plan
        return plan


def _grid_key(v: Any) -> Hashable:
    try:
        return tuple(v)
    except TypeError:
        return (type(v), id(v))  # not a sequence: the binder will say so


def build_plans(kernel: Kernel) -> Plans:
    params = kernel.binder().sig.params
    ranges = {i: integer_range(p.dtype) for i, p in enumerate(params)
              if p.kind == "scalar" and p.dtype is not None and p.dtype.is_integer}
    return Plans(tuple(p.kind for p in params), tuple(p.name for p in params), ranges)

