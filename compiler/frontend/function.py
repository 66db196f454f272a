"""Analyzing one kernel (its parameters, then its body through the evaluator's core) and
checking a helper's syntax on its own (its types are checked per call, when inlined)."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ...diagnostics import messages as msg
from ...diagnostics.codes import Family
from ...diagnostics.diagnostic import Diagnostic, dedupe
from ...reader.source import FunctionDef, ModuleInfo, literal_value
from ..dtypes import DType
from ..ir import KernelIR, Param, Value
from ..pdl import is_pdl, placement
from ..types import ConstType, Dim, SymInt, TensorType, TileType
from .builder import Builder
from .context import Context, TypedName, slab_hover
from .core import Evaluator
from .params import KernelSignature, ParamSpec, read_signature
from .values import UNKNOWN, Binding


@dataclass
class KernelResult:
    ir: KernelIR | None  # None when there are errors
    diagnostics: list[Diagnostic]
    names: list[TypedName]
    signature: KernelSignature


def analyze_kernel(info: ModuleInfo, fn: FunctionDef,
                   consts: dict[str, object] | None = None) -> KernelResult:
    """Types a kernel. Without `consts`, Const parameters stay symbolic (edit-time checking)."""
    sig, diags = read_signature(info, fn)
    ctx = Context(info, Builder(sig.unsafe), consts, unsafe=sig.unsafe)
    typed = {p.name: _param(p, consts) for p in sig.params}
    params = [p for p in typed.values() if p is not None]
    # a tensor whose Const[DType] is not known yet is checked once specialized (as an
    # unknown dtype operand is: Builder.dtype)
    env: dict[str, Binding] = {n: UNKNOWN if p is None else p.value for n, p in typed.items()}
    ctx.names += [TypedName(p.name, p.value.span, slab_hover(p.value.type)) for p in params
                  if isinstance(p.value.type, TensorType) and (p.value.type.mutable or
                                                     p.value.type.acc is not None)]
    if diags:
        for name in _annotated_names(fn.node):
            env.setdefault(name, UNKNOWN)  # a rejected signature: no follow-on errors
    const_params = {p.name for p in sig.params if p.kind == "const"}
    Evaluator(ctx, env, True, const_params=const_params).body(fn.node.body)
    waits = placement(ctx.builder.blocks[0], is_pdl(fn.options), fn.name,
                      info.name_span(fn.node))
    all_diags = dedupe(diags + ctx.diags + waits + unsafe_notice(info, fn))
    ir = None
    if len(params) == len(sig.params) and not any(d.severity.value == "error"
                                                  for d in all_diags):
        body = ctx.builder.blocks[0]
        body.args = [p.value for p in params]
        ir = KernelIR(fn.name, params, body, info.name_span(fn.node),
                      dict(consts or {}), dict(fn.options))
    return KernelResult(ir, all_diags, ctx.names, sig)


def unsafe_notice(info: ModuleInfo, fn: FunctionDef) -> list[Diagnostic]:
    """CT115 (a warning) at `unsafe=True` of an unsafe kernel's decorator: a review sees each."""
    for deco in fn.node.decorator_list:
        if isinstance(deco, ast.Call) and info.resolve(deco.func) == "kernel":
            for kw in deco.keywords:
                if kw.arg == "unsafe" and literal_value(kw.value) is True:
                    return [msg.UNSAFE_KERNEL.at(info.span(kw), name=fn.name)]
    return []


def _annotated_names(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    p = node.args
    return [x.arg for x in (*p.posonlyargs, *p.args, *p.kwonlyargs)]


def _param(p: ParamSpec, consts: dict[str, object] | None) -> Param | None:
    """A parameter's typed value; None for a tensor whose Const[DType] has no value yet."""
    def dim(entry: int | str) -> Dim:
        if isinstance(entry, str):
            value = (consts or {}).get(entry)
            return value if isinstance(value, int) else SymInt(entry)
        return entry

    if p.kind in ("tensor", "mut", "acc"):
        dtype = p.dtype if p.dtype_param is None else (consts or {}).get(p.dtype_param)
        if not isinstance(dtype, DType):
            return None
        t = TensorType(dtype, tuple(dim(e) for e in p.shape), p.kind == "mut", p.acc_op)
        return Param(p.name, p.kind, Value(t, p.span, p.name))
    if p.kind == "scalar":
        assert p.dtype is not None
        return Param(p.name, p.kind, Value(TileType(p.dtype, ()), p.span, p.name))
    value = (consts or {}).get(p.name, SymInt(p.name))
    kind = p.const_kind or "int"
    return Param(p.name, "const", Value(ConstType(kind, value), p.span, p.name,
                                        const=value))  # type: ignore[arg-type]


def check_helper_syntax(info: ModuleInfo, fn: FunctionDef) -> list[Diagnostic]:
    """CT1 errors of a helper with unknown arguments (its types are checked per call)."""
    ctx = Context(info, Builder(), None)
    env: dict[str, Binding] = {n: UNKNOWN for n in _annotated_names(fn.node)}
    Evaluator(ctx, env, False).body(fn.node.body)
    return [d for d in ctx.diags if d.entry.family is Family.SYNTAX]


__all__ = ["KernelResult", "analyze_kernel", "check_helper_syntax"]
