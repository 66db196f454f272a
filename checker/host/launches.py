"""The rules of one launch `kernel(args)` against the kernel's signature (CT302, CT304, CT4xx).

Pure functions over abstract argument values: the interpreter applies the ownership effects.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...compiler import messages as msg
from ...compiler.diagnostics import Diagnostic, Note, Span
from ...compiler.frontend.params import KernelSignature, ParamSpec, ShapeEntry
from .values import (
    DTypeVal,
    IntVal,
    OpVal,
    PartitionVal,
    Shape,
    TensorVal,
    TupleVal,
    Value,
)


@dataclass(frozen=True)
class Arg:
    value: Value
    span: Span
    name: str  # the variable it came from, or its source text


@dataclass
class Binding:
    """Arguments matched to parameters; `rejected` when the call itself is malformed."""

    args: dict[str, Arg]
    diags: list[Diagnostic]

    @property
    def rejected(self) -> bool:
        return bool(self.diags)


def kernel_label(name: str) -> str:
    return f"'{name}'"


def fmt_shape(shape: tuple[ShapeEntry, ...] | Shape) -> str:
    parts = ["?" if d is None else str(d) for d in shape]
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


def bind(sig: KernelSignature, call: Span, positional: list[Arg],
         keywords: list[tuple[str, Span, Arg]]) -> Binding:
    label = kernel_label(sig.name)
    out = Binding({}, [])
    if len(positional) > len(sig.params):
        n = len(sig.params)
        out.diags.append(Diagnostic("CT406", msg.LAUNCH_ARG_COUNT.format(
            kernel=label, most=n, s="" if n == 1 else "s", given=len(positional)),
            positional[n].span))
        return out
    for param, arg in zip(sig.params, positional, strict=False):
        out.args[param.name] = arg
    for key, key_span, arg in keywords:
        if sig.param(key) is None:
            out.diags.append(Diagnostic("CT406", msg.LAUNCH_UNKNOWN_KEYWORD.format(
                kernel=label, param=key), key_span))
        elif key in out.args:
            out.diags.append(Diagnostic("CT406", msg.LAUNCH_DUPLICATE_ARG.format(
                kernel=label, param=key), key_span))
        else:
            out.args[key] = arg
    for param in sig.params:
        if param.kind != "const" and param.name not in out.args:
            out.diags.append(Diagnostic("CT406", msg.LAUNCH_MISSING_ARG.format(
                kernel=label, param=param.name), call))
    return out


def check_aliasing(sig: KernelSignature, args: dict[str, Arg]) -> tuple[list[Diagnostic],
                                                                        set[str]]:
    """CT302: a Mut partition sharing storage with another argument. Returns the params involved."""
    diags: list[Diagnostic] = []
    involved: set[str] = set()
    params = [p for p in sig.params if p.name in args]
    for i, mut in enumerate(params):
        marg = args[mut.name]
        if mut.kind != "mut" or not isinstance(marg.value, PartitionVal):
            continue
        for other in params[i + 1:] + params[:i]:
            oarg = args[other.name]
            if _storage(oarg.value) != marg.value.storage or other.name in involved:
                continue
            first, second = sorted((marg, oarg), key=lambda a: (a.span.line, a.span.col))
            diags.append(Diagnostic("CT302", msg.ALIASED_MUT.format(
                name=second.name, kernel=kernel_label(sig.name), mut=mut.name, other=other.name),
                second.span, notes=(Note(msg.MUT_PASSED_HERE.format(param=mut.name),
                                         marg.span if second is oarg else first.span),)))
            involved |= {mut.name, other.name}
    return diags, involved


def _storage(value: Value) -> int | None:
    return value.storage if isinstance(value, (TensorVal, PartitionVal)) else None


def check_kinds(sig: KernelSignature, args: dict[str, Arg], skip: set[str]) -> list[Diagnostic]:
    """CT304 and CT406: each argument against its parameter's kind, dtype and static shape."""
    diags: list[Diagnostic] = []
    for param in sig.params:
        arg = args.get(param.name)
        if arg is None or param.name in skip:
            continue
        diag = _check_one(sig, param, arg)
        if diag is not None:
            diags.append(diag)
    return diags


def _check_one(sig: KernelSignature, param: ParamSpec, arg: Arg) -> Diagnostic | None:
    label = kernel_label(sig.name)
    value = arg.value
    got = _describe(value)
    if param.kind == "mut":
        if isinstance(value, TensorVal):
            return Diagnostic("CT304", msg.UNPARTITIONED_MUT.format(
                param=param.name, kernel=label, name=arg.name), arg.span)
        if isinstance(value, PartitionVal):
            return _dtype_mismatch(label, param, arg, value.dtype)
        want = "a partition, e.g. z.partition(tile_shape)"
    elif param.kind == "tensor":
        if isinstance(value, TensorVal):
            return _dtype_mismatch(label, param, arg, value.dtype) or _shape_mismatch(
                label, param, arg, value.shape)
        if isinstance(value, OpVal):
            return None
        want = "a tensor"
    elif param.kind == "scalar":
        want = f"a number ({param.dtype})"
        if got == "a number":
            return None
    else:
        want = "a dtype such as f32" if param.const_kind == "dtype" else (
            f"a compile-time {param.const_kind}")
        ok = "a dtype" if param.const_kind == "dtype" else "a number"
        if got == ok:
            return None
    if got is None:
        return None
    return Diagnostic("CT406", msg.ARGUMENT_MISMATCH.format(
        param=param.name, kernel=label, want=want, got=got), arg.span)


def _describe(value: Value) -> str | None:
    """What an argument provably is, in words; None when unknown (stay silent)."""
    if isinstance(value, TensorVal):
        return "a tensor"
    if isinstance(value, PartitionVal):
        return "a partition"
    if isinstance(value, IntVal):
        return "a number"
    if isinstance(value, DTypeVal):
        return "a dtype"
    if isinstance(value, TupleVal):
        return "a tuple"
    return None


def _dtype_mismatch(label: str, param: ParamSpec, arg: Arg,
                    dtype: object) -> Diagnostic | None:
    if dtype is None or param.dtype is None or dtype == param.dtype:
        return None
    return Diagnostic("CT406", msg.ARGUMENT_MISMATCH.format(
        param=param.name, kernel=label, want=f"dtype {param.dtype}", got=f"dtype {dtype}"),
        arg.span)


def _shape_mismatch(label: str, param: ParamSpec, arg: Arg,
                    shape: Shape | None) -> Diagnostic | None:
    if shape is None:
        return None
    if len(shape) != len(param.shape):
        want, got = f"rank {len(param.shape)}", f"rank {len(shape)} (shape {fmt_shape(shape)})"
    elif any(isinstance(w, int) and w >= 0 and g is not None and g != w
             for w, g in zip(param.shape, shape, strict=True)):
        want, got = f"shape {fmt_shape(param.shape)}", f"shape {fmt_shape(shape)}"
    else:
        return None
    return Diagnostic("CT406", msg.ARGUMENT_MISMATCH.format(
        param=param.name, kernel=label, want=want, got=got), arg.span)


def check_consts(sig: KernelSignature, call: Span, args: dict[str, Arg],
                 skip: set[str]) -> list[Diagnostic]:
    """CT405 for Consts nobody gives, CT401 for Mut tile shapes against the signature."""
    label = kernel_label(sig.name)
    diags: list[Diagnostic] = []
    mentioned = {e for p in sig.params if p.name in args for e in p.shape if isinstance(e, str)}
    for p in sig.params:
        if p.kind == "const" and p.name not in args and p.name not in mentioned:
            diags.append(Diagnostic("CT405", msg.MISSING_CONST.format(
                param=p.name, kernel=label), call))
    known = {name: a.value.value for name, a in args.items() if isinstance(a.value, IntVal)}
    for p in sig.params:
        arg = args.get(p.name)
        if p.kind == "mut" and arg is not None and p.name not in skip and isinstance(
                arg.value, PartitionVal):
            diag = _tile_mismatch(label, p, arg, arg.value, known)
            if diag is not None:
                diags.append(diag)
    return diags


def _tile_mismatch(label: str, p: ParamSpec, arg: Arg, part: PartitionVal,
                   known: dict[str, int]) -> Diagnostic | None:
    tile = part.tile
    if tile is None or len(tile) > 3:
        return None  # unknown, or already reported at the partition (CT403)
    bad = len(tile) != len(p.shape)
    want: list[ShapeEntry] = []
    for entry, dim in zip(p.shape, tile, strict=False):
        if isinstance(entry, str):
            if entry not in known and dim is not None:
                known[entry] = dim  # inferred from the first partition that names it
            want.append(known.get(entry, entry))
            entry_value: int | None = known.get(entry)
        else:
            want.append(entry)
            entry_value = entry if entry >= 0 else None
        if entry_value is not None and dim is not None and dim != entry_value:
            bad = True
    if not bad:
        return None
    want += list(p.shape[len(want):])
    return Diagnostic("CT401", msg.PARTITION_SHAPE.format(
        got=fmt_shape(tile), param=p.name, kernel=label, want=fmt_shape(tuple(want))),
        arg.span, notes=(Note(msg.PARTITIONED_HERE.format(tile=fmt_shape(tile)), part.site),))


def check_grids(sig: KernelSignature, args: dict[str, Arg], skip: set[str]) -> list[Diagnostic]:
    """CT402: Mut partitions of statically known shapes that give different grids."""
    first: tuple[str, tuple[int, ...]] | None = None
    for p in sig.params:
        arg = args.get(p.name)
        if p.kind != "mut" or arg is None or p.name in skip:
            continue
        grid = _grid(arg.value)
        if grid is None:
            continue
        if first is None:
            first = (p.name, grid)
        elif grid != first[1]:
            return [Diagnostic("CT402", msg.GRID_MISMATCH.format(
                kernel=kernel_label(sig.name), a=first[0], ga=first[1], b=p.name, gb=grid),
                arg.span)]
    return []


def _grid(value: Value) -> tuple[int, ...] | None:
    """The 3-D launch grid a partition gives (trailing 1s), when every extent is known."""
    if not isinstance(value, PartitionVal) or value.persistent:
        return None
    shape, tile = value.shape, value.tile
    if shape is None or tile is None or len(shape) != len(tile) or len(tile) > 3:
        return None
    dims: list[int] = []
    for s, t in zip(shape, tile, strict=True):
        if s is None or t is None or t <= 0:
            return None
        dims.append(math.ceil(s / t))
    return tuple(dims + [1] * (3 - len(dims)))
