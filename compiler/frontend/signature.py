"""Kernel signatures over libcst trees, for the host checker (the frontend uses params.py)."""

from __future__ import annotations

import libcst as cst

from .. import messages as msg
from ..diagnostics import Diagnostic, Span
from ..dtypes import BY_NAME as DTYPES
from ..dtypes import DType
from .module import FunctionDef, ModuleInfo, literal_value
from .params import CONST_KINDS, KernelSignature, ParamSpec, ShapeEntry

__all__ = ["CONST_KINDS", "KernelSignature", "ParamSpec", "ShapeEntry", "read_signature"]


def read_signature(info: ModuleInfo, fn: FunctionDef) -> tuple[KernelSignature, list[Diagnostic]]:
    """Reads a kernel's parameters. Helpers (`@ct.function`) may leave parameters unannotated."""
    node = fn.node
    diags: list[Diagnostic] = []
    params: list[ParamSpec] = []
    if node.asynchronous is not None:
        diags.append(Diagnostic("CT107", msg.BAD_PARAMETER_KIND.format(what="'async def'"),
                                info.span(node.asynchronous)))
    for what, bad in (("*args", node.params.star_arg), ("**kwargs", node.params.star_kwarg)):
        if isinstance(bad, cst.Param):
            diags.append(Diagnostic("CT107", msg.BAD_PARAMETER_KIND.format(what=what),
                                    info.span(bad)))
    all_params = [*node.params.posonly_params, *node.params.params, *node.params.kwonly_params]
    for p in all_params:
        if fn.is_kernel and p.default is not None:
            diags.append(Diagnostic("CT107", msg.BAD_PARAMETER_KIND.format(
                what=f"a default value for '{p.name.value}'"), info.span(p.default)))
        spec, diag = _read_param(info, p, fn.is_kernel)
        if diag is not None:
            diags.append(diag)
        if spec is not None:
            params.append(spec)
    if fn.is_kernel:
        diags += _check_shape_names(params)
    sig = KernelSignature(fn.name, info.span(node.name), tuple(params), fn.is_kernel,
                          bool(fn.options.get("unsafe", False)))
    return sig, diags


def _read_param(
    info: ModuleInfo, p: cst.Param, is_kernel: bool
) -> tuple[ParamSpec | None, Diagnostic | None]:
    name = p.name.value
    span = info.span(p.name)
    if p.annotation is None:
        if is_kernel:
            return None, Diagnostic("CT107", msg.MISSING_ANNOTATION.format(name=name), span)
        return None, None
    try:
        return _parse_annotation(info, name, span, p.annotation.annotation), None
    except _BadAnnotation as bad:
        if not is_kernel:
            return None, None  # helpers' annotations are documentation only
        where = info.span(bad.node) if bad.node is not None else span
        return None, Diagnostic("CT107", msg.BAD_ANNOTATION.format(name=name, detail=bad.detail),
                                where)


class _BadAnnotation(Exception):
    def __init__(self, detail: str, node: cst.CSTNode | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.node = node


def _subscript(info: ModuleInfo, expr: cst.BaseExpression) -> tuple[str | None, list[
        cst.BaseExpression]]:
    if isinstance(expr, cst.Subscript):
        items = []
        for el in expr.slice:
            if not isinstance(el.slice, cst.Index):
                raise _BadAnnotation("slices are not allowed here", el)
            items.append(el.slice.value)
        return info.resolve(expr.value), items
    return info.resolve(expr), []


def _parse_annotation(info: ModuleInfo, name: str, span: Span,
                      expr: cst.BaseExpression) -> ParamSpec:
    head, args = _subscript(info, expr)
    if head == "Mut":
        if len(args) != 1:
            raise _BadAnnotation("Mut takes one argument, Mut[Tensor[dtype, shape]]", expr)
        inner = _parse_annotation(info, name, span, args[0])
        if inner.kind != "tensor":
            raise _BadAnnotation("only tensors can be Mut", args[0])
        return ParamSpec(name, "mut", span, inner.dtype, inner.shape)
    if head == "Tensor":
        if len(args) != 2:
            raise _BadAnnotation("write Tensor[dtype, shape], e.g. Tensor[f32, (-1,)]", expr)
        return ParamSpec(name, "tensor", span, _dtype(info, args[0]), _shape(args[1]))
    if head == "Const":
        kind = dotted_kind(info, args[0]) if len(args) == 1 else None
        if kind is None:
            raise _BadAnnotation("write Const[int], Const[bool], Const[float] or Const[DType]",
                                 expr)
        return ParamSpec(name, "const", span, const_kind=kind)
    if head is not None and head in DTYPES and not args:
        return ParamSpec(name, "scalar", span, DTYPES[head])
    raise _BadAnnotation("expected Tensor[...], Mut[Tensor[...]], Const[...] or a dtype such as "
                         "f32", expr)


def dotted_kind(info: ModuleInfo, expr: cst.BaseExpression) -> str | None:
    if isinstance(expr, cst.Name) and expr.value in CONST_KINDS:
        return CONST_KINDS[expr.value]
    return "dtype" if info.resolve(expr) == "DType" else None


def _dtype(info: ModuleInfo, expr: cst.BaseExpression) -> DType:
    name = info.resolve(expr)
    if name is None or name not in DTYPES:
        raise _BadAnnotation("the first argument of Tensor must be a cutile dtype such as f32",
                             expr)
    return DTYPES[name]


def _shape(expr: cst.BaseExpression) -> tuple[ShapeEntry, ...]:
    value = literal_value(expr)
    if not isinstance(value, tuple):
        raise _BadAnnotation("the shape must be a tuple such as (-1,), (128, 64) or (\"B\",)",
                             expr)
    out: list[ShapeEntry] = []
    for entry in value:
        if isinstance(entry, bool) or not isinstance(entry, (int, str)) or (
                isinstance(entry, int) and entry < -1):
            raise _BadAnnotation(f"shape entries are ints, -1 or Const names, not {entry!r}",
                                 expr)
        out.append(entry)
    return tuple(out)


def _check_shape_names(params: list[ParamSpec]) -> list[Diagnostic]:
    consts = {p.name for p in params if p.kind == "const" and p.const_kind == "int"}
    diags = []
    for p in params:
        for entry in p.shape:
            if isinstance(entry, str) and entry not in consts:
                diags.append(Diagnostic("CT107", msg.BAD_ANNOTATION.format(
                    name=p.name, detail=f"shape entry '{entry}' must name a Const[int] parameter"),
                    p.span))
    return diags
