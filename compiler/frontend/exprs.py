"""Expressions: names, literals, operators and calls (cutile ops, methods, inlined helpers)."""

from __future__ import annotations

import ast
import builtins
import difflib
import math
from dataclasses import dataclass, field, replace

from ...diagnostics import messages as msg
from ...diagnostics.diagnostic import Diagnostic, Note, Span
from ...reader.source import FunctionDef, ModuleInfo
from ..dtypes import BOOL
from ..dtypes import BY_NAME as DTYPES
from ..ir import Value
from ..ops import FUNCTIONS, METHODS, bind
from ..ops.accumulate import acc_read
from ..ops.elementwise import binary, unary
from ..ops.matmul import matmul
from ..ops.memory import SCALAR_I32, slab_attr
from ..ops.registry import Call
from ..ops.slicing import SliceItem, slice_tile
from ..types import (
    ConstType,
    PartitionType,
    SlabType,
    SymInt,
    TensorType,
    TileType,
    Type,
    describe,
    fmt_shape,
)
from .builder import Arg, Builder
from .values import (
    UNKNOWN,
    Binding,
    FValue,
    Poisoned,
    Reject,
    SlabParent,
    TupleVal,
    Unbound,
    Unknown,
    const_of,
    const_value,
)

BINARY_OPS: dict[type[ast.operator], str] = {
    ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.FloorDiv: "floordiv",
    ast.Mod: "mod", ast.Pow: "pow", ast.BitAnd: "and", ast.BitOr: "or", ast.BitXor: "xor",
    ast.LShift: "shl", ast.RShift: "shr",
}
AUG_OPS = BINARY_OPS  # `x op= y` rebinds x to `x op y` (tiles are values)
COMPARE_OPS: dict[type[ast.cmpop], str] = {
    ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge",
}
UNSUPPORTED_EXPRS: dict[type[ast.AST], tuple[str, str]] = {
    ast.ListComp: ("list comprehensions", "; build tiles with ct.arange, ct.full or ct.where"),
    ast.SetComp: ("set comprehensions", ""),
    ast.DictComp: ("dict comprehensions", ""),
    ast.GeneratorExp: ("generator expressions", ""),
    ast.Lambda: ("lambdas", "; define a module-level @ct.function helper"),
    ast.List: ("lists", "; use a tuple for shapes and indices"),
    ast.Dict: ("dicts", ""),
    ast.Set: ("sets", ""),
    ast.JoinedStr: ("f-strings", "; use ct.printf(\"%d\", x)"),
    ast.NamedExpr: ("the walrus operator", "; assign in a separate statement"),
    ast.Await: ("await expressions", ""),
    ast.Yield: ("yield expressions", ""),
    ast.YieldFrom: ("yield expressions", ""),
    ast.Slice: ("slices", "; use reshape or load_tile"),
    ast.Starred: ("starred expressions", ""),
}
# cutile names that exist but are not kernel values (annotations, decorators, host API).
DSL_NAMES = frozenset({"Tensor", "Mut", "Acc", "Const", "Tile", "DType", "TileValue", "kernel",
                       "function", "row_major", "col_major", "grouped"})
HOST_HINTS = {
    "print": "; use ct.printf(fmt, *values)",
    "range": "; range() is only allowed as the iterable of a for loop",
    "len": "; use t.shape or a Const parameter",
    "max": "; use ct.max(t, axis) or ct.maximum(a, b)",
    "min": "; use ct.min(t, axis) or ct.minimum(a, b)",
    "abs": "; use ct.abs(t)",
    "sum": "; use ct.sum(t, axis)",
}


@dataclass(frozen=True)
class TypedName:
    """A name bound in a kernel and its type, for hover and inlay hints."""

    name: str
    span: Span
    type: str


def slab_hover(t: Type, owner: str | None = None) -> str:
    """Hover text of a Mut parameter (this block's slab) or of `zt` in `for zt in z.tiles()`
    (short: it is also the loop target's inlay hint)."""
    assert isinstance(t, TensorType)
    shape = fmt_shape(t.shape).replace("-1", "dynamic")
    if owner:
        return f"Slab[{t.dtype}, {shape}] of {owner}"
    if t.acc is not None:
        return (f"{t}: an accumulator every block may {t.acc} into (never read in the "
                f"launch), shape {shape}")
    return f"{t}: this block's slab, shape {shape}"


@dataclass
class Context:
    """Shared by a kernel's analysis and every helper inlined into it."""

    info: ModuleInfo
    builder: Builder
    consts: dict[str, object] | None  # specialized Const values; None when only checking
    diags: list[Diagnostic] = field(default_factory=list)
    names: list[TypedName] = field(default_factory=list)
    stack: list[str] = field(default_factory=list)  # helpers being inlined (recursion check)
    unsafe: bool = False


class Expressions:
    ctx: Context
    env: dict[str, Binding]
    call_site: Span | None  # where the helper being analyzed was called from

    @property
    def b(self) -> Builder:
        return self.ctx.builder

    def span(self, node: ast.AST) -> Span:
        return self.ctx.info.span(node)

    def arg(self, node: ast.expr) -> Arg:
        return Arg(self.expr(node), self.span(node))

    # -- dispatch -------------------------------------------------------------------------------
    def expr(self, node: ast.expr) -> FValue:
        span = self.span(node)
        if isinstance(node, ast.Name):
            return self.name(node, span)
        if isinstance(node, ast.Constant):
            return self.constant(node, span)
        if isinstance(node, ast.Tuple):
            return TupleVal(tuple(self.expr(e) for e in node.elts))
        if isinstance(node, ast.Attribute):
            return self.attribute(node, span)
        if isinstance(node, ast.BinOp):
            return self.binary(node, span)
        if isinstance(node, ast.UnaryOp):
            return self.unary(node, span)
        if isinstance(node, ast.BoolOp):
            return self.logic(node, span)
        if isinstance(node, ast.Compare):
            return self.compare(node, span)
        if isinstance(node, ast.Call):
            return self.call(node, span)
        if isinstance(node, ast.Subscript):
            return self.subscript(node, span)
        if isinstance(node, ast.IfExp):
            return self.if_exp(node, span)
        what, hint = UNSUPPORTED_EXPRS.get(type(node), (type(node).__name__, ""))
        self.b.fail(msg.UNSUPPORTED_EXPRESSION, span, what=_upper(what), verb="are",
                    hint=hint)

    def constant(self, node: ast.Constant, span: Span) -> FValue:
        value = node.value
        if value is None:
            return const_value(span, None, "none")
        if isinstance(value, (bool, int, float, str)):
            return const_value(span, value)
        what = {complex: "Literals of complex numbers", bytes: "Bytes literals"}.get(
            type(value), "Ellipsis literals ('...')")
        self.b.fail(msg.UNSUPPORTED_EXPRESSION, span, what=what, verb="are", hint="")

    # -- names ----------------------------------------------------------------------------------
    def name(self, node: ast.Name, span: Span) -> FValue:
        ident = node.id
        if ident in self.env:
            bound = self.env[ident]
            if isinstance(bound, SlabParent):
                self.b.fail(msg.PARENT_IN_TILES_LOOP, span, name=ident, slab=bound.slab)
            if isinstance(bound, Unbound):
                self.b.fail(msg.POSSIBLY_UNBOUND, span, name=ident, where=bound.where)
            return bound
        info = self.ctx.info
        if ident in info.constants:
            return literal_fvalue(info.constants[ident], span)
        number = math_constant(info, node)
        if number is not None:
            return const_value(span, number)
        resolved = info.resolve(node)
        if resolved is not None:
            return self.cutile_name(resolved, span)
        if ident in info.functions:
            self.b.fail(msg.BAD_OPERAND, span, op="this expression",
                        what=f"the function '{ident}' as a value (call it)")
        if ident in info.assigned_globals:
            self.b.fail(msg.NON_CONSTANT_GLOBAL, span, name=ident)
        self.b.fail(msg.UNKNOWN_NAME, span, name=ident)

    def cutile_name(self, resolved: str, span: Span) -> FValue:
        if resolved in DTYPES:
            return const_value(span, DTYPES[resolved], "dtype")
        self.b.fail(msg.BAD_OPERAND, span, op="this expression",
                    what=f"ct.{resolved} as a value")

    def attribute(self, node: ast.Attribute, span: Span) -> FValue:
        number = None if _root(node) in self.env else math_constant(self.ctx.info, node)
        if number is not None:
            return const_value(span, number)
        resolved = self.ctx.info.resolve(node)
        if resolved is not None and _root(node) not in self.env:
            if resolved in DTYPES or resolved in FUNCTIONS or resolved in DSL_NAMES:
                return self.cutile_name(resolved, span)
            self._unknown_op(resolved, span)
        base = self.expr(node.value)
        if isinstance(base, Unknown):
            raise Poisoned
        attr = node.attr
        if attr in ("shape", "tile_shape") and isinstance(base, Value) and (
                isinstance(base.type, SlabType) or (
                    isinstance(base.type, TensorType) and base.type.mutable)):
            return slab_attr(self.b, Arg(base, self.ctx.info.span(node.value)), attr, span)
        if isinstance(base, Value) and isinstance(base.type, SlabType):
            base = Value(base.type.tensor, base.span, base.name)  # a slab's shape, dtype, ndim
        if isinstance(base, TupleVal) or not isinstance(
                base.type, (TileType, TensorType)) or attr not in ("shape", "dtype", "ndim"):
            kind = "a tuple" if isinstance(base, TupleVal) else _kind(base.type)
            receiver = "tuple" if isinstance(base, TupleVal) else _receiver(base.type)
            if (receiver, attr) in METHODS:
                self.b.fail(msg.BAD_OPERAND, span, op="this expression",
                            what=f"the method '{attr}' as a value (call it)")
            self.b.fail(msg.UNKNOWN_METHOD, self.ctx.info.attr_span(node), kind=_upper(kind),
                        name=attr, hint="")
        t = base.type
        if attr == "dtype":
            return const_value(span, t.dtype, "dtype")
        if attr == "ndim":
            return const_value(span, t.rank)
        if isinstance(t, TileType) or t.mutable:
            return TupleVal(tuple(const_value(span, d) for d in t.shape))
        return TupleVal(tuple(  # a read-only tensor: static extents as ints, dynamic ones as i32
            self.b.emit1("tensor_extent", [base], SCALAR_I32, span, axis=axis)
            if isinstance(d, int) and d < 0 else const_value(span, d)
            for axis, d in enumerate(t.shape)))

    def _unknown_op(self, resolved: str, span: Span) -> None:
        close = difflib.get_close_matches(resolved, list(FUNCTIONS), n=1)
        hint = f"; did you mean ct.{close[0]}?" if close else ""
        if any(name == resolved for _, name in METHODS):
            hint = f"; it is a method: t.{resolved}(...)"
        self.b.fail(msg.UNKNOWN_OPERATION, span, name=resolved, hint=hint)

    # -- operators ------------------------------------------------------------------------------
    def binary(self, node: ast.BinOp, span: Span) -> FValue:
        lhs, rhs = self.arg(node.left), self.arg(node.right)
        if isinstance(node.op, ast.MatMult):
            return matmul(self.b, lhs, rhs, span)
        return binary(self.b, BINARY_OPS[type(node.op)], lhs, rhs, span)

    def unary(self, node: ast.UnaryOp, span: Span) -> FValue:
        operand = self.arg(node.operand)
        if isinstance(node.op, ast.UAdd):
            return operand.value
        name = {ast.USub: "neg", ast.Invert: "invert", ast.Not: "not"}[type(node.op)]
        return unary(self.b, name, operand, span)

    def logic(self, node: ast.BoolOp, span: Span) -> FValue:
        """`a and b and c` on bools folds at compile time; on bool tiles it is `&` / `|`."""
        op = "and" if isinstance(node.op, ast.And) else "or"
        result = self.arg(node.values[0])
        for operand in node.values[1:]:
            rhs = self.arg(operand)
            x, y = const_of(self.b.known(result)), const_of(self.b.known(rhs))
            if isinstance(x, bool) and isinstance(y, bool):
                value: FValue = const_value(span, (x and y) if op == "and" else (x or y))
            else:
                value = binary(self.b, op, result, rhs, span)
            result = Arg(value, span)
        return result.value

    def compare(self, node: ast.Compare, span: Span) -> FValue:
        if len(node.ops) != 1:
            self.b.fail(msg.UNSUPPORTED_EXPRESSION, span, what="Chained comparisons", verb="are",
                        hint="; combine two comparisons with &")
        name = COMPARE_OPS.get(type(node.ops[0]))
        if name is None:
            self.b.fail(msg.UNSUPPORTED_EXPRESSION, span, what="'is' and 'in' comparisons",
                        verb="are", hint="")
        return binary(self.b, name, self.arg(node.left), self.arg(node.comparators[0]), span)

    def subscript(self, node: ast.Subscript, span: Span) -> FValue:
        base = self.expr(node.value)
        index_node = node.slice
        if isinstance(base, Value) and isinstance(base.type, TileType):
            return self.tile_subscript(base, node, span)
        if not isinstance(base, TupleVal) or isinstance(index_node, (ast.Slice, ast.Tuple)):
            self.b.fail(msg.UNSUPPORTED_EXPRESSION, span, what="Indexing tiles", verb="is",
                        hint="; use reshape, ct.where or load_tile")
        index = const_of(self.expr(index_node))
        if not isinstance(index, int) or not -len(base.items) <= index < len(base.items):
            self.b.fail(msg.NOT_CONSTANT, self.span(index_node),
                        what=f"a tuple index (an int below {len(base.items)})")
        return base.items[index]

    def tile_subscript(self, base: Value, node: ast.Subscript, span: Span) -> FValue:
        """`t[0:64, :]`, `t[3]`: static sub-tiles (ops/slicing.py)."""
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        items: list[SliceItem] = []
        for part in parts:
            if isinstance(part, ast.Slice):
                items.append((self._bound(part.lower), self._bound(part.upper),
                              self._bound(part.step)))
            else:
                index = self._bound(part)
                assert index is not None
                items.append(index)
        return slice_tile(self.b, Arg(base, self.span(node.value)), items,
                          [self.span(p) for p in parts], span)

    def _bound(self, node: ast.expr | None) -> int | None:
        if node is None:
            return None
        c = const_of(self.b.known(self.arg(node)))
        if isinstance(c, SymInt):
            raise Poisoned  # known at specialization
        if not isinstance(c, int) or isinstance(c, bool):
            self.b.fail(msg.NOT_CONSTANT, self.span(node), what="a tile index or slice bound "
                        "(an int)")
        return c

    def if_exp(self, node: ast.IfExp, span: Span) -> FValue:
        """`a if c else b`: a compile-time `c` picks one side; a scalar bool tile selects
        between both (each side is computed, as in ct.where)."""
        test = self.arg(node.test)
        cond = const_of(self.b.known(test))
        if isinstance(cond, bool):
            return self.expr(node.body if cond else node.orelse)
        body, orelse = self.arg(node.body), self.arg(node.orelse)
        if isinstance(cond, SymInt):  # a Const not yet specialized: either side may be taken
            a, b = self.b.known(body), self.b.known(orelse)
            if isinstance(a, Value) and isinstance(b, Value) and a.type == b.type:
                return a
            raise Poisoned
        c = self.b.tile_or_const(test, "a conditional expression")
        if not isinstance(c.type, TileType) or c.type.dtype != BOOL or c.type.rank != 0:
            self.b.fail(msg.CONDITION_TYPE, test.span, stmt="x if c else y",
                        got=describe(c.type))
        spec = FUNCTIONS["where"]
        return spec.rule(self.b, Call("where", {"cond": test, "x": body, "y": orelse}, span))

    # -- calls ----------------------------------------------------------------------------------
    def call_args(self, node: ast.Call) -> tuple[list[Arg], dict[str, Arg]]:
        args: list[Arg] = []
        kwargs: dict[str, Arg] = {}
        for a in node.args:
            if isinstance(a, ast.Starred):
                self.b.fail(msg.UNSUPPORTED_EXPRESSION, self.span(a), what="Starred arguments",
                            verb="are", hint="")
            args.append(self.arg(a))
        for kw in node.keywords:
            if kw.arg is None:
                self.b.fail(msg.UNSUPPORTED_EXPRESSION, self.span(kw), what="Starred arguments",
                            verb="are", hint="")
            kwargs[kw.arg] = self.arg(kw.value)
        return args, kwargs

    def call(self, node: ast.Call, span: Span) -> FValue:
        func = node.func
        info = self.ctx.info
        local = _root(func) in self.env
        resolved = None if local else info.resolve(func)
        if resolved is not None:
            return self.call_op(resolved, node, span)
        root = _root(func)
        if isinstance(func, ast.Attribute) and not local and root is not None and \
                root in info.assigned_globals and root not in info.constants:
            # A function of another module or object (np.exp, math.sqrt): host code.
            self.b.fail(msg.NON_KERNEL_CALL, self.span(func), name=_text(info, func), hint="")
        if isinstance(func, ast.Attribute):
            return self.call_method(func, node, span)
        if isinstance(func, ast.Name) and not local:
            target = info.functions.get(func.id)
            if target is not None and not target.is_kernel:
                args, kwargs = self.call_args(node)
                return self.inline(target, args, kwargs, span)
            if target is None and func.id not in info.assigned_globals and \
                    not hasattr(builtins, func.id):
                self.b.fail(msg.UNKNOWN_NAME, self.span(func), name=func.id)
            hint = HOST_HINTS.get(func.id, "; decorate it with @ct.function")
            if target is not None:
                hint = "; kernels cannot call other kernels (use a @ct.function helper)"
            self.b.fail(msg.NON_KERNEL_CALL, self.span(func), name=func.id, hint=hint)
        self.b.fail(msg.NON_KERNEL_CALL, self.span(func), name=_text(info, func), hint="")

    def call_op(self, resolved: str, node: ast.Call, span: Span) -> FValue:
        spec = FUNCTIONS.get(resolved)
        if spec is None:
            if resolved in ("kernel", "function"):
                self.b.fail(msg.NON_KERNEL_CALL, span, name=f"ct.{resolved}", hint="")
            self._unknown_op(resolved, self.span(node.func))
            raise AssertionError("unreachable")
        args, kwargs = self.call_args(node)
        call = bind(self.b, spec, f"ct.{resolved}", args, kwargs, span)
        return spec.rule(self.b, call)

    def call_method(self, func: ast.Attribute, node: ast.Call, span: Span) -> FValue:
        receiver = self.arg(func.value)
        base = self.b.known(receiver)
        name = func.attr
        kind = "tuple" if isinstance(base, TupleVal) else _receiver(base.type)
        spec = METHODS.get((kind, name))
        if spec is None and kind == "acc" and ("tensor", name) in METHODS and name != "store":
            acc_read(self.b, receiver, name, span)
        if spec is None:
            available = sorted(n for (k, n) in METHODS if k == kind)
            hint = f" (it has: {', '.join(available)})" if available else ""
            if name == "tiles" and kind == "mut":
                self.b.fail(msg.UNSUPPORTED_LOOP, span, what="z.tiles() outside a for loop")
            self.b.fail(msg.UNKNOWN_METHOD, self.ctx.info.attr_span(func),
                        kind=_upper(_kind_from_receiver(kind)), name=name, hint=hint)
        args, kwargs = self.call_args(node)
        call = bind(self.b, spec, f"{_text(self.ctx.info, func.value)}.{name}",
                    [receiver, *args], kwargs, span)
        return spec.rule(self.b, call)

    # -- helpers --------------------------------------------------------------------------------
    def inline(self, fn: FunctionDef, args: list[Arg], kwargs: dict[str, Arg],
               span: Span) -> FValue:
        from .function import inline_helper

        stack = self.ctx.stack
        if fn.name in stack:
            cycle = stack[stack.index(fn.name):]
            # Report a cycle once, at the call into its first-defined helper, whichever helper
            # the analysis entered it from (the cycle is walked once more to get there).
            head = min(cycle, key=lambda n: self.ctx.info.functions[n].node.lineno)
            if fn.name == head or stack.count(fn.name) > 1:
                chain = " -> ".join([*stack[stack.index(fn.name):], fn.name])
                self.b.fail(msg.RECURSION, span, name=fn.name, chain=chain)
        return inline_helper(self.ctx, fn, args, kwargs, span)

    def record(self, err: Reject) -> None:
        diag = err.diag
        if self.call_site is not None:
            diag = replace(diag, notes=(*diag.notes, Note("in the call from here",
                                                          self.call_site)))
        self.ctx.diags.append(diag)


# `math` constants are float literals in kernels (`padding=-math.inf`, `x * math.pi`).
MATH_CONSTANTS = {"math.inf": math.inf, "math.nan": math.nan, "math.pi": math.pi,
                  "math.e": math.e, "math.tau": math.tau}


def math_constant(info: ModuleInfo, node: ast.expr) -> float | None:
    """The value of `math.inf` (however `math` or `inf` was imported), or None."""
    full = info.qualified(node)
    return None if full is None else MATH_CONSTANTS.get(full)


def literal_fvalue(value: object, span: Span) -> FValue:
    if isinstance(value, tuple):
        return TupleVal(tuple(literal_fvalue(v, span) for v in value))
    return const_value(span, value)  # type: ignore[arg-type]


def _upper(text: str) -> str:
    return text[:1].upper() + text[1:]


def _root(expr: ast.expr) -> str | None:
    while isinstance(expr, ast.Attribute):
        expr = expr.value
    return expr.id if isinstance(expr, ast.Name) else None


def _text(info: ModuleInfo, node: ast.AST) -> str:
    return info.code(node)


def _receiver(t: object) -> str:
    if isinstance(t, TileType):
        return "tile"
    if isinstance(t, TensorType):
        if t.acc is not None:
            return "acc"
        return "mut" if t.mutable else "tensor"
    if isinstance(t, SlabType):
        return "mut"
    if isinstance(t, PartitionType):
        return "partition"
    if isinstance(t, ConstType):
        return "constant"
    return "value"


def _kind_from_receiver(kind: str) -> str:
    return {"tile": "a tile", "mut": "a Mut tensor", "tensor": "a read-only tensor",
            "acc": "an accumulator (Acc)",
            "partition": "a partition", "constant": "a constant", "tuple": "a tuple"}.get(
                kind, "this value")


def _kind(t: object) -> str:
    return _kind_from_receiver(_receiver(t))


__all__ = ["AUG_OPS", "UNKNOWN", "Context", "Expressions", "TypedName"]
