"""Matching launch arguments to a kernel signature, before anything runs.

The rules are the launch contract's (compiler/launch), the same the checker applies: this
module describes the concrete arguments to it (`arg_facts`), raises its verdict's diagnostics
(OwnershipError for CT3xx, LaunchError otherwise), and for an accepted call builds what the
launch needs: values per parameter, Consts, the grid and the specialization facts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..compiler.frontend.params import KernelSignature, ParamSpec
from ..compiler.launch import ArgFacts, LaunchContract, contract_for
from ..compiler.launch.contract import At, launch_consts
from ..compiler.launch.facts import (
    NUMBER_KINDS,
    array_text,
    list_facts,
    literal_facts,
    partition_grid,
    type_name,
)
from ..compiler.launch.regions import Box
from ..compiler.specialization import MutFacts, ParamFacts, Specialization, tensor_facts
from ..diagnostics.diagnostic import Span
from ..diagnostics.errors import error_for
from .dlpack import check_write
from .ownership import State, move_facts
from .partition import Partition
from .sites import Site, argument_label, argument_span, keyword_span
from .tensor import Tensor, byte_extent


@dataclass
class Bound:
    """A validated launch: values in signature order, the Consts, the grid, the facts."""

    values: list[Any]  # per parameter, Consts included
    where: list[int | str]  # per parameter: positional index or keyword of its argument
    positional: int  # how many arguments were positional (what .sync() returns)
    consts: dict[str, Any]
    grid: tuple[int, int, int]
    spec: Specialization


class SiteLocator:
    """Spans and texts of a call's arguments, read from the user's source only when asked."""

    def __init__(self, site: Site) -> None:
        self.site = site

    def call(self) -> Span:
        return self.site.span()

    def arg(self, at: At) -> Span:
        return argument_span(self.site, at)

    def keyword(self, key: str) -> Span:
        return keyword_span(self.site, key)

    def text(self, at: At, fallback: str) -> str:
        return argument_label(self.site, at, fallback)


class Binder:
    def __init__(self, kernel: Any, sig: KernelSignature) -> None:
        self.kernel = kernel
        self.sig = sig
        self.name = sig.name
        self.contract: LaunchContract = contract_for(sig)

    def bind(self, args: tuple[Any, ...], kwargs: dict[str, Any], site: Site,
             aliasing: bool = True) -> Bound:
        """`aliasing=False` for `kernel.compile`: its stand-ins for meta tensors share an
        address, and nothing runs, so there is no storage to share."""
        verdict = self.contract.check(
            [self._arg_facts(v, i, site, aliasing) for i, v in enumerate(args)],
            [(k, self._arg_facts(v, k, site, aliasing)) for k, v in kwargs.items()],
            SiteLocator(site))
        if verdict.diags:
            raise error_for(verdict.diags)
        params = self.sig.params
        values: list[Any] = [None] * len(params)
        where: list[int | str] = list(range(len(params)))
        consts = launch_consts(self.sig, verdict.consts)
        facts: list[ParamFacts] = [None] * len(params)
        for i, p in enumerate(params):
            at = verdict.where[i]
            if p.kind == "const":
                values[i] = consts[p.name]
                continue
            assert at is not None
            values[i] = args[at] if isinstance(at, int) else kwargs[at]
            if p.kind == "scalar":  # a 0-d NumPy array: its number, read at the call
                values[i] = held_number(values[i])
            where[i] = at
            if p.kind == "acc" and getattr(values[i]._buf, "owner", None) is not None:
                check_write(values[i], "passed to an Acc parameter", site, at)  # an import
            facts[i] = _facts(p.kind, values[i], p.dtype)
        muts = [values[i] for i in self.contract.muts]
        grid = muts[0].launch_grid if muts else verdict.grid
        assert grid is not None
        ordered = tuple((p.name, consts[p.name]) for p in params if p.kind == "const")
        spec = Specialization(ordered, tuple(facts), hints=self.kernel.hints,
                              entry_wait=self.kernel.entry_wait)
        return Bound(values, where, len(args), consts, grid, spec)

    def _arg_facts(self, v: Any, at: At, site: Site, aliasing: bool) -> ArgFacts:
        """`arg_facts`, but a scalar or Const parameter's argument as a number
        (`number_facts`): the parameter is the one the contract matches `at` to."""
        p = self.contract.param(at)
        if isinstance(v, list):
            return list_facts(len(v), None if p is None else p.kind)
        if p is not None and p.kind in NUMBER_KINDS:
            return number_facts(v, p, site, at)
        return arg_facts(v, site, aliasing)


def _facts(kind: str, value: Any, dtype: Any) -> ParamFacts:
    if kind == "scalar":
        return dtype  # type: ignore[no-any-return]
    t: Tensor = value._tensor if kind == "mut" else value
    assert t._buf is not None
    facts = tensor_facts(t._dtype, t._buf.ptr + t._offset, t._shape, t._strides,
                         t.is_contiguous())
    if kind == "mut":
        whole = tuple(n >= d for n, d in zip(value.tile, t._shape, strict=True))
        return MutFacts(facts, value.tile, value.order, value.blocks is not None, whole)
    return facts


def arg_facts(v: Any, site: Site | None, aliasing: bool = True) -> ArgFacts:
    """What the launch contract needs to know about one concrete argument."""
    if isinstance(v, Tensor):
        return ArgFacts("tensor", v._dtype, v._shape, extent=_extent(v) if aliasing else None,
                        meta=v._buf is None, moved=_moved(v, site), region=_region(v),
                        strides=v._strides)
    if isinstance(v, Partition):
        t = v._tensor
        grid, text = partition_grid(v.grid, v.launch_grid, repr(v.order), v.blocks)
        return ArgFacts("partition", t._dtype, t._shape, v.tile, grid, text,
                        persistent=v.blocks is not None,
                        extent=_extent(t) if aliasing else None, meta=t._buf is None,
                        moved=_moved(v, site), region=_region(v), strides=t._strides)
    return _plain_facts(v)


def _plain_facts(v: Any) -> ArgFacts:
    from .ops import DeviceOp

    if isinstance(v, np.bool_):  # NumPy scalars count as the Python ones
        return literal_facts(bool(v))
    if isinstance(v, np.integer):
        return literal_facts(int(v))
    if isinstance(v, np.floating):
        return literal_facts(float(v))
    if isinstance(v, DeviceOp):
        return ArgFacts("op")
    if isinstance(v, tuple):  # NumPy ints in a grid= tuple are ints
        return ArgFacts("tuple", value=tuple(
            int(x) if isinstance(x, np.integer) else bool(x) if isinstance(x, np.bool_) else x
            for x in v))
    return literal_facts(v)


def held_number(v: Any) -> Any:
    """A 0-d NumPy array of numbers or bools as the NumPy scalar it holds (host memory, read
    now: a later write to the array does not reach a pending launch); anything else as is."""
    if type(v) is np.ndarray and v.shape == () and v.dtype.kind in "biuf":
        return v[()]
    return v


def number_facts(v: Any, p: ParamSpec, site: Site | None, at: At) -> ArgFacts:
    """A scalar or Const parameter's argument: a 0-d NumPy array is its number, as a NumPy
    scalar is. Another array-like (torch, CuPy, a larger NumPy array) is refused with a hint
    that fits a number parameter: wrapping it as a tensor would not help (a list: list_facts)."""
    v = held_number(v)
    if isinstance(v, Tensor | Partition | np.bool_ | np.integer | np.floating) or not (
            hasattr(v, "__dlpack__") or hasattr(v, "__array_interface__")):
        return arg_facts(v, site)
    shape = getattr(v, "shape", None)
    dims = tuple(shape) if isinstance(shape, tuple | list) else None  # torch.Size too
    text = array_text(type_name(v), getattr(v, "dtype", None), dims, hint=False)
    if dims is not None and math.prod(dims) == 1 and not isinstance(v, np.generic):
        name = argument_label(site, at, "x")
        convert = "" if dims else f"{_converter(p)}({name}) or "
        text += f"; pass the number it holds: {convert}{name}.item()"
    return ArgFacts("other", text=text)


def _converter(p: ParamSpec) -> str:
    """The Python type that makes the number a parameter takes."""
    kind = p.const_kind if p.kind == "const" else (
        None if p.dtype is None else "bool" if p.dtype.is_bool else "int"
        if p.dtype.is_integer else "float")
    return kind if kind in ("int", "bool") else "float"


def _moved(v: Tensor | Partition, site: Site | None) -> Any:
    return move_facts(v, site) if v._state is State.MOVED else None


def _extent(t: Tensor) -> tuple[str, int, int] | None:
    if t._buf is None:
        return None
    lo, hi = byte_extent(t)
    base = t._buf.ptr + t._offset
    return (str(t._buf.device), base + lo, base + hi)


def _region(v: Tensor | Partition) -> tuple[int, Box] | None:
    return v._region.key() if v._region is not None else None
