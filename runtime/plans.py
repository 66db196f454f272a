"""Launch plans: the per-kernel fast path that keeps a launch's host cost at a few microseconds.

Everything the binder decides (argument matching, dtype/rank/shape checks, Const inference, the
specialization, the grid, the executable) depends only on a cheap *descriptor* of the arguments:
per argument its type; for tensors and partitions the dtype, shape, strides and alignment class
of the base address (plus tile, order and blocks); for Consts the value. The first launch with
a descriptor goes through the binder and records a `LaunchPlan`; later ones only redo the checks
that depend on the values themselves (moved handles, Mut aliasing by address, integer scalars in
range: launch.py's `_launch`) and the ownership bookkeeping. When one of those checks
fails, the launch is redone on the full path, which raises the error with its usual wording.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import operator
from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ..compiler.dtypes import integer_range
from ..compiler.launch.contract import OVERFLOW
from ..compiler.specialization import Specialization
from . import native
from .backends.base import Backend, Executable, Statics, for_grid
from .binding import Bound
from .fastpath import Runner, build_runner, float_bound, tensor_of
from .ownership import launch_move
from .partition import Partition
from .tensor import Tensor, byte_extent

if TYPE_CHECKING:
    from .kernel import Kernel

Key = tuple[Hashable, ...]
# (parameter, overflow limit, the limit as a float64: None past every float64)
FloatScalar = tuple[int, int, np.float64 | None]


_ids: dict[Hashable, int] = {}  # handle descriptors -> small ints (1, 2, ...)
_next_id = itertools.count(1).__next__
_cached_id = operator.attrgetter("_kid")  # a handle's id, 0 until handle_id computes it


def handle_id(v: Tensor | Partition) -> int:
    """A tensor's or partition's part of the descriptor as a small int, computed once per handle
    (its dtype, shape, strides, address and tiling never change) and equal for equal
    descriptors, so a launch's key is a tuple of ints that hashes and compares quickly."""
    if isinstance(v, Partition):
        t = v._tensor
        order = v.order
        desc: Hashable = ("p", t._kid or handle_id(t), v.tile, order.kind, order.group, v.blocks)
    else:
        # the low 4 bits decide the alignment fact (capped at 16 bytes); None: a meta tensor
        align = None if v._buf is None else v._base & 15
        desc = (v._dtype.name, v._shape, v._strides, align)  # names hash faster than DTypes
        if v._buf is not None and v._buf.owner is not None:
            # a DLPack import: its own plans, so its first launch binds, where an Acc
            # argument is checked for read-only or copied memory (binding.py)
            desc += (type(v._buf.owner), getattr(v._buf.owner, "readonly", None))
    kid = _ids.get(desc)
    if kid is None:
        # a fresh number, and setdefault (atomic: the key hashes in C): two threads meeting a
        # new descriptor at once agree on one id, and no two descriptors ever share one
        kid = _ids.setdefault(desc, _next_id())
    v._kid = kid
    return kid


def handle_key(args: tuple[Any, ...]) -> Key | None:
    """The key of a call that passes only tensors and partitions (exact classes), their ids
    computed where a new handle has none yet; None for any other argument."""
    key = []
    for v in args:
        cls = type(v)
        if cls is not Tensor and cls is not Partition:
            return None
        key.append(v._kid or handle_id(v))
    return tuple(key)


def _describe(kind: str, v: Any) -> Hashable | None:
    """One argument's part of the descriptor; None: this argument never gets a plan. Keys hold
    ints (handles), classes (scalars), (class, value) pairs (Consts), and after the positional
    parts, keyword names (str) each followed by its part."""
    cls = type(v)
    if cls is Tensor or cls is Partition:
        return v._kid or handle_id(v)
    if kind == "const":
        return (cls, v)  # the class too: 1, 1.0 and True hash alike
    if kind != "scalar" and issubclass(cls, (Tensor, Partition)):
        return None  # a subclass: not worth a plan
    if cls is np.ndarray:  # a 0-d array's number: its class says neither dtype nor shape
        return None
    return cast(Hashable, cls)  # a scalar's value is checked per launch, not keyed


class LaunchPlan:
    """What the binder decided for one descriptor, laid out for the launch fast path."""

    __slots__ = ("alias_pairs", "backend", "exe", "float_scalars", "grid", "how", "int_scalars",
                 "muts", "owned", "pick", "prefix", "run", "sources", "spec", "statics", "tail",
                 "template", "tensors")

    def __init__(self, spec: Specialization, grid: tuple[int, int, int], template: list[Any],
                 sources: tuple[tuple[int, int | str], ...], muts: tuple[int, ...],
                 tensors: tuple[int, ...], int_scalars: tuple[tuple[int, int, int], ...],
                 alias_pairs: tuple[tuple[int, int, int, int], ...],
                 how: str) -> None:
        self.spec = spec
        self.grid = grid
        self.template = template  # per parameter: the Const's value, None for the others
        self.sources = sources  # (parameter, positional index or keyword)
        self.muts = muts
        self.tensors = tensors
        self.owned = muts + tensors
        self.int_scalars = int_scalars  # (parameter, lo, hi)
        # (parameter, limit, the limit as a float64): a float scalar is taken as it is when
        # -limit < value < limit or it is inf or nan (the contract's `overflows`); a finite
        # value past the limit goes to the full path, which says CT406 (`record` sets it,
        # from `Plans.float_scalars`).
        self.float_scalars: tuple[FloatScalar, ...] = ()
        # (Mut parameter i, another j, lo, hi): their bytes overlap iff lo < base j - base i < hi
        self.alias_pairs = alias_pairs
        self.how = how  # what a moved Mut argument says it was moved into
        # the common call: parameters 0..n-1 given positionally, the rest Consts
        n = len(sources)
        self.prefix = n if sources == tuple((i, i) for i in range(n)) else -1
        self.tail = template[n:]
        # the launch's results (its positional arguments) from its values, in C, for the
        # common call; None: tuple(values[:n])
        self.pick: Callable[[list[Any]], tuple[Any, ...]] | None = (
            operator.itemgetter(*range(n)) if n >= 2 and self.prefix == n else None)
        # per handle parameter, its shape and strides: the descriptor fixes them (`record`)
        self.statics: Statics = {}
        self.backend: Backend | None = None  # the last backend asked for, and its executable
        self.exe: Executable | None = None
        # the plan's generated launcher for the common call (fastpath.py), set by `record`
        self.run: Runner | None = None

    def values(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        """Per parameter, its value in this call (the launch inlines the common case)."""
        if self.prefix == len(args) and not kwargs:
            return [*args, *self.tail]
        values = self.template.copy()
        for i, src in self.sources:
            values[i] = args[src] if isinstance(src, int) else kwargs[src]
        return values

    def executable(self, kernel: Kernel, backend: Backend) -> Executable:
        """The specialization's executable on `backend`, made for this plan's shapes
        (`Executable.planned`): the kernel keeps every backend's (`Kernel.executable`, the
        one cache); the plan remembers the last one it used."""
        if self.backend is backend and self.exe is not None:
            return self.exe
        exe = for_grid(kernel.executable(backend, self.spec).planned(self.statics), self.grid)
        self.backend, self.exe = backend, exe
        return exe


class Plans:
    """One kernel's launch plans, by argument descriptor."""

    def __init__(self, kinds: tuple[str, ...], names: tuple[str, ...],
                 scalar_ranges: dict[int, tuple[int, int]],
                 float_limits: dict[int, int] | None = None) -> None:
        self.kinds = kinds
        self.index = {n: i for i, n in enumerate(names)}
        self.scalar_ranges = scalar_ranges
        # each bound converted once per kernel, not per launch
        self.float_scalars = tuple((i, limit, float_bound(limit))
                                   for i, limit in (float_limits or {}).items())
        self.plans: dict[Key, LaunchPlan] = {}
        # how many leading parameters take tensors or partitions
        self.handles = next((i for i, k in enumerate(kinds) if k not in ("mut", "acc", "tensor")),
                            len(kinds))

    def lookup(self, args: tuple[Any, ...], kwargs: dict[str, Any]
               ) -> tuple[Key | None, LaunchPlan | None]:
        """The call's descriptor and its plan. The descriptor is None when this call cannot
        have a plan (unknown keyword, too many arguments, an unhashable value): it then always
        takes the full path."""
        if not kwargs and len(args) <= self.handles:
            # the usual call, tensors and partitions only: their cached ids, gathered in C
            try:
                key = tuple(map(_cached_id, args))
            except AttributeError:  # not a handle (the binder will say so)
                key = ()
            if key and 0 in key:  # 0: an id not computed yet (a new handle)
                key = handle_key(args) or ()
            if key:
                return key, self.plans.get(key)
        return self._lookup_each(args, kwargs)

    def _lookup_each(self, args: tuple[Any, ...], kwargs: dict[str, Any]
                     ) -> tuple[Key | None, LaunchPlan | None]:
        """`lookup`, describing one argument at a time (the same key for the same call)."""
        kinds = self.kinds
        if len(args) > len(kinds):
            return None, None
        parts: list[Hashable | None] = [_describe(kind, v) for kind, v in
                                        zip(kinds, args, strict=False)]  # len(args) <= len(kinds)
        if kwargs and not self._describe_keywords(kwargs, parts):
            return None, None
        if None in parts:
            return None, None
        key = tuple(parts)
        try:
            return key, self.plans.get(key)
        except TypeError:  # an unhashable Const value: the full path every time
            return None, None

    def _describe_keywords(self, kwargs: dict[str, Any], parts: list[Hashable | None]
                           ) -> bool:
        for name, v in kwargs.items():
            at = self.index.get(name)
            if at is None:
                if name != "grid":
                    return False
                parts.append(("grid", _grid_key(v)))
                continue
            parts.append(name)
            parts.append(_describe(self.kinds[at], v))
        return True

    def record(self, key: Key, bound: Bound, kwargs: dict[str, Any], kernel_name: str
               ) -> LaunchPlan:
        """A plan from a launch the binder accepted (`bound.values` are the caller's values)."""
        kinds = self.kinds
        template = [v if kinds[i] == "const" else None for i, v in enumerate(bound.values)]
        sources = tuple((i, w) for i, w in enumerate(bound.where)
                        if kinds[i] != "const" and (isinstance(w, int) or w in kwargs))
        muts, tensors = access_indices(kinds)
        extents = {i: byte_extent(tensor_of(bound.values[i])) for i in (*muts, *tensors)}
        pairs = tuple(_alias_pair(i, j, extents[i], extents[j]) for i in muts
                      for j in (*muts, *tensors) if j != i and not (j in muts and j < i))
        ints = tuple((i, *r) for i, r in self.scalar_ranges.items())
        plan = LaunchPlan(bound.spec, bound.grid, template, sources, muts, tensors, ints,
                          pairs, launch_move(kernel_name))
        plan.float_scalars = self.float_scalars
        plan.statics = {i: statics(bound.values[i]) for i in (*muts, *tensors)}
        classes = tuple(map(type, bound.values))
        run = build_runner(plan, kernel_name, classes)
        plan.run = run and native.runner(plan, kernel_name, run, classes)
        with contextlib.suppress(TypeError):  # an unhashable Const: no plan, the full path
            self.plans[key] = plan
        return plan


def statics(v: Tensor | Partition) -> tuple[bool, tuple[int, ...], tuple[int, ...]]:
    """What a handle's descriptor fixes of its parameter block (`backends.base.Statics`)."""
    t = tensor_of(v)
    return type(v) is Partition, t._shape, t._strides


def _alias_pair(i: int, j: int, a: tuple[int, int], b: tuple[int, int]
                ) -> tuple[int, int, int, int]:
    """[A + a0, A + a1) and [B + b0, B + b1) overlap iff A + a0 < B + b1 and B + b0 < A + a1,
    that is iff a0 - b1 < B - A < a1 - b0: one subtraction and one chained compare per launch."""
    return (i, j, a[0] - b[1], a[1] - b[0])


def _grid_key(v: Any) -> Hashable:
    try:
        return tuple(v)
    except TypeError:
        return (type(v), id(v))  # not a sequence: the binder will say so


def build_plans(kernel: Kernel) -> Plans:
    params = kernel.binder().sig.params
    ranges = {i: integer_range(p.dtype) for i, p in enumerate(params)
              if p.kind == "scalar" and p.dtype is not None and p.dtype.is_integer}
    floats = {i: OVERFLOW[p.dtype.name] for i, p in enumerate(params)
              if p.kind == "scalar" and p.dtype is not None and p.dtype.name in OVERFLOW}
    return Plans(tuple(p.kind for p in params), tuple(p.name for p in params), ranges, floats)


def access_indices(kinds: Sequence[str]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The parameters a launch holds exclusively (Mut and Acc) and those it only reads."""
    return (tuple(i for i, k in enumerate(kinds) if k in ("mut", "acc")),
            tuple(i for i, k in enumerate(kinds) if k == "tensor"))


def float_in_range(value: Any, limit: int, bound: np.float64 | None) -> bool:
    """The fast path's test of a float scalar (fastpath.py writes the same test out): whether
    the launch contract takes it without a look (compiler/launch/contract.py `overflows`). A
    Python int is compared exactly; anything else as a float64 (`bound`: a NumPy float16
    compared with a Python float would be cast down to float16 and warn), inf and nan pass.
    f64's limit is past every float64: only an int can reach it."""
    if type(value) is int:
        return -limit < value < limit
    return bound is None or bool(-bound < value < bound) or not math.isfinite(value)

