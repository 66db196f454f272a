"""Matching launch arguments to a kernel signature, before anything runs.

Checks each argument against its parameter (kind, dtype, rank, static extents, partition tile
shape), infers Const values from partition tile shapes and static tensor shapes, and derives the
grid from the Mut partitions (compared as 3-D with trailing 1s). Failures are LaunchError CT4xx
(or OwnershipError CT3xx for moved or unpartitioned values), pointing at the argument.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..compiler import messages as msg
from ..compiler.dsl.markers import as_dtype
from ..compiler.dtypes import DType, integer_range
from ..compiler.errors import LaunchError
from ..compiler.frontend.params import KernelSignature, ParamSpec
from ..compiler.specialization import MutFacts, ParamFacts, Specialization, tensor_facts
from .errors import launch_error, ownership_error
from .ownership import State, check_usable
from .partition import Partition
from .sites import Site, argument_span, argument_text
from .tensor import Tensor


@dataclass
class Bound:
    """A validated launch: values in signature order, the Consts, the grid, the facts."""

    values: list[Any]  # per parameter, Consts included
    where: list[int | str]  # per parameter: positional index or keyword of its argument
    positional: int  # how many arguments were positional (what .sync() returns)
    consts: dict[str, Any]
    grid: tuple[int, int, int]
    spec: Specialization


class Binder:
    def __init__(self, kernel: Any, sig: KernelSignature) -> None:
        self.kernel = kernel
        self.sig = sig
        self.name = sig.name

    def bind(self, args: tuple[Any, ...], kwargs: dict[str, Any], site: Site) -> Bound:
        values, where, grid_kw = self._assign(args, kwargs, site)
        consts: dict[str, Any] = {}
        self._explicit_consts(values, where, consts, site)
        facts: list[ParamFacts] = [None] * len(values)
        for i, p in enumerate(self.sig.params):
            if p.kind == "mut":
                facts[i] = self._mut(p, values[i], where[i], consts, site)
        for i, p in enumerate(self.sig.params):
            if p.kind == "tensor":
                facts[i] = self._tensor(p, values[i], where[i], consts, site)
            elif p.kind == "scalar":
                self._scalar(p, values[i], where[i], site)
                facts[i] = p.dtype
        for i, p in enumerate(self.sig.params):
            if p.kind == "const" and p.name not in consts:
                raise self._err(msg.MISSING_CONST, site.span(), param=p.name)
            if p.kind == "const":
                values[i] = consts[p.name]
        grid = self._grid(values, where, grid_kw, site)
        ordered = tuple((p.name, consts[p.name]) for p in self.sig.params if p.kind == "const")
        spec = Specialization(ordered, tuple(facts), hints=self.kernel.hints)
        return Bound(values, where, len(args), consts, grid, spec)

    # -- assignment of arguments to parameters ---------------------------------------------
    def _assign(self, args: tuple[Any, ...], kwargs: dict[str, Any], site: Site
                ) -> tuple[list[Any], list[int | str], Any]:
        params = self.sig.params
        if len(args) > len(params):
            raise self._err(msg.LAUNCH_ARG_COUNT, site.span(), most=len(params),
                            s="" if len(params) == 1 else "s", given=len(args))
        values: list[Any] = [_MISSING] * len(params)
        where: list[int | str] = list(range(len(params)))
        values[:len(args)] = args
        grid_kw = kwargs.pop("grid", None) if self.sig.param("grid") is None else None
        for key, value in kwargs.items():
            idx = next((i for i, p in enumerate(params) if p.name == key), None)
            if idx is None:
                raise self._err(msg.LAUNCH_UNKNOWN_KEYWORD, argument_span(site, key), param=key)
            if idx < len(args):
                raise self._err(msg.LAUNCH_DUPLICATE_ARG, argument_span(site, key), param=key)
            values[idx], where[idx] = value, key
        for i, p in enumerate(params):
            if values[i] is _MISSING and p.kind != "const":
                raise self._err(msg.LAUNCH_MISSING_ARG, site.span(), param=p.name)
        return values, where, grid_kw

    def _explicit_consts(self, values: list[Any], where: list[int | str],
                         consts: dict[str, Any], site: Site) -> None:
        for i, p in enumerate(self.sig.params):
            if p.kind != "const" or values[i] is _MISSING:
                continue
            value = _const_value(p, values[i])
            if value is None:
                raise self._mismatch(p, where[i], site, _CONST_WANT[p.const_kind or "int"],
                                     repr(values[i]))
            consts[p.name] = value

    # -- one parameter ------------------------------------------------------------------------
    def _mut(self, p: ParamSpec, value: Any, at: int | str, consts: dict[str, Any],
             site: Site) -> MutFacts:
        if isinstance(value, Tensor):
            text = argument_text(site, at, p.name)
            raise ownership_error(msg.UNPARTITIONED_MUT, argument_span(site, at),
                                  param=p.name, kernel=self.name, name=text)
        if not isinstance(value, Partition):
            raise self._mismatch(p, at, site, f"a partition of {p.dtype} "
                                 "(tensor.partition(tile_shape))", _describe(value))
        if value._own.state is State.MOVED:
            check_usable(value._own, argument_text(site, at, p.name), argument_span(site, at))
        t = value._tensor
        if t._dtype != p.dtype:
            raise self._mismatch(p, at, site, f"a partition of {p.dtype}",
                                 f"a partition of {t._dtype}")
        if t._buf is None:
            raise self._mismatch(p, at, site, "a tensor with memory", "a meta tensor")
        if not self._match_shape(p.shape, value.tile, consts):
            raise self._err(msg.PARTITION_SHAPE, argument_span(site, at), got=value.tile,
                            param=p.name, want=_fmt(p.shape, consts))
        facts = tensor_facts(t._dtype, t._buf.ptr + t._offset, t._shape, t._strides,
                             t.is_contiguous())
        return MutFacts(facts, value.tile, value.order, value.blocks is not None)

    def _tensor(self, p: ParamSpec, value: Any, at: int | str, consts: dict[str, Any],
                site: Site) -> ParamFacts:
        if isinstance(value, Partition):
            raise self._mismatch(p, at, site, _fmt_want(p, consts), "a partition (read-only "
                                 "parameters take a tensor; use .unpartition())")
        if not isinstance(value, Tensor):
            raise self._mismatch(p, at, site, _fmt_want(p, consts), _describe(value))
        if value._own.state is State.MOVED:
            check_usable(value._own, argument_text(site, at, p.name), argument_span(site, at))
        if value._buf is None:
            raise self._mismatch(p, at, site, "a tensor with memory", "a meta tensor (ct.meta)")
        if value._dtype != p.dtype or not self._match_shape(p.shape, value._shape, consts):
            raise self._mismatch(p, at, site, _fmt_want(p, consts),
                                 f"a {value._dtype} tensor of shape {value._shape}")
        return tensor_facts(value._dtype, value._buf.ptr + value._offset, value._shape,
                            value._strides, value.is_contiguous())

    def _scalar(self, p: ParamSpec, value: Any, at: int | str, site: Site) -> None:
        dt = p.dtype
        assert dt is not None
        if not _scalar_fits(dt, value):
            raise self._mismatch(p, at, site, f"a {dt} number", _describe(value))

    def _match_shape(self, want: tuple[int | str, ...], got: tuple[int, ...],
                     consts: dict[str, Any]) -> bool:
        """Compares extents; binds Const names on first sight (later sightings must agree)."""
        if len(want) != len(got):
            return False
        fresh: dict[str, int] = {}
        for w, g in zip(want, got, strict=True):
            if isinstance(w, str):
                bound = consts.get(w, fresh.get(w))
                if bound is None:
                    fresh[w] = g
                elif bound != g:
                    return False
            elif w != -1 and w != g:
                return False
        consts.update(fresh)
        return True

    # -- grid ------------------------------------------------------------------------------
    def _grid(self, values: list[Any], where: list[int | str], grid_kw: Any,
              site: Site) -> tuple[int, int, int]:
        muts = [(i, v) for i, (p, v) in enumerate(zip(self.sig.params, values, strict=True))
                if p.kind == "mut"]
        if not muts:
            if grid_kw is None:
                raise self._err(msg.LAUNCH_NO_GRID, site.span())
            g = (*tuple(grid_kw), 1, 1, 1)
            return (int(g[0]), int(g[1]), int(g[2]))
        first_i, first = muts[0]
        for i, other in muts[1:]:
            if (other.launch_grid != first.launch_grid
                    or _grid3(other.grid) != _grid3(first.grid)):
                a = argument_text(site, where[first_i], self.sig.params[first_i].name)
                b = argument_text(site, where[i], self.sig.params[i].name)
                raise self._err(msg.GRID_MISMATCH, argument_span(site, where[i]), a=a,
                                ga=_show_grid(first), b=b, gb=_show_grid(other))
        grid: tuple[int, int, int] = first.launch_grid
        return grid

    # -- errors ----------------------------------------------------------------------------
    def _err(self, message: msg.Message, span: Any, **fields: Any) -> LaunchError:
        return launch_error(message, span, kernel=self.name, **fields)

    def _mismatch(self, p: ParamSpec, at: int | str, site: Site, want: str,
                  got: str) -> LaunchError:
        return self._err(msg.ARGUMENT_MISMATCH, argument_span(site, at), param=p.name,
                         want=want, got=got)


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


_MISSING = _Missing()
_CONST_WANT = {"int": "an int", "bool": "a bool", "float": "a number", "dtype": "a dtype such "
               "as ct.f32"}


def _const_value(p: ParamSpec, value: Any) -> Any:
    kind = p.const_kind
    if kind == "int":
        return int(value) if _is_int(value) else None
    if kind == "bool":
        return value if isinstance(value, bool) else None
    if kind == "float":
        return float(value) if _is_number(value) else None
    return as_dtype(value)


def _is_int(v: Any) -> bool:
    import numpy as np

    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _is_number(v: Any) -> bool:
    import numpy as np

    return _is_int(v) or isinstance(v, (float, np.floating))


def _scalar_fits(dt: DType, v: Any) -> bool:
    if dt.is_bool:
        return isinstance(v, bool)
    if dt.is_integer:
        lo, hi = integer_range(dt)
        return _is_int(v) and lo <= int(v) <= hi
    return _is_number(v)


def _describe(v: Any) -> str:
    if isinstance(v, Tensor):
        return f"a {v._dtype} tensor of shape {v._shape}"
    if isinstance(v, Partition):
        return f"a partition of {v._tensor._dtype}"
    from .ops import DeviceOp

    if isinstance(v, DeviceOp):
        return "a pending launch (rebind its results with .sync() first)"
    return f"{type(v).__name__} {v!r}"


def _fmt(shape: tuple[int | str, ...], consts: dict[str, Any]) -> str:
    parts = [f"{e}={consts[e]}" if isinstance(e, str) and e in consts else str(e) for e in shape]
    return "(" + ", ".join(parts) + (",)" if len(parts) == 1 else ")")


def _fmt_want(p: ParamSpec, consts: dict[str, Any]) -> str:
    return f"a {p.dtype} tensor of shape {_fmt(p.shape, consts)}"


def _grid3(g: tuple[int, ...]) -> tuple[int, ...]:
    return (*g, 1, 1, 1)[:3]


def _show_grid(p: Partition) -> str:
    g = _grid3(p.grid)
    return f"{g} with blocks={p.blocks}" if p.blocks is not None else str(g)
