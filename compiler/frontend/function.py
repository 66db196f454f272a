"""Analyzing one kernel or helper: parameters, body, and helper inlining."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ...diagnostics import messages as msg
from ...diagnostics.codes import Family
from ...diagnostics.diagnostic import Diagnostic, Span, dedupe
from ...reader.source import FunctionDef, ModuleInfo, literal_value
from ..ir import KernelIR, Param, Value
from ..types import ConstType, Dim, SymInt, TensorType, TileType
from .builder import Arg, Builder
from .control import ControlFlow, LoopCtx
from .exprs import Context, TypedName, literal_fvalue, slab_hover
from .params import KernelSignature, ParamSpec, read_signature
from .values import UNKNOWN, Binding, FValue, Reject, Unbound, const_value


class Analyzer(ControlFlow):
    def __init__(self, ctx: Context, env: dict[str, Binding], is_kernel: bool,
                 call_site: Span | None = None, const_params: set[str] | None = None) -> None:
        self.ctx = ctx
        self.env = env
        self.is_kernel = is_kernel
        self.call_site = call_site
        self.const_params = const_params or set()
        self.terminated = False
        self.returned = False
        self.loops: list[LoopCtx] = []


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
    params = [_param(p, consts) for p in sig.params]
    env: dict[str, Binding] = {p.name: p.value for p in params}
    ctx.names += [TypedName(p.name, p.value.span, slab_hover(p.value.type)) for p in params
                  if isinstance(p.value.type, TensorType) and (p.value.type.mutable or
                                                     p.value.type.acc is not None)]
    if diags:
        for name in _annotated_names(fn.node):
            env.setdefault(name, UNKNOWN)  # a rejected signature: no follow-on errors
    analyzer = Analyzer(ctx, env, True, const_params={p.name for p in sig.params
                                                       if p.kind == "const"})
    analyzer.body(fn.node.body)
    all_diags = dedupe(diags + ctx.diags + unsafe_notice(info, fn))
    ir = None
    if not any(d.severity.value == "error" for d in all_diags):
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


def _param(p: ParamSpec, consts: dict[str, object] | None) -> Param:
    def dim(entry: int | str) -> Dim:
        if isinstance(entry, str):
            value = (consts or {}).get(entry)
            return value if isinstance(value, int) else SymInt(entry)
        return entry

    if p.kind in ("tensor", "mut", "acc"):
        assert p.dtype is not None
        t = TensorType(p.dtype, tuple(dim(e) for e in p.shape), p.kind == "mut", p.acc_op)
        return Param(p.name, p.kind, Value(t, p.span, p.name))
    if p.kind == "scalar":
        assert p.dtype is not None
        return Param(p.name, p.kind, Value(TileType(p.dtype, ()), p.span, p.name))
    value = (consts or {}).get(p.name, SymInt(p.name))
    kind = p.const_kind or "int"
    return Param(p.name, "const", Value(ConstType(kind, value), p.span, p.name,
                                        const=value))  # type: ignore[arg-type]


def inline_helper(ctx: Context, fn: FunctionDef, args: list[Arg], kwargs: dict[str, Arg],
                  span: Span) -> FValue:
    env = _bind_helper_args(ctx, fn, args, kwargs, span)
    ctx.stack.append(fn.name)
    try:
        analyzer = Analyzer(ctx, env, False, call_site=span)
        analyzer.body(early_returns(fn.node.body))
    finally:
        ctx.stack.pop()
    result = analyzer.env.get("__return__")
    if result is None:
        return const_value(span, None, "none")
    return UNKNOWN if isinstance(result, Unbound) else result


def _bind_helper_args(ctx: Context, fn: FunctionDef, args: list[Arg], kwargs: dict[str, Arg],
                      span: Span) -> dict[str, Binding]:
    p = fn.node.args
    params = [*p.posonlyargs, *p.args, *p.kwonlyargs]
    positional = [*p.posonlyargs, *p.args]
    pos_defaults: list[ast.expr | None] = [None] * (len(positional) - len(p.defaults))
    defaults = dict(zip((x.arg for x in params), [*pos_defaults, *p.defaults, *p.kw_defaults],
                        strict=True))
    env: dict[str, Binding] = {}
    b = ctx.builder
    if len(args) > len(positional):
        b.fail(msg.TOO_MANY_ARGS, args[len(positional)].span, name=fn.name, most=len(positional),
               s="" if len(positional) == 1 else "s", given=len(args))
    for param, a in zip(positional, args, strict=False):
        env[param.arg] = a.value
    names = {x.arg for x in params}
    for key, a in kwargs.items():
        if key not in names:
            b.fail(msg.UNKNOWN_KEYWORD, a.span, name=fn.name, param=key)
        if key in env:
            b.fail(msg.DUPLICATE_ARG, a.span, name=fn.name, param=key)
        env[key] = a.value
    for param in params:
        if param.arg in env:
            continue
        node = defaults[param.arg]
        default = literal_value(node) if node is not None else None
        if default is None:
            b.fail(msg.MISSING_ARG, span, name=fn.name, param=param.arg)
        env[param.arg] = literal_fvalue(default, span)
    return env


def check_helper_syntax(info: ModuleInfo, fn: FunctionDef) -> list[Diagnostic]:
    """CT1 errors of a helper with unknown arguments (its types are checked per call)."""
    ctx = Context(info, Builder(), None)
    env: dict[str, Binding] = {n: UNKNOWN for n in _annotated_names(fn.node)}
    Analyzer(ctx, env, False).body(fn.node.body)
    return [d for d in ctx.diags if d.entry.family is Family.SYNTAX]




__all__ = ["Analyzer", "KernelResult", "Reject", "analyze_kernel", "check_helper_syntax",
           "inline_helper"]


def early_returns(stmts: list[ast.stmt]) -> list[ast.stmt]:
    """`if c: ...; return a` followed by more statements becomes `if c: ...; return a else:
    <the rest>` (and likewise for a returning else), so a helper may return from one branch:
    both branches then end in a return, which the branch merge handles. Loops are left alone
    (a return there would also end the loop)."""
    out: list[ast.stmt] = []
    for i, stmt in enumerate(stmts):
        if isinstance(stmt, ast.If):
            body, orelse = early_returns(stmt.body), early_returns(stmt.orelse)
            rest = stmts[i + 1:]
            if rest and _returns(body) != _returns(orelse):
                if _returns(body):
                    orelse = early_returns([*stmt.orelse, *rest])
                else:
                    body = early_returns([*stmt.body, *rest])
                out.append(_if_like(stmt, body, orelse))
                return out
            out.append(_if_like(stmt, body, orelse))
        else:
            out.append(stmt)
    return out


def _returns(stmts: list[ast.stmt]) -> bool:
    """Whether every path through `stmts` ends in a return."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, ast.Return):
        return True
    if isinstance(last, ast.If):
        return _returns(last.body) and _returns(last.orelse)
    return False


def _if_like(node: ast.If, body: list[ast.stmt], orelse: list[ast.stmt]) -> ast.If:
    if body is node.body and orelse is node.orelse:
        return node
    return ast.copy_location(ast.If(test=node.test, body=body, orelse=orelse), node)
