"""The rules of one launch `kernel(args)` against the kernel's signature (CT30x, CT40x).

`LaunchContract(sig)` is built once per signature; `check` takes the facts of one call's
arguments and returns a `Verdict`: the diagnostics (in the order the rules run), and for an
accepted call the arguments per parameter, the Const values (given and inferred) and the grid.
Spans come from a `Locator`, asked only when a diagnostic is built (the runtime finds argument
positions by parsing the call's source, which is not free).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ...diagnostics import messages as msg
from ...diagnostics.diagnostic import Diagnostic, Note, Span
from ..dtypes import integer_range
from ..frontend.params import KernelSignature, ParamSpec, ShapeEntry, acc_dtype_problem
from .facts import ArgFacts, args_overlap, describe_kind, fmt_shape
from .moves import kernel_label, moved_diagnostic
from .tiles import grid_keyword_problem

At = int | str  # where an argument was given: positional index or keyword


class Locator(Protocol):
    """Spans and source text of one call's parts."""

    def call(self) -> Span: ...

    def arg(self, at: At) -> Span: ...

    def keyword(self, key: str) -> Span: ...

    def text(self, at: At, fallback: str) -> str: ...


@dataclass
class Verdict:
    diags: list[Diagnostic]
    args: list[ArgFacts | None]  # per parameter; None: not given
    where: list[At | None]  # per parameter
    consts: dict[str, object] = field(default_factory=dict)
    grid: tuple[int, int, int] | None = None  # from grid= (launches without a Mut argument)
    involved: set[int] = field(default_factory=set)  # parameters named by CT302

    @property
    def ok(self) -> bool:
        return not self.diags


_CONST_WANT = {"int": "an int", "bool": "a bool", "float": "a number", "str": "a string",
               "dtype": "a dtype such as ct.f32"}
_CONST_KINDS = {"int": ("int",), "bool": ("bool",), "float": ("int", "float"),
                "str": ("str",), "dtype": ("dtype",)}


class LaunchContract:
    """One kernel signature's launch rules, with what can be worked out once per signature."""

    def __init__(self, sig: KernelSignature) -> None:
        self.sig = sig
        self.params = sig.params
        self.label = kernel_label(sig.name)
        self.index = {p.name: i for i, p in enumerate(sig.params)}
        self.grid_keyword = "grid" not in self.index  # grid= is a launch keyword then
        self.muts = tuple(i for i, p in enumerate(sig.params) if p.kind == "mut")
        self.accs = tuple(i for i, p in enumerate(sig.params) if p.kind == "acc")
        # Muts first: they fix the tile-shape Consts that tensor shapes are then checked against
        self.shaped = self.muts + tuple(i for i, p in enumerate(sig.params)
                                        if p.kind in ("tensor", "acc"))

    def param(self, at: At) -> ParamSpec | None:
        """The parameter an argument goes to: its position, or its keyword's name (None for
        neither, which `check` reports)."""
        i = at if isinstance(at, int) else self.index.get(at)
        return self.params[i] if i is not None and i < len(self.params) else None

    def check(self, positional: Sequence[ArgFacts], keywords: Sequence[tuple[str, ArgFacts]],
              loc: Locator) -> Verdict:
        verdict, grid_arg = self._assign(positional, keywords, loc)
        if verdict.diags:
            return verdict
        self._aliasing(verdict, loc)
        skip = set(verdict.involved)
        self._moved(verdict, loc, skip)
        self._consts(verdict, loc, skip)
        self._kinds(verdict, loc, skip)
        self._shapes(verdict, loc, skip)
        self._missing_consts(verdict, loc)
        self._grids(verdict, loc, skip, grid_arg)
        self._persistent(verdict, loc, skip)
        return verdict

    # -- matching arguments to parameters ----------------------------------------------------
    def _assign(self, positional: Sequence[ArgFacts], keywords: Sequence[tuple[str, ArgFacts]],
                loc: Locator) -> tuple[Verdict, ArgFacts | None]:
        n = len(self.params)
        verdict = Verdict([], [None] * n, [None] * n)
        if len(positional) > n:
            verdict.diags.append(self._diag(msg.LAUNCH_ARG_COUNT, loc.arg(n), most=n,
                                            s="" if n == 1 else "s", given=len(positional)))
            return verdict, None
        for i, facts in enumerate(positional):
            verdict.args[i], verdict.where[i] = facts, i
        grid_arg: ArgFacts | None = None
        for key, facts in keywords:
            idx = self.index.get(key)
            if idx is None and key == "grid" and self.grid_keyword:
                grid_arg = facts
            elif idx is None:
                verdict.diags.append(self._diag(msg.LAUNCH_UNKNOWN_KEYWORD, loc.keyword(key),
                                                param=key))
            elif verdict.args[idx] is not None:
                verdict.diags.append(self._diag(msg.LAUNCH_DUPLICATE_ARG, loc.keyword(key),
                                                param=key))
            else:
                verdict.args[idx], verdict.where[idx] = facts, key
        for i, p in enumerate(self.params):
            if verdict.args[i] is None and p.kind != "const":
                verdict.diags.append(self._diag(msg.LAUNCH_MISSING_ARG, loc.call(),
                                                param=p.name))
        return verdict, grid_arg

    # -- ownership ---------------------------------------------------------------------------
    def _aliasing(self, verdict: Verdict, loc: Locator) -> None:
        """CT302: a Mut partition or an Acc tensor sharing storage with another argument."""
        for i in (*self.muts, *self.accs):
            mut = verdict.args[i]
            is_acc = self.params[i].kind == "acc"
            if mut is None or mut.kind != ("tensor" if is_acc else "partition") or \
                    i in verdict.involved:
                continue
            for j, other in enumerate(verdict.args):
                if (j == i or other is None or j in verdict.involved or _moved_before(other)
                        or not args_overlap(mut, other)):
                    continue
                verdict.diags.append(self._alias_diag(verdict, i, j, loc))
                verdict.involved |= {i, j}
                break

    def _alias_diag(self, verdict: Verdict, i: int, j: int, loc: Locator) -> Diagnostic:
        """CT302 for argument `j` sharing elements with the Mut (Acc) argument `i`."""
        mut, other = verdict.args[i], verdict.args[j]
        mat, oat = verdict.where[i], verdict.where[j]
        assert mut is not None and other is not None and mat is not None and oat is not None
        p, q = self.params[i], self.params[j]
        is_acc = p.kind == "acc"
        here = msg.ACC_ARGUMENT_HERE if is_acc else msg.MUT_ARGUMENT_HERE
        mut_name, name = loc.text(mat, p.name), loc.text(oat, q.name)
        note = Note(here.format(name=mut_name, param=p.name), loc.arg(mat))
        same = name == mut_name and (mut.extent, mut.region) == (other.extent, other.region)
        return self._diag(_aliasing_message(is_acc, same), loc.arg(oat), (note,), name=name,
                          mut=p.name, other=q.name, mut_name=mut_name)

    def _moved(self, verdict: Verdict, loc: Locator, skip: set[int]) -> None:
        """CT301/CT306 for arguments whose values were moved before the call."""
        for i, arg in enumerate(verdict.args):
            at = verdict.where[i]
            if arg is None or arg.moved is None or i in skip or at is None:
                continue
            name = arg.moved.use_name or loc.text(at, self.params[i].name)
            verdict.diags.append(moved_diagnostic(name, arg.moved.use_at or loc.arg(at),
                                                  arg.moved))
            skip.add(i)

    # -- Consts, kinds, dtypes ---------------------------------------------------------------
    def _consts(self, verdict: Verdict, loc: Locator, skip: set[int]) -> None:
        """Consts given explicitly: their kind, and their values for inference."""
        for i, p in enumerate(self.params):
            arg, at = verdict.args[i], verdict.where[i]
            if p.kind != "const" or arg is None or at is None or arg.kind is None:
                continue
            kind = p.const_kind or "int"
            if kind == "dtype" and arg.kind == "str" and arg.dtype is not None:  # "f32"
                verdict.consts[p.name] = arg.dtype
            elif kind == "float" and overflows(arg.value, "f64"):
                verdict.diags.append(self._mismatch(p, at, loc, _CONST_WANT[kind], f"{arg.value}, "
                                                    "outside the range of a float"))
                skip.add(i)
            elif arg.kind not in _CONST_KINDS[kind]:
                got = describe_kind(arg)
                if got is not None:
                    verdict.diags.append(self._mismatch(p, at, loc, _CONST_WANT[kind], got))
                skip.add(i)
            elif arg.value is not None:
                verdict.consts[p.name] = arg.value

    def _kinds(self, verdict: Verdict, loc: Locator, skip: set[int]) -> None:
        """Every argument against its parameter's kind and dtype, in signature order; a
        Const[DType] that names tensors' dtype binds at its first sighting (`origins`)."""
        origins: dict[str, int] = {}
        for i, p in enumerate(self.params):
            arg = verdict.args[i]
            if arg is None or i in skip or p.kind == "const":
                continue
            diag = self._kind(p, arg, verdict.where[i], loc, verdict.consts)
            if diag is None and p.dtype_param is not None:
                diag = self._dtype_param(i, arg, verdict, loc, origins)
            if diag is not None:
                verdict.diags.append(diag)
                skip.add(i)

    def _kind(self, p: ParamSpec, arg: ArgFacts, at: At | None, loc: Locator,
              consts: dict[str, object]) -> Diagnostic | None:
        """CT304 and CT406: one argument against its parameter's kind and dtype."""
        assert at is not None
        if arg.kind is None:
            return None
        dtype = _dtype_text(p, consts)
        if p.kind == "mut":
            return self._mut_kind(p, arg, at, loc, dtype)
        if p.kind == "acc" and arg.kind == "partition":
            return self._mismatch(p, at, loc, f"a {dtype} tensor", "a partition (an Acc "
                                  "parameter takes the whole tensor; use .unpartition())")
        if p.kind in ("tensor", "acc"):
            if arg.kind == "partition":
                return self._mismatch(p, at, loc, f"a {dtype} tensor", "a partition (read-"
                                      "only parameters take a tensor; use .unpartition())")
            if arg.kind != "tensor":
                return self._got(p, at, loc, f"a {dtype} tensor", arg)
            if arg.meta:
                return self._mismatch(p, at, loc, "a tensor with memory", "a meta tensor "
                                      "(ct.meta)")
            if arg.dtype is not None and p.dtype is not None and arg.dtype != p.dtype:
                return self._mismatch(p, at, loc, f"a {dtype} tensor", f"a {arg.dtype} tensor")
            return self._index_range(p, arg, at, loc)
        return self._scalar(p, arg, at, loc) if p.kind == "scalar" else None

    def _mut_kind(self, p: ParamSpec, arg: ArgFacts, at: At, loc: Locator, dtype: str
                  ) -> Diagnostic | None:
        want = f"a partition of {dtype}"
        if arg.kind == "tensor":
            return self._diag(msg.UNPARTITIONED_MUT, loc.arg(at), param=p.name,
                              name=loc.text(at, p.name))
        if arg.kind != "partition":
            return self._got(p, at, loc, f"{want} (tensor.partition(tile_shape))", arg)
        if arg.meta:
            return self._mismatch(p, at, loc, "a tensor with memory", "a meta tensor (ct.meta)")
        if arg.dtype is not None and p.dtype is not None and arg.dtype != p.dtype:
            return self._mismatch(p, at, loc, want, f"a partition of {arg.dtype}")
        return self._index_range(p, arg, at, loc)

    def _dtype_param(self, i: int, arg: ArgFacts, verdict: Verdict, loc: Locator,
                     origins: dict[str, int]) -> Diagnostic | None:
        """A tensor whose dtype a Const[DType] names: the argument's dtype gives the Const (as
        a shape gives a Const[int]) or must agree with the value it has (CT406, with a note
        where that value came from); an Acc's op must take it."""
        p, at = self.params[i], verdict.where[i]
        name, dtype = p.dtype_param, arg.dtype
        assert name is not None and at is not None
        if dtype is None or arg.kind not in ("tensor", "partition"):
            return None  # not known (the checker): say nothing
        bound = verdict.consts.get(name)
        if bound is None:
            verdict.consts[name] = dtype
            origins[name] = i
        elif bound != dtype:
            notes = self._origin_note(name, origins, verdict, loc)
            shown = "a partition of" if p.kind == "mut" else "a"
            kind = "" if p.kind == "mut" else " tensor"
            return self._diag(msg.ARGUMENT_MISMATCH, loc.arg(at), notes, param=p.name,
                              want=f"{shown} {name}={bound}{kind}",
                              got=f"{shown} {dtype}{kind}")
        problem = acc_dtype_problem(p.acc_op, dtype) if p.acc_op is not None else None
        if problem is not None:
            return self._mismatch(p, at, loc, f"a tensor of a dtype \"{p.acc_op}\" "
                                  "accumulates", f"a {dtype} tensor ({problem})")
        return None

    def _index_range(self, p: ParamSpec, arg: ArgFacts, at: At, loc: Locator
                     ) -> Diagnostic | None:
        """CT406 for a tensor whose extents or strides a kernel cannot index: they reach it
        as i32 (compiler/lower/abi.py), on every backend alike."""
        dims = [d for d in (*(arg.shape or ()), *(arg.strides or ())) if d is not None]
        if all(-INDEX_LIMIT <= d < INDEX_LIMIT for d in dims):
            return None
        got = f"shape {fmt_shape(arg.shape or ())}" + (
            f" and strides {fmt_shape(arg.strides)}" if arg.strides is not None else "")
        return self._mismatch(p, at, loc, "a tensor whose extents and strides are below "
                              "2**31 (kernels index with i32)", got)

    def _scalar(self, p: ParamSpec, arg: ArgFacts, at: At, loc: Locator) -> Diagnostic | None:
        dt = p.dtype
        assert dt is not None
        want = f"a {dt} number"
        if dt.is_bool:
            fits = arg.kind == "bool"
        elif dt.is_integer:
            fits = arg.kind == "int"
            if fits and isinstance(arg.value, int):
                lo, hi = integer_range(dt)
                if not lo <= arg.value <= hi:
                    return self._mismatch(p, at, loc, want, f"{arg.value}, outside the range "
                                          f"of {dt}")
        else:
            fits = arg.kind in ("int", "float")
            if fits and overflows(arg.value, dt.name):
                return self._mismatch(p, at, loc, want, f"{arg.value!r}, outside the range of "
                                      f"{dt} (its largest finite value is {dt.finite_max!r})")
        return None if fits else self._got(p, at, loc, want, arg)

    # -- shapes and Const inference ----------------------------------------------------------
    def _shapes(self, verdict: Verdict, loc: Locator, skip: set[int]) -> None:
        """Static extents and Const names of shapes; a name binds at its first sighting (the
        Muts' tile shapes first) and every later one must agree (CT401 for a Mut's tile shape,
        CT406 for a tensor's shape, with a note where the name got its value)."""
        origins: dict[str, int] = {}  # Const name -> the parameter its value came from
        for i in self.shaped:
            p, arg, at = self.params[i], verdict.args[i], verdict.where[i]
            if arg is None or at is None or i in skip:
                continue
            dims = arg.tile if p.kind == "mut" else arg.shape
            if dims is None:
                continue
            clash = _match(p.shape, dims, verdict.consts)
            if clash is None:
                for entry in p.shape:
                    if isinstance(entry, str):
                        origins.setdefault(entry, i)
                continue
            want = _fmt(p.shape, verdict.consts)
            notes = self._origin_note(clash, origins, verdict, loc)
            if p.kind == "mut":
                if arg.partitioned_at is not None:
                    notes += (Note(msg.PARTITIONED_HERE.format(tile=fmt_shape(dims)),
                                   arg.partitioned_at),)
                verdict.diags.append(self._diag(msg.PARTITION_SHAPE, loc.arg(at), notes,
                                                got=fmt_shape(dims), param=p.name, want=want))
            else:
                got = describe_kind(arg) or f"shape {fmt_shape(dims)}"
                verdict.diags.append(self._diag(
                    msg.ARGUMENT_MISMATCH, loc.arg(at), notes, param=p.name,
                    want=f"a {_dtype_text(p, verdict.consts)} tensor of shape {want}", got=got))
            skip.add(i)

    def _origin_note(self, clash: str | None, origins: dict[str, int], verdict: Verdict,
                     loc: Locator) -> tuple[Note, ...]:
        if clash is None or clash not in origins:
            return ()
        src = origins[clash]
        at = verdict.where[src]
        assert at is not None
        return (Note(msg.SHAPE_NAME_FROM.format(name=clash, value=verdict.consts[clash],
                                                param=self.params[src].name), loc.arg(at)),)

    def _missing_consts(self, verdict: Verdict, loc: Locator) -> None:
        """A Const nobody gives and no given argument's shape names: its default, else CT405."""
        mentioned = {e for i, p in enumerate(self.params) if verdict.args[i] is not None
                     for e in (*p.shape, p.dtype_param) if isinstance(e, str)}
        for i, p in enumerate(self.params):
            if (p.kind == "const" and verdict.args[i] is None and p.name not in mentioned
                    and p.name not in verdict.consts):
                if p.default is not None:
                    verdict.consts[p.name] = p.default
                else:
                    verdict.diags.append(self._diag(msg.MISSING_CONST, loc.call(),
                                                    param=p.name))

    # -- the grid --------------------------------------------------------------------------
    def _grids(self, verdict: Verdict, loc: Locator, skip: set[int],
               grid_arg: ArgFacts | None) -> None:
        """CT402 when Mut partitions give different grids; CT406 without a grid at all."""
        if not self.muts:
            self._grid_keyword(verdict, loc, grid_arg)
            return
        if grid_arg is not None:
            self._grid_beside_muts(verdict, loc, skip, grid_arg)
        first: int | None = None
        for i in self.muts:
            arg, at = verdict.args[i], verdict.where[i]
            if arg is None or at is None or arg.grid is None or i in skip:
                continue
            if first is None:
                first = i
                continue
            farg, fat = verdict.args[first], verdict.where[first]
            assert farg is not None and farg.grid is not None and fat is not None
            if arg.grid != farg.grid:
                a, b = self.params[first].name, self.params[i].name
                note = Note(msg.GRID_FROM_HERE.format(param=a, grid=farg.grid_text or
                                                      str(farg.grid)), loc.arg(fat))
                verdict.diags.append(self._diag(
                    msg.GRID_MISMATCH, loc.arg(at), (note,), a=a,
                    ga=farg.grid_text or str(farg.grid), b=b, gb=arg.grid_text or str(arg.grid)))
                return

    def _persistent(self, verdict: Verdict, loc: Locator, skip: set[int]) -> None:
        """CT410: a persistent partition for a Mut the kernel reaches one slab per block of."""
        reached = dict(self.sig.per_block)
        for i in self.muts:
            arg, at, name = verdict.args[i], verdict.where[i], self.params[i].name
            if arg is None or at is None or i in skip or not arg.persistent or name not in reached:
                continue
            note = Note(msg.PER_BLOCK_ACCESS.format(name=name), reached[name])
            verdict.diags.append(self._diag(msg.PERSISTENT_WITHOUT_LOOP, loc.arg(at), (note,),
                                            name=name))

    def _grid_beside_muts(self, verdict: Verdict, loc: Locator, skip: set[int],
                          grid_arg: ArgFacts) -> None:
        """CT402: `grid=` next to Mut arguments must be the grid they give."""
        given = _grid_value(grid_arg)
        if given is None:
            self._grid_keyword(verdict, loc, grid_arg)
            return
        for i in self.muts:
            arg, at = verdict.args[i], verdict.where[i]
            if arg is None or at is None or arg.grid is None or i in skip or arg.persistent:
                continue
            mut_grid = (*arg.grid[:3], 1, 1)[:3]
            if mut_grid != given:
                verdict.diags.append(self._diag(
                    msg.GRID_NOT_MUT_GRID, loc.keyword("grid"), given=given, grid=mut_grid,
                    name=self.params[i].name))
            return

    def _grid_keyword(self, verdict: Verdict, loc: Locator, grid_arg: ArgFacts | None) -> None:
        if grid_arg is None:
            verdict.diags.append(self._diag(msg.LAUNCH_NO_GRID, loc.call()))
            return
        grid = _grid_value(grid_arg)
        problem = grid_keyword_problem(grid) if grid is not None else None
        if grid is not None and problem is None:
            verdict.grid = grid
            return
        if grid_arg.kind is None or (grid_arg.kind == "tuple" and grid_arg.value is None):
            return  # not known (the checker): say nothing
        if problem is None:
            problem = (repr(grid_arg.value) if grid_arg.kind in ("int", "tuple")
                       else describe_kind(grid_arg) or "something else")
        verdict.diags.append(self._diag(
            msg.ARGUMENT_MISMATCH, loc.keyword("grid"), param="grid",
            want="a grid: an int or a tuple of up to 3 positive ints", got=problem))

    # -- diagnostics ---------------------------------------------------------------------------
    def _diag(self, message: msg.Message, span: Span, notes: tuple[Note, ...] = (),
              **fields: object) -> Diagnostic:
        return message.at(span, notes, kernel=self.label, **fields)

    def _mismatch(self, p: ParamSpec, at: At, loc: Locator, want: str, got: str) -> Diagnostic:
        return self._diag(msg.ARGUMENT_MISMATCH, loc.arg(at), param=p.name, want=want, got=got)

    def _got(self, p: ParamSpec, at: At, loc: Locator, want: str, arg: ArgFacts
             ) -> Diagnostic | None:
        got = describe_kind(arg)
        return None if got is None else self._mismatch(p, at, loc, want, got)


def launch_consts(sig: KernelSignature, consts: dict[str, object]) -> dict[str, object]:
    """A verdict's Const values as the kernel is typed with them: an int given for a float
    Const is that float (what the runtime's binder passes on)."""
    kinds = {p.name: p.const_kind for p in sig.params if p.kind == "const"}
    return {k: float(v) if kinds.get(k) == "float" and isinstance(v, int)
            and not isinstance(v, bool) else v for k, v in consts.items()}


INDEX_LIMIT = 2**31  # extents and strides reach kernels as i32

# |values| from which rounding to a float format gives infinity (its largest finite value plus
# half a unit in the last place: a tie rounds to the even mantissa, which is infinity). The f8
# formats follow the f8 rule (NaN or inf past their range) and f4 saturates (runtime/floats.py),
# so any number converts to those.
OVERFLOW = {"f16": 2**16 - 2**4, "bf16": 2**128 - 2**119, "tf32": 2**128 - 2**116,
            "f32": 2**128 - 2**103, "f64": 2**1024 - 2**970}


def overflows(value: object, dtype: str) -> bool:
    """A finite number that a float parameter of `dtype` cannot hold (it would be inf): the
    launch refuses it (CT406), as an integer outside an int parameter's range."""
    limit = OVERFLOW.get(dtype)
    if limit is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return not (isinstance(value, float) and math.isinf(value)) and abs(value) >= limit


def _grid_value(grid_arg: ArgFacts) -> tuple[int, int, int] | None:
    """A `grid=` value as a 3-D grid (trailing 1s), or None when it is not a valid grid."""
    value = grid_arg.value
    if grid_arg.kind == "int" and isinstance(value, int):
        value = (value,)
    if isinstance(value, tuple) and 1 <= len(value) <= 3 and all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in value):
        g = (*value, 1, 1)
        return (g[0], g[1], g[2])
    return None


def _aliasing_message(is_acc: bool, same: bool) -> msg.Message:
    """CT302's wording: one value passed twice (`same`: one name, the same elements), or two
    values that overlap (a view and its base, two views), only one of them the Mut (Acc)."""
    if same:
        return msg.ALIASED_ACC if is_acc else msg.ALIASED_MUT
    return msg.OVERLAPPING_ACC if is_acc else msg.OVERLAPPING_MUT


def _moved_before(arg: ArgFacts) -> bool:
    """Moved before the call started: a use after move (CT301), not this call's aliasing."""
    return arg.moved is not None and not arg.moved.within_call


def _match(want: tuple[ShapeEntry, ...], got: tuple[int | None, ...],
           consts: dict[str, object]) -> str | None:
    """None when `got` fits `want` (binding new Const names into `consts`); otherwise the Const
    name whose earlier value it contradicts, or "" for a rank or static-extent mismatch."""
    if len(want) != len(got):
        return ""
    fresh: dict[str, int] = {}
    for w, g in zip(want, got, strict=True):
        if g is None:
            continue
        if isinstance(w, str):
            bound = consts.get(w, fresh.get(w))
            if bound is None:
                fresh[w] = g
            elif bound != g:
                return w
        elif w >= 0 and w != g:
            return ""
    consts.update(fresh)
    return None


def _dtype_text(p: ParamSpec, consts: dict[str, object]) -> str:
    """A parameter's dtype in messages: `f32`, or its Const[DType] as `T=f16` (`T` unknown)."""
    return str(p.dtype) if p.dtype_param is None else _named(p.dtype_param, consts)


def _named(entry: ShapeEntry, consts: dict[str, object]) -> str:
    """A shape entry or a Const's name as messages show it: `B=64` once the Const is known."""
    return f"{entry}={consts[entry]}" if isinstance(entry, str) and entry in consts else str(entry)


def _fmt(shape: tuple[ShapeEntry, ...], consts: dict[str, object]) -> str:
    parts = [_named(e, consts) for e in shape]
    return "(" + ", ".join(parts) + (",)" if len(parts) == 1 else ")")


_contracts: dict[int, tuple[KernelSignature, LaunchContract]] = {}


def contract_for(sig: KernelSignature) -> LaunchContract:
    """The contract of a signature, built once. Keyed by identity: hashing a signature (its
    parameters, spans and shapes) at every launch the checker follows would cost more than the
    rules; the entry keeps its signature alive, so an id is never reused while cached."""
    entry = _contracts.get(id(sig))
    if entry is not None and entry[0] is sig:
        return entry[1]
    if len(_contracts) >= 4096:  # an editor session re-reads signatures on every change
        _contracts.clear()
    contract = LaunchContract(sig)
    _contracts[id(sig)] = (sig, contract)
    return contract
