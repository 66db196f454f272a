"""Expressions: names, literals, operators and calls (cutile ops, methods, inlined helpers).

Each rule takes the scope (a `context.Scope`: the core passes itself), the node and its span; the
core (core.py) finds the rule by the node's type. Operands are evaluated back through
`scope.expr`/`scope.arg`; ops are typed by their definitions (compiler/ops).
"""

from __future__ import annotations

import ast
import builtins
import difflib
from typing import NoReturn

from ...diagnostics import messages as msg
from ...diagnostics.diagnostic import Span
from ...reader.constants import MATH_CONSTANTS, float_of_text
from ...reader.imports import unread_name
from ...reader.source import ModuleInfo
from ..dtypes import BOOL, F32, I32, DType
from ..dtypes import BY_NAME as DTYPES
from ..ir import Value
from ..ops import FUNCTIONS, METHODS, bind
from ..ops.accumulate import acc_read
from ..ops.elementwise import binary, unary
from ..ops.matmul import matmul
from ..ops.memory import slab_attr
from ..ops.registry import Call
from ..ops.slicing import SliceItem, slice_tile
from ..types import (
    SCALAR_I32,
    ConstType,
    PartitionType,
    SlabType,
    SymInt,
    TensorType,
    TileType,
    describe,
)
from .builder import Arg
from .context import Scope
from .inline import inline
from .values import (
    FValue,
    Poisoned,
    Reject,
    SlabParent,
    TupleVal,
    Unbound,
    Unknown,
    const_of,
    const_value,
    literal_fvalue,
    none_value,
    symbolic_choice,
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


def unsupported(scope: Scope, node: ast.expr, span: Span) -> FValue:
    """An expression kernels do not have (the core's rule for any node without one)."""
    what, hint = UNSUPPORTED_EXPRS.get(type(node), (type(node).__name__, ""))
    scope.b.fail(msg.UNSUPPORTED_EXPRESSION, span, what=_upper(what), verb="are", hint=hint)


def constant(scope: Scope, node: ast.Constant, span: Span) -> FValue:
    value = node.value
    if value is None:
        return none_value(span)
    if isinstance(value, (bool, int, float, str)):
        return const_value(span, value)
    what = {complex: "Literals of complex numbers", bytes: "Bytes literals"}.get(
        type(value), "Ellipsis literals ('...')")
    scope.b.fail(msg.UNSUPPORTED_EXPRESSION, span, what=what, verb="are", hint="")


def tuple_value(scope: Scope, node: ast.Tuple, span: Span) -> FValue:
    return TupleVal(tuple(scope.expr(e) for e in node.elts))


# -- names ------------------------------------------------------------------------------------
def load_name(scope: Scope, node: ast.Name, span: Span) -> FValue:
    ident = node.id
    if ident in scope.env:
        return _bound(scope, ident, span)
    info = scope.ctx.info
    if ident in info.constants:
        return literal_fvalue(info.constants[ident], span)
    number = math_constant(info, node)
    if number is not None:
        return const_value(span, number)
    resolved = info.resolve(node)
    if resolved is not None:
        return cutile_name(scope, resolved, span)
    unread = unread_name(info, node)  # from a module cutile cannot read: say which
    if unread is not None:
        raise Reject(unread)
    if ident in info.functions:
        scope.b.fail(msg.BAD_OPERAND, span, op="this expression",
                     what=f"the function '{ident}' as a value (call it)")
    if ident in info.assigned_globals:
        scope.b.fail(msg.NON_CONSTANT_GLOBAL, span, name=ident)
    outer = _enclosing_binder(info, ident, span)
    if outer is not None:
        scope.b.fail(msg.CLOSURE_NAME, span, name=ident, outer=outer)
    scope.b.fail(msg.UNKNOWN_NAME, span, name=ident)


def _enclosing_binder(info: ModuleInfo, ident: str, span: Span) -> str | None:
    """The plain function around the kernel (or helper) at `span` that binds `ident` (a kernel
    made by a factory, `def make(scale): @ct.kernel def k(...): ... scale`), if any."""
    if info.enclosing is None:
        info.enclosing = _plain_functions(info)
    return next((name for first, last, name, bound in info.enclosing
                 if first <= span.line <= last and ident in bound), None)


def _plain_functions(info: ModuleInfo) -> list[tuple[int, int, str, frozenset[str]]]:
    """Every function of the module that is no kernel or helper and has one inside it: its
    lines, name and the names its own code binds (parameters included)."""
    cutile = {id(f.node) for f in info.functions.values()}
    out = []
    for node in ast.walk(info.tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or id(node) in cutile:
            continue
        if not any(id(n) in cutile for n in ast.walk(node) if n is not node):
            continue
        args = node.args
        params = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
        params |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
        out.append((node.lineno, node.end_lineno or node.lineno, node.name,
                    frozenset(params | _own_stores(node))))
    return out


def _own_stores(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Names a function's own code assigns (not those of the functions nested in it)."""
    out: set[str] = set()
    todo: list[ast.AST] = list(fn.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        if not isinstance(node, ast.Lambda):
            todo.extend(ast.iter_child_nodes(node))
    return out


def _bound(scope: Scope, ident: str, span: Span) -> FValue:
    """A local name's value (CT1 when it names no single value here)."""
    bound = scope.env[ident]
    if isinstance(bound, SlabParent):
        scope.b.fail(msg.PARENT_IN_TILES_LOOP, span, name=ident, slab=bound.slab)
    if isinstance(bound, Unbound):
        scope.b.fail(msg.POSSIBLY_UNBOUND, span, name=ident, where=bound.where)
    return bound


def cutile_name(scope: Scope, resolved: str, span: Span) -> FValue:
    if resolved in DTYPES:
        return const_value(span, DTYPES[resolved], "dtype")
    scope.b.fail(msg.BAD_OPERAND, span, op="this expression", what=f"ct.{resolved} as a value")


def attribute(scope: Scope, node: ast.Attribute, span: Span) -> FValue:
    local = _root(node) in scope.env
    number = None if local else math_constant(scope.ctx.info, node)
    if number is not None:
        return const_value(span, number)
    resolved = scope.ctx.info.resolve(node)
    if resolved is not None and not local:
        if resolved in DTYPES or resolved in FUNCTIONS or resolved in DSL_NAMES:
            return cutile_name(scope, resolved, span)
        _unknown_op(scope, resolved, span)
    base = scope.expr(node.value)
    if isinstance(base, Unknown):
        raise Poisoned
    return _value_attribute(scope, node, base, span)


def _value_attribute(scope: Scope, node: ast.Attribute, base: Value | TupleVal,
                     span: Span) -> FValue:
    """`.shape`, `.tile_shape`, `.dtype`, `.ndim` of a tile, tensor or slab."""
    attr = node.attr
    if attr in ("shape", "tile_shape") and isinstance(base, Value) and (
            isinstance(base.type, SlabType) or (
                isinstance(base.type, TensorType) and base.type.mutable)):
        return slab_attr(scope.b, Arg(base, scope.span(node.value)), attr, span)
    if isinstance(base, Value) and isinstance(base.type, SlabType):
        base = Value(base.type.tensor, base.span, base.name)  # a slab's shape, dtype, ndim
    if attr == "T" and isinstance(base, Value) and isinstance(base.type, TileType):
        spec = METHODS[("tile", "transpose")]  # NumPy's and torch's `t.T`
        return spec.rule(scope.b, bind(scope.b, spec, f"{_text(scope.ctx.info, node.value)}.T",
                                       [Arg(base, scope.span(node.value))], {}, span))
    if isinstance(base, TupleVal) or not isinstance(
            base.type, (TileType, TensorType)) or attr not in ("shape", "dtype", "ndim"):
        _no_attribute(scope, node, base, span)
    t = base.type
    if attr == "dtype":
        return const_value(span, t.dtype, "dtype")
    if attr == "ndim":
        return const_value(span, t.rank)
    if isinstance(t, TileType) or t.mutable:
        return TupleVal(tuple(const_value(span, d) for d in t.shape))
    return TupleVal(tuple(  # a read-only tensor: static extents as ints, dynamic ones as i32
        scope.b.emit1("tensor_extent", [base], SCALAR_I32, span, axis=axis)
        if isinstance(d, int) and d < 0 else const_value(span, d)
        for axis, d in enumerate(t.shape)))


def _no_attribute(scope: Scope, node: ast.Attribute, base: Value | TupleVal,
                  span: Span) -> NoReturn:
    attr = node.attr
    kind = "a tuple" if isinstance(base, TupleVal) else _kind(base.type)
    receiver = "tuple" if isinstance(base, TupleVal) else _receiver(base.type)
    if (receiver, attr) in METHODS:
        scope.b.fail(msg.BAD_OPERAND, span, op="this expression",
                     what=f"the method '{attr}' as a value (call it)")
    has = {"tile": "shape, dtype, ndim, T", "tensor": "shape, dtype, ndim",
           "mut": "shape, tile_shape, dtype, ndim"}.get(receiver)
    scope.b.fail(msg.UNKNOWN_ATTRIBUTE, scope.ctx.info.attr_span(node), kind=_upper(kind),
                 name=attr, hint=f" (it has: {has})" if has else "")


def _unknown_op(scope: Scope, resolved: str, span: Span) -> NoReturn:
    close = difflib.get_close_matches(resolved, list(FUNCTIONS), n=1)
    hint = f"; did you mean ct.{close[0]}?" if close else ""
    if any(name == resolved for _, name in METHODS):
        hint = f"; it is a method: t.{resolved}(...)"
    scope.b.fail(msg.UNKNOWN_OPERATION, span, name=resolved, hint=hint)


# -- operators --------------------------------------------------------------------------------
def binary_op(scope: Scope, node: ast.BinOp, span: Span) -> FValue:
    lhs, rhs = scope.arg(node.left), scope.arg(node.right)
    if isinstance(node.op, ast.MatMult):
        return matmul(scope.b, lhs, rhs, span)
    return binary(scope.b, BINARY_OPS[type(node.op)], lhs, rhs, span)


def unary_op(scope: Scope, node: ast.UnaryOp, span: Span) -> FValue:
    operand = scope.arg(node.operand)
    if isinstance(node.op, ast.UAdd):
        return operand.value
    op = {ast.USub: "neg", ast.Invert: "invert", ast.Not: "not"}[type(node.op)]
    return unary(scope.b, op, operand, span)


def logic(scope: Scope, node: ast.BoolOp, span: Span) -> FValue:
    """`a and b and c` on bools folds at compile time; on bool tiles it is `&` / `|`."""
    op = "and" if isinstance(node.op, ast.And) else "or"
    b = scope.b
    result = scope.arg(node.values[0])
    for operand in node.values[1:]:
        rhs = scope.arg(operand)
        x, y = const_of(b.known(result)), const_of(b.known(rhs))
        if isinstance(x, bool) and isinstance(y, bool):
            value: FValue = const_value(span, (x and y) if op == "and" else (x or y))
        else:
            value = binary(b, op, result, rhs, span)
        result = Arg(value, span)
    return result.value


def compare(scope: Scope, node: ast.Compare, span: Span) -> FValue:
    if len(node.ops) != 1:
        scope.b.fail(msg.UNSUPPORTED_EXPRESSION, span, what="Chained comparisons", verb="are",
                     hint="; combine two comparisons with &")
    op = COMPARE_OPS.get(type(node.ops[0]))
    if op is None:
        scope.b.fail(msg.UNSUPPORTED_EXPRESSION, span, what="'is' and 'in' comparisons",
                     verb="are", hint="")
    return binary(scope.b, op, scope.arg(node.left), scope.arg(node.comparators[0]), span)


def subscript(scope: Scope, node: ast.Subscript, span: Span) -> FValue:
    base = scope.expr(node.value)
    if isinstance(base, Unknown):  # not known here (a helper's parameter at edit time)
        raise Poisoned
    index_node = node.slice
    if isinstance(base, Value) and isinstance(base.type, TileType):
        return tile_subscript(scope, base, node, span)
    if isinstance(base, TupleVal) and isinstance(index_node, ast.Slice):  # `z.shape[1:]`
        bounds = (index_node.lower, index_node.upper, index_node.step)
        lo, hi, step = (_static_bound(scope, b) for b in bounds)
        if step == 0:
            scope.b.fail(msg.NOT_CONSTANT, scope.span(index_node), what="a slice step (not 0)")
        return TupleVal(base.items[lo:hi:step])
    if not isinstance(base, TupleVal) or isinstance(index_node, ast.Tuple):
        scope.b.fail(msg.UNSUPPORTED_EXPRESSION, span, what="Indexing tiles", verb="is",
                     hint="; use reshape, ct.where or load_tile")
    index = const_of(scope.expr(index_node))
    if not isinstance(index, int) or not -len(base.items) <= index < len(base.items):
        scope.b.fail(msg.NOT_CONSTANT, scope.span(index_node),
                     what=f"a tuple index (an int below {len(base.items)})")
    return base.items[index]


def tile_subscript(scope: Scope, base: Value, node: ast.Subscript, span: Span) -> FValue:
    """`t[0:64, :]`, `t[3]`: static sub-tiles (ops/slicing.py); `None` inserts an axis of 1
    and `...` stands for the axes not named, as in NumPy (`offs[:, None]`)."""
    assert isinstance(base.type, TileType)
    parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    named = sum(not _is_constant(p, None) and not _is_constant(p, Ellipsis) for p in parts)
    items: list[SliceItem] = []
    spans: list[Span] = []
    new_axes: list[int] = []  # where `None` puts an axis of 1 in the result
    kept = 0  # the result's axes so far
    for part in parts:
        if _is_constant(part, None):
            new_axes.append(kept)
            kept += 1
            continue
        full = [(None, None, None)] * (base.type.rank - named) if _is_constant(
            part, Ellipsis) else [_subscript_item(scope, part)]
        items += full
        spans += [scope.span(part)] * len(full)
        kept += sum(isinstance(item, tuple) for item in full)
    value: FValue = base
    if any(item != (None, None, None) for item in items):
        value = slice_tile(scope.b, Arg(base, scope.span(node.value)), items, spans, span)
    expand = FUNCTIONS["expand_dims"]
    for axis in new_axes:
        value = expand.rule(scope.b, bind(scope.b, expand, "t[None]", [
            Arg(value, span), Arg(const_value(span, axis), span)], {}, span))
    return value


def _is_constant(node: ast.expr, value: object) -> bool:
    return isinstance(node, ast.Constant) and node.value is value


def _subscript_item(scope: Scope, part: ast.expr) -> SliceItem:
    if isinstance(part, ast.Slice):
        return (_static_bound(scope, part.lower), _static_bound(scope, part.upper),
                _static_bound(scope, part.step))
    index = _static_bound(scope, part)
    assert index is not None
    return index


def _static_bound(scope: Scope, node: ast.expr | None) -> int | None:
    """A tile index or slice bound: an int known at compile time (None where left out)."""
    if node is None:
        return None
    c = const_of(scope.b.known(scope.arg(node)))
    if isinstance(c, SymInt):
        raise Poisoned  # known at specialization
    if not isinstance(c, int) or isinstance(c, bool):
        scope.b.fail(msg.NOT_CONSTANT, scope.span(node), what="a tile index or slice bound "
                     "(an int)")
    return c


def if_exp(scope: Scope, node: ast.IfExp, span: Span) -> FValue:
    """`a if c else b`: a compile-time `c` picks one side; a scalar bool tile selects
    between both (each side is computed, as in ct.where)."""
    b = scope.b
    test = scope.arg(node.test)
    cond = const_of(b.known(test))
    if isinstance(cond, bool):
        return scope.expr(node.body if cond else node.orelse)
    body, orelse = scope.arg(node.body), scope.arg(node.orelse)
    if isinstance(cond, SymInt):  # a Const not yet specialized: either side may be taken
        x, y = b.known(body), b.known(orelse)
        chosen = symbolic_choice(cond, x, y, span)
        if chosen is not None:
            return chosen
        if isinstance(x, Value) and isinstance(y, Value) and x.type == y.type:
            return x
        raise Poisoned
    c = b.tile_or_const(test, "a conditional expression")
    if not isinstance(c.type, TileType) or c.type.dtype != BOOL or c.type.rank != 0:
        b.fail(msg.CONDITION_TYPE, test.span, stmt="x if c else y", got=describe(c.type))
    spec = FUNCTIONS["where"]
    return spec.rule(b, Call("where", {"cond": test, "x": body, "y": orelse}, span))


# -- calls ------------------------------------------------------------------------------------
def call_args(scope: Scope, node: ast.Call) -> tuple[list[Arg], dict[str, Arg]]:
    args: list[Arg] = []
    kwargs: dict[str, Arg] = {}
    for a in node.args:
        if isinstance(a, ast.Starred):
            scope.b.fail(msg.UNSUPPORTED_EXPRESSION, scope.span(a), what="Starred arguments",
                         verb="are", hint="")
        args.append(scope.arg(a))
    for kw in node.keywords:
        if kw.arg is None:
            scope.b.fail(msg.UNSUPPORTED_EXPRESSION, scope.span(kw), what="Starred arguments",
                         verb="are", hint="")
        kwargs[kw.arg] = scope.arg(kw.value)
    return args, kwargs


def call(scope: Scope, node: ast.Call, span: Span) -> FValue:
    func = node.func
    info = scope.ctx.info
    local = _root(func) in scope.env
    resolved = None if local else info.resolve(func)
    if resolved is not None:
        return call_op(scope, resolved, node, span)
    root = _root(func)
    twin = None if local else _number_twin(info, func)
    if twin is not None:
        return _fold_numbers(scope, func, twin, node, span)
    if isinstance(func, ast.Attribute) and not local and root is not None and \
            root in info.assigned_globals and root not in info.constants:
        # A function of another module or object (np.exp, math.sqrt): host code.
        scope.b.fail(msg.NON_KERNEL_CALL, scope.span(func), name=_text(info, func),
                     hint=_cutile_twin(info, func))
    if isinstance(func, ast.Attribute):
        return call_method(scope, func, node, span)
    if isinstance(func, ast.Name) and not local:
        return _call_function(scope, func, node, span)
    scope.b.fail(msg.NON_KERNEL_CALL, scope.span(func), name=_text(info, func), hint="")


def _call_function(scope: Scope, func: ast.Name, node: ast.Call, span: Span) -> FValue:
    """`f(...)` of a module-level name: a helper is inlined; anything else is host code."""
    info = scope.ctx.info
    target = info.functions.get(func.id)
    if target is not None and not target.is_kernel:
        args, kwargs = call_args(scope, node)
        return inline(scope, target, args, kwargs, span)
    number = float_of_text(node) if func.id == "float" and target is None else None
    if number is not None:
        return const_value(span, number)
    if target is None and func.id not in info.assigned_globals and \
            not hasattr(builtins, func.id):
        scope.b.fail(msg.UNKNOWN_NAME, scope.span(func), name=func.id)
    hint = HOST_HINTS.get(func.id, "; decorate it with @ct.function")
    module = info.foreign.get(func.id)
    twin = _cutile_twin(info, func)  # `from numpy import exp`, as `np.exp`
    if twin:
        hint = twin
    elif module is not None and func.id not in HOST_HINTS:
        hint = (f"; it comes from module '{module}', which cutile cannot find in this project "
                "(it looks in this file's folder, its package and the project root), so it "
                "cannot read a @ct.function there: move the helper into a module of the project")
    if target is not None:
        hint = "; kernels cannot call other kernels (use a @ct.function helper)"
    scope.b.fail(msg.NON_KERNEL_CALL, scope.span(func), name=func.id, hint=hint)


# Python's own functions of numbers that a kernel may call on compile-time numbers (Consts,
# literals, shapes), folded by the cutile op of the same meaning.
_BUILTIN_TWINS = {"min": "minimum", "max": "maximum", "abs": "abs"}


def _number_twin(info: ModuleInfo, func: ast.expr) -> str | None:
    """`math.sqrt` -> "sqrt", `min` -> "minimum" (when not shadowed): the cutile op that computes
    what Python's function does with numbers."""
    if isinstance(func, ast.Name) and func.id in _BUILTIN_TWINS and \
            func.id not in info.assigned_globals and func.id not in info.functions:
        return _BUILTIN_TWINS[func.id]
    module, _, name = (info.qualified(func) or "").rpartition(".")
    return name if module == "math" and name in FUNCTIONS else None


def _fold_numbers(scope: Scope, func: ast.expr, twin: str, node: ast.Call,
                  span: Span) -> FValue:
    """`1 / math.sqrt(D)`, `min(D, 32)`: Python's function of compile-time numbers, folded as
    at the host (min and max of more than two, pairwise); of a tile it is host code (CT104)."""
    args, kwargs = call_args(scope, node)
    pairwise = twin in ("minimum", "maximum")
    numbers = [a for a in args if isinstance(a.value, Value)
               and isinstance(a.value.type, ConstType) and a.value.type.kind in ("int", "float")]
    if kwargs or len(numbers) != len(args) or len(args) < (2 if pairwise else 1):
        info = scope.ctx.info
        advice = (_cutile_twin(info, func) or HOST_HINTS.get(_text(info, func), "")).lstrip("; ")
        scope.b.fail(msg.NUMBERS_ONLY, scope.span(func), name=_text(info, func),
                     advice=advice.replace(" (it folds compile-time numbers too)", ""))
    spec = FUNCTIONS[twin]

    def apply(items: list[Arg]) -> FValue:
        return spec.rule(scope.b, bind(scope.b, spec, f"ct.{twin}", items, {}, span))

    if not pairwise:
        return apply(args)
    result = args[0]
    for other in args[1:]:
        result = Arg(apply([result, other]), span)
    return result.value


def _cutile_twin(info: ModuleInfo, func: ast.expr) -> str:
    """For `math.sqrt(...)`, `np.exp(...)`: the cutile op of that name, which also folds
    compile-time numbers (`ct.sqrt(D)` of a Const)."""
    full = info.qualified(func) or ""
    module, _, name = full.rpartition(".")
    if module in ("math", "numpy") and name in FUNCTIONS:
        return f"; use ct.{name}(...) (it folds compile-time numbers too)"
    return ""


def call_op(scope: Scope, resolved: str, node: ast.Call, span: Span) -> FValue:
    spec = FUNCTIONS.get(resolved)
    if spec is None:
        if resolved in ("kernel", "function"):
            scope.b.fail(msg.NON_KERNEL_CALL, span, name=f"ct.{resolved}", hint="")
        _unknown_op(scope, resolved, scope.span(node.func))
    args, kwargs = call_args(scope, node)
    bound = bind(scope.b, spec, f"ct.{resolved}", args, kwargs, span)
    return spec.rule(scope.b, bound)


def call_method(scope: Scope, func: ast.Attribute, node: ast.Call, span: Span) -> FValue:
    b = scope.b
    receiver = scope.arg(func.value)
    base = b.known(receiver)
    method = func.attr
    kind = "tuple" if isinstance(base, TupleVal) else _receiver(base.type)
    if kind == "constant" and method == "astype" and isinstance(base, Value) and \
            isinstance(base.type, ConstType) and base.type.kind in ("int", "float", "bool"):
        # `y.shape[1].astype(f32)`: the number as a scalar tile of its own dtype, converted
        receiver = Arg(b.materialize(base, _number_dtype(base), receiver.span), receiver.span)
        kind = "tile"
    spec = METHODS.get((kind, method))
    if spec is None and kind == "acc" and ("tensor", method) in METHODS and method != "store":
        acc_read(b, receiver, method, span)
    if spec is None:
        _no_method(scope, func, kind, span)
    args, kwargs = call_args(scope, node)
    bound = bind(b, spec, f"{_text(scope.ctx.info, func.value)}.{method}",
                 [receiver, *args], kwargs, span)
    return spec.rule(b, bound)


def _number_dtype(v: Value) -> DType:
    """The dtype a compile-time number has on its own (a Const float: f32)."""
    assert isinstance(v.type, ConstType)
    return {"float": F32, "bool": BOOL}.get(v.type.kind, I32)


def _no_method(scope: Scope, func: ast.Attribute, kind: str, span: Span) -> NoReturn:
    method = func.attr
    available = sorted(n for (k, n) in METHODS if k == kind)
    hint = f" (it has: {', '.join(available)})" if available else ""
    if method == "tiles" and kind == "mut":
        scope.b.fail(msg.UNSUPPORTED_LOOP, span, what="z.tiles() outside a for loop")
    scope.b.fail(msg.UNKNOWN_METHOD, scope.ctx.info.attr_span(func),
                 kind=_upper(_kind_from_receiver(kind)), name=method, hint=hint)


def math_constant(info: ModuleInfo, node: ast.expr) -> float | None:
    """The value of `math.inf` (however `math` or `inf` was imported), or None."""
    full = info.qualified(node)
    return None if full is None else MATH_CONSTANTS.get(full)


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
