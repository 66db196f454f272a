"""Kernel signatures read from annotations: what each parameter is, without running any code."""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace
from typing import Literal

from ...diagnostics import messages as msg
from ...diagnostics.diagnostic import Diagnostic, Span
from ...reader.constants import ConstValue, constant_value
from ...reader.imports import unread_in
from ...reader.source import FunctionDef, ModuleInfo, literal_value, parse_expression
from ..dtypes import BY_NAME as DTYPES
from ..dtypes import DType
from ..kernel_options import option_problem
from .slab_access import per_block_access

ParamKind = Literal["tensor", "mut", "acc", "const", "scalar"]
ShapeEntry = int | str  # static extent, -1 for dynamic, or the name of a Const[int] parameter
CONST_KINDS = {"int": "int", "bool": "bool", "float": "float", "str": "str", "DType": "dtype"}
# Accumulator ops (design.md §3): name -> whether it needs an integer tensor
ACC_OPS = {"add": False, "max": False, "min": False, "or": True, "and": True, "xor": True}


@dataclass(frozen=True)
class ParamSpec:
    name: str
    kind: ParamKind
    span: Span
    dtype: DType | None = None  # tensor, mut and scalar parameters (None: dtype_param's)
    shape: tuple[ShapeEntry, ...] = ()  # tensor and mut parameters
    const_kind: str | None = None  # "int" | "bool" | "float" | "str" | "dtype"
    acc_op: str | None = None  # an Acc parameter's op: "add", "max", ... (ACC_OPS)
    default: int | float | bool | str | None = None  # a Const's literal default (`B = 64`)
    # a tensor's dtype named by a Const[DType] parameter (`Tensor["T", ...]`): known per launch
    dtype_param: str | None = None


@dataclass(frozen=True)
class KernelSignature:
    name: str
    span: Span  # the function's name
    params: tuple[ParamSpec, ...]
    is_kernel: bool
    unsafe: bool = False
    # Mut parameters the kernel reaches one slab per block of, outside their tiles loops, and
    # where (frontend/slab_access.py): a persistent partition of them is CT410
    per_block: tuple[tuple[str, Span], ...] = ()

    def param(self, name: str) -> ParamSpec | None:
        return next((p for p in self.params if p.name == name), None)


def read_signature(info: ModuleInfo, fn: FunctionDef) -> tuple[KernelSignature, list[Diagnostic]]:
    """Reads a kernel's parameters. Helpers (`@ct.function`) may leave parameters unannotated."""
    node = fn.node
    diags: list[Diagnostic] = []
    params: list[ParamSpec] = []
    if isinstance(node, ast.AsyncFunctionDef):
        diags.append(msg.BAD_PARAMETER_KIND.at(info.keyword_span(node, "async"),
                                               what="'async def'"))
    args = node.args
    for what, bad in (("*args", args.vararg), ("**kwargs", args.kwarg)):
        if bad is not None:
            diags.append(msg.BAD_PARAMETER_KIND.at(info.span(bad), what=what))
    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults))
    defaults += [*args.defaults, *args.kw_defaults]
    every = [*positional, *args.kwonlyargs]
    dtypes = _dtype_consts(info, every)
    for p, default in zip(every, defaults, strict=True):
        spec, diag = _read_param(info, p, fn.is_kernel, dtypes)
        if diag is not None:
            diags.append(diag)
        if fn.is_kernel and default is not None:
            spec, diag = _with_default(info, p.arg, spec, default)
            if diag is not None:
                diags.append(diag)
        if spec is not None:
            params.append(spec)
    if fn.is_kernel:
        diags += _check_names(params)
        diags += _check_options(info, node)
    muts = {p.name for p in params if p.kind == "mut"}
    per_block = per_block_access(info, node.body, muts) if fn.is_kernel and muts else {}
    sig = KernelSignature(fn.name, info.name_span(node), tuple(params), fn.is_kernel,
                          bool(fn.options.get("unsafe", False)), tuple(per_block.items()))
    return sig, diags


_DEFAULT_KINDS: dict[str, tuple[type, ...]] = {"int": (int,), "bool": (bool,),
                                               "float": (int, float), "str": (str,)}


def _with_default(info: ModuleInfo, name: str, spec: ParamSpec | None, default: ast.expr
                  ) -> tuple[ParamSpec | None, Diagnostic | None]:
    """A Const's default: a literal of its kind, used when the launch neither gives nor infers
    the value. Any other parameter's default is CT107."""
    if spec is None or spec.kind != "const":
        return spec, msg.BAD_PARAMETER_KIND.at(
            info.span(default), what=f"a default value for '{name}' (only Const parameters "
            "take one)")
    value = literal_value(default)
    kinds = _DEFAULT_KINDS.get(spec.const_kind or "int", ())
    if not isinstance(value, kinds) or (spec.const_kind != "bool" and isinstance(value, bool)):
        return spec, msg.BAD_PARAMETER_KIND.at(
            info.span(default), what=f"this default for '{name}' (a Const[{spec.const_kind}] "
            "takes a literal of its kind)")
    assert isinstance(value, (int, float, str))
    return replace(spec, default=value), None


def _check_options(info: ModuleInfo, node: ast.FunctionDef | ast.AsyncFunctionDef
                   ) -> list[Diagnostic]:
    """CT114 for `@ct.kernel(...)` keywords that are unknown, not literals or out of range."""
    diags = []
    for deco in node.decorator_list:
        if not (isinstance(deco, ast.Call) and info.resolve(deco.func) == "kernel"):
            continue
        for kw in deco.keywords:
            value = literal_value(kw.value)
            problem: str | None
            if kw.arg is None:
                problem, name = "must be given by name (no **options)", "**"
            elif value is None and not (isinstance(kw.value, ast.Constant)
                                        and kw.value.value is None):
                problem, name = "must be a literal value", kw.arg
            else:
                problem, name = option_problem(kw.arg, value), kw.arg
            if problem is not None:
                diags.append(msg.BAD_KERNEL_OPTION.at(info.span(kw), name=name, problem=problem))
    return diags


def _dtype_consts(info: ModuleInfo, params: list[ast.arg]) -> frozenset[str]:
    """The names of the Const[DType] parameters: a tensor's dtype may name one unquoted."""
    names = set()
    for p in params:
        try:
            spec = _parse_annotation(info, p.arg, info.arg_span(p), p.annotation) \
                if p.annotation is not None else None
        except _BadAnnotation:
            continue
        if spec is not None and spec.const_kind == "dtype":
            names.add(p.arg)
    return frozenset(names)


def _read_param(
    info: ModuleInfo, p: ast.arg, is_kernel: bool, dtypes: frozenset[str] = frozenset()
) -> tuple[ParamSpec | None, Diagnostic | None]:
    name = p.arg
    span = info.arg_span(p)
    if p.annotation is None:
        if is_kernel:
            return None, msg.MISSING_ANNOTATION.at(span, name=name)
        return None, None
    try:
        return _parse_annotation(info, name, span, p.annotation, dtypes), None
    except _BadAnnotation as bad:
        if not is_kernel:
            return None, None  # helpers' annotations are documentation only
        where = info.span(bad.node) if bad.node is not None else span
        unread = unread_in(info, p.annotation)  # a name from a module cutile cannot read
        return None, unread or msg.BAD_ANNOTATION.at(where, name=name, detail=bad.detail)


class _BadAnnotation(Exception):
    def __init__(self, detail: str, node: ast.AST | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.node = node


def _subscript(info: ModuleInfo, expr: ast.expr) -> tuple[str | None, list[ast.expr]]:
    if isinstance(expr, ast.Subscript):
        if isinstance(expr.slice, ast.Slice):
            raise _BadAnnotation("slices are not allowed here", expr.slice)
        items = expr.slice.elts if isinstance(expr.slice, ast.Tuple) else [expr.slice]
        return info.resolve(expr.value), list(items)
    return info.resolve(expr), []


def _parse_annotation(info: ModuleInfo, name: str, span: Span, expr: ast.expr,
                      dtypes: frozenset[str] = frozenset()) -> ParamSpec:
    """One parameter's annotation; `dtypes`: the kernel's Const[DType] parameters."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        try:
            unquoted = parse_expression(expr.value)  # a quoted annotation
        except (SyntaxError, ValueError, RecursionError, MemoryError) as err:
            raise _BadAnnotation("the quoted annotation is not valid Python", expr) from err
        try:
            return _parse_annotation(info, name, span, unquoted, dtypes)
        except _BadAnnotation as bad:  # the inner nodes' positions are inside the string
            raise _BadAnnotation(bad.detail, expr) from None
    head, args = _subscript(info, expr)
    if head == "Mut":
        if len(args) != 1:
            raise _BadAnnotation("Mut takes one argument, Mut[Tensor[dtype, shape]]", expr)
        inner = _parse_annotation(info, name, span, args[0], dtypes)
        if inner.kind != "tensor":
            raise _BadAnnotation("only tensors can be Mut", args[0])
        return ParamSpec(name, "mut", span, inner.dtype, inner.shape,
                         dtype_param=inner.dtype_param)
    if head == "Acc":
        return _parse_acc(info, name, span, expr, args, dtypes)
    if head == "Tensor":
        if len(args) != 2:
            raise _BadAnnotation("write Tensor[dtype, shape], e.g. Tensor[f32, (-1,)]", expr)
        dtype = _dtype(info, args[0], dtypes)
        shape = _shape(info, args[1])
        if isinstance(dtype, str):
            return ParamSpec(name, "tensor", span, None, shape, dtype_param=dtype)
        return ParamSpec(name, "tensor", span, dtype, shape)
    if head == "Const":
        kind = dotted_kind(info, args[0]) if len(args) == 1 else None
        if kind is None:
            raise _BadAnnotation("write Const[int], Const[bool], Const[float], Const[str] or "
                                 "Const[DType]", expr)
        return ParamSpec(name, "const", span, const_kind=kind)
    if head is not None and head in DTYPES and not args:
        return ParamSpec(name, "scalar", span, DTYPES[head])
    raise _BadAnnotation("expected Tensor[...], Mut[Tensor[...]], Acc[Tensor[...], \"add\"], "
                         "Const[...] or a dtype such as f32", expr)


def _parse_acc(info: ModuleInfo, name: str, span: Span, expr: ast.expr, args: list[ast.expr],
               dtypes: frozenset[str]) -> ParamSpec:
    """`Acc[Tensor[dtype, shape], "add"]`: an output every block may accumulate into."""
    usage = 'write Acc[Tensor[dtype, shape], op] with op one of ' + ", ".join(
        f'"{o}"' for o in ACC_OPS)
    if len(args) != 2:
        raise _BadAnnotation(usage, expr)
    inner = _parse_annotation(info, name, span, args[0], dtypes)
    if inner.kind != "tensor":
        raise _BadAnnotation("only tensors can be Acc", args[0])
    op = args[1].value if isinstance(args[1], ast.Constant) else None
    if not isinstance(op, str) or op not in ACC_OPS:
        raise _BadAnnotation(usage, args[1])
    if not inner.shape:
        raise _BadAnnotation("an Acc has rank 1 or more; use shape (1,) for one value", args[0])
    # a Const[DType]'s dtype is checked at the launch that gives it (compiler/launch)
    problem = acc_dtype_problem(op, inner.dtype) if inner.dtype is not None else None
    if problem is not None:
        raise _BadAnnotation(problem, args[1])
    return ParamSpec(name, "acc", span, inner.dtype, inner.shape, acc_op=op,
                     dtype_param=inner.dtype_param)


# What Tile IR's atomics take (tileiras verifies: integer RMWs on i32/i64 only; float add on
# f16/bf16/f32/f64; float max/min become integer RMWs on the bits, so f32/f64 only).
_ACC_INTS = ("i32", "i64", "u32", "u64")
_ACC_FLOATS = {"add": ("f16", "bf16", "f32", "f64"), "max": ("f32", "f64"), "min": ("f32", "f64")}


def acc_dtype_problem(op: str, dtype: DType) -> str | None:
    """Why an Acc of `dtype` cannot accumulate with `op`, or None."""
    if dtype.is_integer:
        if dtype.name in _ACC_INTS:
            return None
        return f'"{op}" accumulates 32- or 64-bit integers (i32, i64, u32, u64), not {dtype}'
    if ACC_OPS[op]:
        return f'"{op}" accumulates integers, not {dtype}'
    floats = _ACC_FLOATS[op] if dtype.is_float else ()
    if dtype.name in floats:
        return None
    return f'"{op}" accumulates {", ".join((*floats, *_ACC_INTS))}, not {dtype}'


def dotted_kind(info: ModuleInfo, expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Name) and expr.id in CONST_KINDS:
        return CONST_KINDS[expr.id]
    return "dtype" if info.resolve(expr) == "DType" else None


DTYPE_USAGE = ("the first argument of Tensor must be a cutile dtype such as f32, or the name "
               "of a Const[DType] parameter (\"T\" with T: Const[DType])")


def _dtype(info: ModuleInfo, expr: ast.expr, dtypes: frozenset[str]) -> DType | str:
    """A tensor's dtype, or the name of the Const[DType] parameter that gives it: quoted (then
    checked by `_check_names`) or not (`Tensor[T, ...]`, what ruff's UP037 makes of "T" under
    `from __future__ import annotations`; a module-level `T = TypeVar(...)` for mypy)."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str) and \
            expr.value.isidentifier():
        quoted = (info.resolve(ast.Name(expr.value)) or "") if expr.value not in dtypes else ""
        return DTYPES.get(quoted, expr.value)  # "f32" is f32
    if isinstance(expr, ast.Name) and expr.id in dtypes:
        return expr.id
    name = info.resolve(expr)
    if name is None or name not in DTYPES:
        raise _BadAnnotation(DTYPE_USAGE, expr)
    return DTYPES[name]


def _shape(info: ModuleInfo, expr: ast.expr) -> tuple[ShapeEntry, ...]:
    """A tensor annotation's shape: a tuple of ints, -1, Const names in quotes and module-level
    constants (`(BM, BN)` with `BM = 64` at module level)."""
    if not isinstance(expr, ast.Tuple):
        value = constant_value(expr, info.constants, info.qualified)  # SHAPE = (64, 64)
        if not isinstance(value, tuple):
            raise _BadAnnotation("the shape must be a tuple such as (-1,), (128, 64) or "
                                 "(\"B\",)", expr)
        return tuple(_shape_entry(v, expr) for v in value)
    return tuple(_shape_entry(constant_value(e, info.constants, info.qualified), e)
                 for e in expr.elts)


def _shape_entry(entry: ConstValue | None, node: ast.expr) -> ShapeEntry:
    if isinstance(entry, bool) or not isinstance(entry, (int, str)) or (
            isinstance(entry, int) and entry < -1):
        shown = ast.unparse(node) if entry is None else repr(entry)
        raise _BadAnnotation(f"shape entries are ints, -1, Const names in quotes (\"B\") or "
                             f"module-level int constants, not {shown}", node)
    return entry


def _check_names(params: list[ParamSpec]) -> list[Diagnostic]:
    """CT107 for a shape entry that names no Const[int] parameter, and a dtype that names no
    Const[DType] parameter."""
    kinds = {p.name: p.const_kind for p in params if p.kind == "const"}
    consts = {name for name, kind in kinds.items() if kind == "int"}
    diags = []
    for p in params:
        if p.dtype_param is not None and kinds.get(p.dtype_param) != "dtype":
            diags.append(msg.BAD_ANNOTATION.at(p.span, name=p.name,
                                               detail=_dtype_name_problem(p.dtype_param, kinds)))
        for entry in p.shape:
            if isinstance(entry, str) and entry not in consts:
                diags.append(msg.BAD_ANNOTATION.at(
                    p.span, name=p.name,
                    detail=f"shape entry '{entry}' must name a Const[int] parameter"))
    return diags


def _dtype_name_problem(name: str, kinds: dict[str, str | None]) -> str:
    if name in kinds:
        return (f"the dtype '{name}' names a Const[{kinds[name]}] parameter; a tensor's dtype "
                "is a cutile dtype such as f32 or a Const[DType] parameter")
    return (f"the dtype '{name}' must name a Const[DType] parameter (add {name}: Const[DType] "
            "to the signature) or be a cutile dtype such as f32")
