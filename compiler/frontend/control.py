"""Control flow: if/elif/else, for over range() or z.tiles(), while, break and continue, and
a kernel's `return` from anywhere in its body.

Variables that flow around a loop or out of an `if` become region arguments and results, and
must keep one tile type on every path (CT212). Names bound on only some paths become Unbound.

A kernel's `return` ends the tile block. Outside loops it is an IR `return` in the `if` region
it sits in (Tile IR allows `return` in `if` regions, not in loops: docs/language.md). A loop
whose body may return carries one more value, a bool flag (`RETURN_FLAG`): the `return` breaks
out of the loop with the flag set, and right after the loop `if flag: return` (again, one loop
further out) guards the statements that follow, which become that `if`'s else branch.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeGuard

from ...diagnostics import messages as msg
from ...diagnostics.diagnostic import Diagnostic, Note, Span
from ...reader.scan import assigned_names, has_jumps
from ...reader.source import target_names
from ..dtypes import BOOL, I32
from ..intervals import I32_MAX, steps_within_i32
from ..ir import Block, Op, Value
from ..ops.memory import tensor
from ..types import (
    SCALAR_I32,
    ConstType,
    PartitionType,
    SlabType,
    SymInt,
    TensorType,
    TileType,
    Type,
    describe,
)
from .builder import Arg, natural_dtype
from .context import LoopCtx, Scope
from .exprs import call_args
from .stmts import assign
from .unrolled import unrolled
from .values import (
    UNKNOWN,
    Binding,
    FValue,
    Poisoned,
    Reject,
    SlabParent,
    SlabVal,
    TupleVal,
    Unbound,
    Unknown,
    const_of,
    const_value,
    symbolic_choice,
)

# The carried flag of a loop a kernel may return from: a keyword, so no variable has its name.
RETURN_FLAG = "return"
FLAG = TileType(BOOL, ())

# lb, ub, step, and a tiles loop's Mut parameters (one, or several walked together by zip)
Header = tuple[Value, Value, Value, tuple[str, ...] | None]


@dataclass
class Branch:
    env: dict[str, Binding]
    block: Block
    terminated: bool
    returned: bool


def run_body(scope: Scope, stmts: Sequence[ast.stmt]) -> None:
    """The statements of a block, up to the first that ends it; a loop over a tuple is
    replaced by its unrolled copies (unrolled.py), followed by the rest."""
    for i, stmt in enumerate(stmts):
        if scope.terminated or scope.returned:
            return  # dead code after break/continue/return never runs
        if isinstance(stmt, ast.For) and not (_is_range(stmt.iter, scope) or
                                              _is_tiles(stmt.iter) or
                                              zipped_tiles(stmt.iter, scope)):
            _reject_loop_else(scope, stmt)
            run_body(scope, [*unrolled(scope, stmt), *stmts[i + 1:]])
            return
        scope.statement(stmt)
        flag, scope.exit_flag = scope.exit_flag, None
        if flag is not None:
            _after_returning_loop(scope, flag, stmts[i + 1:], scope.span(stmt))
            return


# -- return -----------------------------------------------------------------------------------
def return_(scope: Scope, node: ast.Return) -> None:
    """A kernel's `return` ends its block; a helper's gives the helper's value."""
    span = scope.span(node)
    if scope.is_kernel:
        if node.value is not None and not (isinstance(node.value, ast.Constant) and
                                           node.value.value is None):
            scope.b.fail(msg.KERNEL_RETURNS_VALUE, span)
        exit_kernel(scope, span)
        return
    if scope.loops:  # a helper's value cannot leave a run-time loop (it is inlined)
        scope.b.fail(msg.UNSUPPORTED_STATEMENT, span, what="return inside a loop of a helper",
                     hint="; helpers are inlined, so carry the value in a variable and return "
                          "after the loop (a loop over a tuple, which is unrolled, may return)")
    value = scope.expr(node.value) if node.value is not None else const_value(
        span, None, "none")
    scope.env["__return__"] = value
    scope.returned = True


def exit_kernel(scope: Scope, span: Span) -> None:
    """A kernel's `return`: leave the innermost loop with its flag set, or end the block."""
    b = scope.b
    if scope.loops:
        ctx = scope.loops[-1]
        assert RETURN_FLAG in ctx.carried  # loop() saw this return in the loop's body
        true = b.emit1("constant", [], FLAG, span, value=True)
        values = [true if name == RETURN_FLAG else arg
                  for name, arg in zip(ctx.carried, ctx.args, strict=True)]
        # the other carried values are dead once the flag is set: the values this
        # iteration started with have the right types whatever the body rebound
        b.emit("break", values, [], span)
    elif len(b.blocks) > 1:  # inside an if's region (the body's end needs no op)
        b.emit("return", [], [], span)
    scope.returned = True


def _after_returning_loop(scope: Scope, flag: Value, rest: Sequence[ast.stmt],
                          span: Span) -> None:
    """`if flag: return` with the statements after the loop as its else branch."""
    if not rest and not scope.loops and len(scope.b.blocks) == 1:
        return  # the kernel ends here either way
    then = _branch(scope, lambda: exit_kernel(scope, span))
    merge(scope, then, branch(scope, rest), flag, span)


# -- if ---------------------------------------------------------------------------------------
def branch(scope: Scope, stmts: Sequence[ast.stmt]) -> Branch:
    return _branch(scope, lambda: scope.body(stmts))


def _branch(scope: Scope, build: Callable[[], None]) -> Branch:
    saved = (scope.env, scope.terminated, scope.returned)
    scope.env, scope.terminated, scope.returned = dict(saved[0]), False, False
    scope.b.blocks.append(Block())
    try:
        build()
    finally:
        block = scope.b.blocks.pop()
        result = Branch(scope.env, block, scope.terminated, scope.returned)
        scope.env, scope.terminated, scope.returned = saved
    return result


def if_(scope: Scope, node: ast.If) -> None:
    span = scope.span(node.test)
    cond = _checked_condition(scope, node.test, "if")
    static = const_of(cond) if not isinstance(cond, Unknown) else None
    if isinstance(static, bool):
        scope.body(node.body if static else node.orelse)
        return
    then, other = branch(scope, node.body), branch(scope, node.orelse)
    merge(scope, then, other, cond, span)


def _checked_condition(scope: Scope, test: ast.expr, stmt: str) -> FValue:
    """`condition`, UNKNOWN (reported) when it is rejected."""
    try:
        return condition(scope, test, stmt)
    except Reject as err:
        scope.record(err)
        return UNKNOWN
    except Poisoned:
        return UNKNOWN


def condition(scope: Scope, test: ast.expr, stmt: str) -> FValue:
    value = scope.expr(test)
    if isinstance(value, Unknown):
        return value
    c = const_of(value)
    if c is not None:
        return value  # decided at compile time (or unknown until specialized)
    assert isinstance(value, Value)
    if not (isinstance(value.type, TileType) and value.type.rank == 0 and
            value.type.dtype == BOOL):
        got = "a tensor" if isinstance(value.type, TensorType) else describe(value.type)
        scope.b.fail(msg.CONDITION_TYPE, scope.span(test), stmt=stmt, got=got)
    return value


def merge(scope: Scope, then: Branch, other: Branch, cond: FValue, span: Span) -> None:
    """Joins two branches. A tile condition is decided at run time; a Const one only at
    specialization (types may differ between its branches); an unknown one (a rejected
    condition) emits nothing and reports nothing more."""
    live = _live_branches(scope, then, other, cond, span)
    results: list[tuple[str, list[Value]]] = []
    for name in _changed(scope.env, [br.env for br in live]):
        joined = _join(scope, name, [br.env.get(name) for br in live], cond)
        if isinstance(joined, list):
            results.append((name, joined))
        else:
            scope.env[name] = joined
    if not isinstance(cond, Value):
        for name, vals in results:  # errors were reported: keep the type, emit nothing
            scope.env[name] = Value(vals[0].type, span, name)
        return
    for i, br in enumerate(live):
        br.block.ops.append(Op("yield", [vals[i] for _, vals in results], [], span))
    types = [vals[0].type for _, vals in results]
    op = scope.b.emit("if", [cond], types, span, regions=[then.block, other.block])
    for (name, _), result in zip(results, op.results, strict=True):
        result.name = name
        scope.env[name] = result


def _live_branches(scope: Scope, then: Branch, other: Branch, cond: FValue,
                   span: Span) -> list[Branch]:
    """The branches that go on after the `if` (setting whether the block ends here)."""
    dynamic = isinstance(cond, Value) and not cond.is_const
    if scope.is_kernel:  # a kernel's return ends the block: that branch joins nothing
        live = [br for br in (then, other) if not (br.terminated or br.returned)]
        scope.returned = not live and (then.returned or other.returned)
        scope.terminated = not live and not scope.returned
    else:  # a helper's return gives its value: the merge joins it (`__return__`)
        live = [br for br in (then, other) if not br.terminated]
        scope.terminated = not live
        if dynamic and len(live) == 2 and then.returned != other.returned and not scope.loops:
            scope.record(Reject(_early_return(span)))  # (in a loop: CT101 at the return)
        scope.returned = bool(live) and all(br.returned for br in live)
    return live


def _join(scope: Scope, name: str, values: list[Binding | None],
          cond: FValue) -> Binding | list[Value]:
    """One binding for a name after an if, or the per-branch tiles to pass out as results."""
    symbolic = isinstance(cond, Value) and cond.is_const
    if any(v is None for v in values):
        return UNKNOWN if symbolic else Unbound("in some branches of an if")
    bad = [v for v in values if isinstance(v, (Unknown, Unbound))]
    if bad:
        return bad[0]
    if all(isinstance(v, Value) and v.is_const for v in values) and len(
            {repr(v.const) for v in values if isinstance(v, Value)}) == 1:
        return values[0]  # type: ignore[return-value]
    if symbolic and len(values) == 2:  # numbers known once the Consts are: `BN = 64 if ...`
        assert isinstance(cond, Value) and isinstance(cond.const, SymInt)
        x, y = values
        assert isinstance(x, (Value, TupleVal)) and isinstance(y, (Value, TupleVal))
        chosen = symbolic_choice(cond.const, x, y, cond.span)
        if chosen is not None:
            return chosen
    if symbolic:
        return _join_symbolic(scope, values)
    return _join_tiles(scope, name, values, cond)


def _join_symbolic(scope: Scope, values: list[Binding | None]) -> Binding | list[Value]:
    """After an if on a Const not known yet (edit time): where a branch binds a tile, the one
    tile type the branches' tiles and numbers take, as a run-time if would (`lo = 0` / `lo = h`
    is an i32 scalar, so a loop over `range(lo, n)` is still followed); else UNKNOWN, since
    only one branch survives specialization and either type may be the one used (numbers
    alone stay numbers: a tile there could be reported where a number is needed)."""
    if not any(isinstance(v, Value) and isinstance(v.type, TileType) for v in values):
        return UNKNOWN
    try:
        tiles = _as_tiles(scope, values)
    except Reject:
        return UNKNOWN
    if tiles is not None and len({t.type for t in tiles}) == 1:
        return tiles
    return UNKNOWN


def _join_tiles(scope: Scope, name: str, values: list[Binding | None],
                cond: FValue) -> Binding | list[Value]:
    """A name bound to tiles (or numbers) on every live path: one tile type, or CT212."""
    try:
        tiles = _as_tiles(scope, values)
    except Reject as err:
        scope.record(err)
        return UNKNOWN
    if tiles is None:
        only = values[0]
        if len(values) == 1 and only is not None and _static(only):
            return only  # the only path on: a compile-time object needs no result
        # a partition, slab or tuple cannot be an if's result: CT111 where it is used
        return Unbound("inside an if (only tiles and numbers flow out of a branch)")
    if len({t.type for t in tiles}) > 1:
        if isinstance(cond, Value) and not cond.is_const:
            first = tiles[0]
            other = next(t for t in tiles if t.type != first.type)
            scope.record(Reject(_type_changes_branch(name, first, other)))
        return UNKNOWN
    return tiles


def _as_tiles(scope: Scope, values: list[Binding | None]) -> list[Value] | None:
    """Branch values as tiles: numbers a branch assigns take the dtype of the other branch's
    tile (or their natural dtype), as they would in arithmetic. None if some value is
    neither a tile nor a number."""
    tiles = [v for v in values if isinstance(v, Value) and isinstance(v.type, TileType)]
    out = []
    for v in values:
        if not isinstance(v, Value):
            return None
        if isinstance(v.type, TileType):
            out.append(v)
            continue
        if not (isinstance(v.type, ConstType) and v.type.kind in ("int", "float", "bool")):
            return None
        numbers = [w.const for w in values if isinstance(w, Value) and w.is_const]
        dtype = tiles[0].type.dtype if tiles and isinstance(tiles[0].type, TileType) else \
            natural_dtype(next((c for c in numbers if isinstance(c, float)), v.const))
        out.append(scope.b.materialize(v, dtype, v.span))
    return out


# -- loops ------------------------------------------------------------------------------------
def for_statement(scope: Scope, node: ast.For) -> None:
    _reject_loop_else(scope, node)
    try:
        header: Header | None = loop_header(scope, node)
    except Reject as err:
        scope.record(err)
        header = None
    except Poisoned:
        header = None
    loop(scope, node.body, header, scope.span(node.target), node.target)


def while_statement(scope: Scope, node: ast.While) -> None:
    _reject_loop_else(scope, node)
    loop(scope, node.body, None, scope.span(node.test), None, test=node.test)


def _reject_loop_else(scope: Scope, node: ast.For | ast.While) -> None:
    if node.orelse:
        scope.record(Reject(msg.UNSUPPORTED_STATEMENT.at(
            scope.span(node.orelse[0]), what="else on a loop",
            hint="; use a flag or restructure the loop")))


def _is_range(it: ast.expr, scope: Scope) -> TypeGuard[ast.Call]:
    return isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and \
        it.func.id == "range" and "range" not in scope.env


def _is_tiles(it: ast.expr) -> TypeGuard[ast.Call]:
    """`z.tiles(...)` (with arguments: CT113 from loop_header); any other loop that is no
    range() is over a tuple (unrolled.py)."""
    return isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and \
        it.func.attr == "tiles"


def zipped_tiles(it: ast.expr, scope: Scope) -> list[ast.Call]:
    """The `z.tiles()` calls of `zip(a.tiles(), b.tiles(), ...)` (else none): Mut parameters
    whose slabs a persistent kernel walks together, the same tile of each."""
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "zip"
            and "zip" not in scope.env and "zip" not in scope.ctx.info.functions and
            len(it.args) >= 2 and all(kw.arg == "strict" for kw in it.keywords)):
        return []
    calls = [a for a in it.args if _is_tiles(a) and not a.args]
    return calls if len(calls) == len(it.args) else []


def loop_header(scope: Scope, node: ast.For) -> Header:
    it = node.iter
    if _is_tiles(it) and not it.args:
        return tiles_header(scope, it)
    zipped = zipped_tiles(it, scope)
    if zipped:
        return _zipped_header(scope, zipped, scope.span(it))
    b = scope.b
    if not _is_range(it, scope):
        b.fail(msg.UNSUPPORTED_LOOP, scope.span(it), what=f"'{scope.ctx.info.code(it)}'")
    args, kwargs = call_args(scope, it)
    if kwargs or not 1 <= len(args) <= 3:
        b.fail(msg.TOO_MANY_ARGS, scope.span(it),
               name="range", most=3, s="s", given=len(args) + len(kwargs))
    return _range_header(scope, args, scope.span(it))


def _range_header(scope: Scope, args: list[Arg], span: Span) -> Header:
    """`range(...)`'s bounds and step as i32 scalars (a run-time step checked: range_check)."""
    b = scope.b
    if len(args) == 1:
        args = [Arg(const_value(args[0].span, 0), args[0].span), args[0]]
    step_arg = args[2] if len(args) == 3 else Arg(const_value(span, 1), span)
    step_const = const_of(b.known(step_arg))
    if isinstance(step_const, int) and step_const <= 0:
        b.fail(msg.BAD_OPERAND, step_arg.span, op="range()", what="a step below 1 in kernels")
    lb, ub, step = (_range_bound(scope, a) for a in (args[0], args[1], step_arg))
    if _known_int(scope, step) is None:
        # a step that arrives at run time: below 1 the launch fails with CT411 (the GPU
        # then runs the loop 0 times: ub becomes lb) instead of looping forever
        ub = b.emit1("range_check", [lb, ub, step], SCALAR_I32, span)
    return lb, ub, step, None


def _range_bound(scope: Scope, arg: Arg) -> Value:
    """A range() argument as an i32 scalar: the loop variable is i32, so wider integers
    must be converted explicitly (a silent truncation could change the trip count)."""
    b = scope.b
    v = b.scalar_int(arg, "a range() bound")
    t = v.type
    assert isinstance(t, TileType)
    if t.dtype == I32:
        return v
    if t.dtype.bits >= 32:
        b.fail(msg.BAD_OPERAND, arg.span, op="range()",
               what=f"a bound of dtype {t.dtype} (the loop variable is i32: "
                    f"convert it with .astype(i32) where it fits)")
    return b.emit1("astype", [v], SCALAR_I32, arg.span, dtype=I32)


def _known_int(scope: Scope, v: Value) -> int | None:
    """The value of an integer scalar that is a compile-time constant, else None."""
    r = scope.b.ranges.get(v)
    return r.lo if r is not None and r.anchor is None and r.lo == r.hi else None


def _steps_safely(scope: Scope, ub: Value, step: Value) -> bool:
    """Whether `i + step` stays within i32 for every i below `ub` (else each iteration
    checks it before stepping: Python's range has no last-plus-step)."""
    s, u = _known_int(scope, step), _known_int(scope, ub)
    return s is not None and steps_within_i32(s, u)


def tiles_header(scope: Scope, it: ast.Call) -> Header:
    """Linear tile numbers from this block's linear id, stepping by the block count
    (`tiles_start_step`, see tiling.py): each tile is visited by exactly one block."""
    assert isinstance(it.func, ast.Attribute)
    b = scope.b
    z = tensor(b, scope.arg(it.func.value), "tiles", mutable=True)
    span = scope.span(it)
    lb, step = b.emit("tiles_start_step", [z], [SCALAR_I32] * 2, span).results
    ub = b.emit1("tile_count", [z], SCALAR_I32, span)
    return lb, ub, step, (z.name or "z",)


def _zipped_header(scope: Scope, calls: list[ast.Call], span: Span) -> Header:
    """`zip(a.tiles(), b.tiles())`: the first one's walk; the launch gives every Mut
    parameter the same tile grid (CT402), so its tile numbers name one slab of each."""
    lb, ub, step, first = tiles_header(scope, calls[0])
    assert first is not None
    owners = list(first)
    for call in calls[1:]:
        assert isinstance(call.func, ast.Attribute)
        z = tensor(scope.b, scope.arg(call.func.value), "tiles", mutable=True)
        name = z.name or "z"
        if name in owners:
            scope.b.fail(msg.BAD_OPERAND, span, op="zip()",
                         what=f"the slabs of '{name}' twice (one walk per Mut parameter)")
        owners.append(name)
    return lb, ub, step, tuple(owners)


def loop(scope: Scope, body: Sequence[ast.stmt], header: Header | None, span: Span,
         target: ast.expr | None, test: ast.expr | None = None) -> None:
    names = assigned_names(body)
    if target is not None:
        names = [n for n in names if n not in target_names(target)]
    carried, inits = _carried(scope, names, span)
    returns = scope.is_kernel and _returns_within(body)
    if returns:  # Tile IR's `for` cannot be left early: such a loop is a `loop`
        carried.append(RETURN_FLAG)
        inits.append(scope.b.emit1("constant", [], FLAG, span, value=False))
    for_form = header is not None and test is None and not has_jumps(body) and not returns
    ctx = _loop_ctx(scope, header, carried, inits, span, for_form)
    block = Block()
    block.args = ([ctx.iv] if ctx.iv is not None else []) + ctx.args
    _run_loop(scope, block, ctx, body, header, target, test, for_form)
    targets = target_names(target) if target is not None else []
    for name in names + targets:
        if name not in carried:
            scope.env[name] = Unbound("inside a loop") if name not in scope.env else UNKNOWN
    if header is None and test is None:
        return
    _emit_loop(scope, header, for_form, inits, carried, block, span)


def _loop_ctx(scope: Scope, header: Header | None, carried: list[str], inits: list[Value],
              span: Span, for_form: bool) -> LoopCtx:
    """The loop's induction variable, its carried values as the body sees them, and how
    each `continue` steps it."""
    iv = Value(SCALAR_I32, span) if header is not None else None
    args = [Value(v.type, v.span, name) for name, v in zip(carried, inits, strict=True)]
    return LoopCtx(carried, [v.type for v in inits], span, iv,
                   header[2] if header is not None and not for_form else None, args,
                   header is None or header[3] is not None or
                   _steps_safely(scope, header[1], header[2]))


def _run_loop(scope: Scope, block: Block, ctx: LoopCtx, body: Sequence[ast.stmt],
              header: Header | None, target: ast.expr | None, test: ast.expr | None,
              for_form: bool) -> None:
    """The body, in the loop's block, with the carried names bound to its arguments."""
    saved = (scope.env, scope.terminated, scope.returned)
    scope.env = dict(scope.env)
    scope.env.update(zip(ctx.carried, ctx.args, strict=True))
    scope.loops.append(ctx)
    scope.b.blocks.append(block)
    if header is not None and header[3] is None and ctx.iv is not None:
        scope.b.ranges.loop_variable(ctx.iv, block, header[:3], for_form, ctx.span)
    try:
        _loop_body(scope, body, header, target, test, ctx, for_form)
    finally:
        scope.b.blocks.pop()
        scope.loops.pop()
        scope.env, scope.terminated, scope.returned = saved


def _loop_body(scope: Scope, body: Sequence[ast.stmt], header: Header | None,
               target: ast.expr | None, test: ast.expr | None, ctx: LoopCtx,
               for_form: bool) -> None:
    iv = ctx.iv
    if header is None and target is not None:
        for name in target_names(target):
            scope.env[name] = UNKNOWN  # the header was rejected: no follow-on errors
    if header is not None and iv is not None and target is not None:
        _bind_target(scope, target, iv, header[3])
        if not for_form:
            _exit_unless(scope, scope.b.emit1("lt", [iv, header[1]], FLAG, ctx.span), ctx)
    if test is not None:
        cond = _checked_condition(scope, test, "while")
        if isinstance(cond, Value) and not cond.is_const:
            _exit_unless(scope, cond, ctx)
    scope.body(body)
    if not (scope.terminated or scope.returned):
        _continue(scope, ctx, span_end(scope, body, ctx.span))


def _bind_target(scope: Scope, target: ast.expr, iv: Value,
                 owners: tuple[str, ...] | None) -> None:
    if owners is not None:
        _bind_tiles_target(scope, target, iv, owners)
        return
    if not isinstance(target, ast.Name):
        scope.record(Reject(_bad_target(scope, target)))
        for name in target_names(target):
            scope.env[name] = UNKNOWN
        return
    if target.id in scope.const_params:
        scope.record(Reject(msg.CONST_REASSIGNED.at(scope.span(target), name=target.id)))
    iv.name = target.id
    scope.env[target.id] = iv


def _bind_tiles_target(scope: Scope, target: ast.expr, iv: Value,
                       owners: tuple[str, ...]) -> None:
    """`zt` of `for zt in z.tiles()` (the slab at this iteration's tile; z names none), or
    `at, bt` of `for at, bt in zip(a.tiles(), b.tiles())`: the slab of each at that tile."""
    names = _tiles_targets(target, len(owners))
    if names is None:
        what = f"'{scope.ctx.info.code(target)}'"
        message = msg.TILES_LOOP_TARGET.at(scope.span(target), name=owners[0], what=what) \
            if len(owners) == 1 else msg.ZIPPED_TILES_TARGET.at(
                scope.span(target), count=len(owners), what=what)
        scope.record(Reject(message))
        for name in target_names(target):
            scope.env[name] = UNKNOWN
        return
    first = scope.env.get(owners[0])
    assert isinstance(first, Value) and isinstance(first.type, TensorType)
    coords = scope.b.emit("tile_coords", [first, iv], [SCALAR_I32] * first.type.rank, iv.span)
    for owner, (name, node) in zip(owners, names, strict=True):
        z = scope.env.get(owner)
        assert isinstance(z, Value) and isinstance(z.type, TensorType)
        slab = SlabVal(SlabType(z.type, owner), scope.span(node), name, base=z,
                       index=tuple(coords.results))
        try:
            assign(scope, node, slab)
        except Reject as err:
            scope.record(err)
            scope.env[name] = UNKNOWN
        scope.env[owner] = SlabParent("inside its tiles loop", name)


def _tiles_targets(target: ast.expr, count: int) -> list[tuple[str, ast.expr]] | None:
    """The names a tiles loop binds: one per walked Mut parameter (None: another form)."""
    if count == 1:
        return [(target.id, target)] if isinstance(target, ast.Name) else None
    if not isinstance(target, ast.Tuple) or len(target.elts) != count or \
            not all(isinstance(e, ast.Name) for e in target.elts):
        return None
    return [(e.id, e) for e in target.elts if isinstance(e, ast.Name)]


def _exit_unless(scope: Scope, cond: Value, ctx: LoopCtx, values: list[Value] | None = None
                 ) -> None:
    stay = Block(ops=[Op("yield", [], [], ctx.span)])
    leave = Block(ops=[Op("break", _current(scope, ctx) if values is None else values, [],
                          ctx.span)])
    scope.b.emit("if", [cond], [], ctx.span, regions=[stay, leave])


def _current(scope: Scope, ctx: LoopCtx) -> list[Value]:
    out = []
    for name, t in zip(ctx.carried, ctx.types, strict=True):
        v = scope.env.get(name)
        out.append(v if isinstance(v, Value) else Value(t, ctx.span, name))
    return out


def _check_types(scope: Scope, ctx: LoopCtx) -> list[Value]:
    """The carried values at a `continue`/`break`: each must keep its type (CT212)."""
    values = _current(scope, ctx)
    for name, v, t in zip(ctx.carried, values, ctx.types, strict=True):
        if v.is_const and isinstance(t, TileType):
            try:
                v = scope.b.materialize(v, t.dtype, v.span)
            except Reject as err:
                scope.record(err)
                continue
            values[ctx.carried.index(name)] = v
        if v.type != t:
            scope.record(Reject(_type_changes_loop(name, t, v, ctx.span)))
    return values


def _continue(scope: Scope, ctx: LoopCtx, span: Span) -> None:
    b = scope.b
    values = _check_types(scope, ctx)
    if ctx.iv is not None and ctx.step is not None:
        if not ctx.safe:  # range() ends after a last value whose next would wrap
            top = b.emit1("constant", [], SCALAR_I32, span, value=I32_MAX)
            room = b.emit1("sub", [top, ctx.step], SCALAR_I32, span)
            _exit_unless(scope, b.emit1("le", [ctx.iv, room], FLAG, span), ctx, values)
        nxt = b.emit1("add", [ctx.iv, ctx.step], SCALAR_I32, span)
        values = [nxt, *values]
    b.emit("continue", values, [], span)


def jump(scope: Scope, node: ast.Break | ast.Continue) -> None:
    span = scope.span(node)
    if not scope.loops:
        scope.b.fail(msg.UNSUPPORTED_STATEMENT, span, what=type(node).__name__.lower(),
                     hint=" outside a loop")
    ctx = scope.loops[-1]
    if isinstance(node, ast.Continue):
        _continue(scope, ctx, span)
    else:
        scope.b.emit("break", _check_types(scope, ctx), [], span)
    scope.terminated = True


def _carried(scope: Scope, names: list[str], span: Span) -> tuple[list[str], list[Value]]:
    """The names assigned in a loop that flow around it (tiles and numbers), with their
    values before it (a number becomes a tile of its natural dtype)."""
    carried, inits = [], []
    for name in names:
        v = scope.env.get(name)
        if not isinstance(v, Value) or not isinstance(v.type, (TileType, ConstType)):
            continue
        if isinstance(v.type, ConstType):
            if v.type.kind not in ("int", "float", "bool") or not isinstance(
                    v.const, (int, float)):
                continue
            try:
                v = scope.b.materialize(v, natural_dtype(v.const), v.span)
            except Reject as err:
                scope.record(err)
                continue
        carried.append(name)
        inits.append(v)
    return carried, inits


def _emit_loop(scope: Scope, header: Header | None, for_form: bool, inits: list[Value],
               carried: list[str], block: Block, span: Span) -> None:
    types = [v.type for v in inits]
    if header is not None and for_form:
        lb, ub, step, _ = header
        op = scope.b.emit("for", [lb, ub, step, *inits], types, span, regions=[block])
    else:
        start = [header[0]] if header is not None else []
        op = scope.b.emit("loop", [*start, *inits], types, span, regions=[block])
    for name, result in zip(carried, op.results, strict=True):
        result.name = name
        if name == RETURN_FLAG:
            scope.exit_flag = result  # run_body() guards what follows the loop with it
        else:
            scope.env[name] = result


def span_end(scope: Scope, body: Sequence[ast.stmt], fallback: Span) -> Span:
    return scope.span(body[-1]) if body else fallback


COMPOUND = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Try, ast.TryStar, ast.With,
            ast.AsyncWith, ast.AsyncFor, ast.Match)


def _static(v: Binding | None) -> bool:
    """A value with no run-time part (a tensor, a partition, a constant, a tuple of them)."""
    if isinstance(v, TupleVal):
        return all(_static(item) for item in v.items)
    return isinstance(v, Value) and not isinstance(v, SlabVal) and (
        v.is_const or isinstance(v.type, (TensorType, PartitionType)))


def _returns_within(body: Sequence[ast.stmt]) -> bool:
    """Whether a `return` occurs in these statements, inner loops included (its flag passes
    through every loop between the return and the kernel's body)."""
    for stmt in body:
        if isinstance(stmt, ast.Return):
            return True
        if isinstance(stmt, COMPOUND):
            continue  # rejected, or a nested scope: not this kernel's return
        if isinstance(stmt, (ast.If, ast.For, ast.While)) and (
                _returns_within(stmt.body) or _returns_within(stmt.orelse)):
            return True
    return False


def _changed(before: dict[str, Binding], envs: list[dict[str, Binding]]) -> list[str]:
    names: list[str] = []
    for env in envs:
        for name, value in env.items():
            if before.get(name) is not value and name not in names:
                names.append(name)
    return names


def _early_return(span: Span) -> Diagnostic:
    return msg.UNSUPPORTED_STATEMENT.at(span, what="return in only one branch",
                                        hint="; helpers are inlined, so give the if an else "
        "that returns too, or return after it")


def _bad_target(scope: Scope, target: ast.expr) -> Diagnostic:
    return msg.UNSUPPORTED_LOOP.at(scope.span(target), what="tuple targets of range()")


def _type_changes_branch(name: str, a: Value, b: Value) -> Diagnostic:
    return msg.TYPE_CHANGES_BRANCH.at(b.span, (Note(f"'{name}' is {a.type} here", a.span),),
                                      name=name, a=a.type, b=b.type)


def _type_changes_loop(name: str, before: Type, v: Value, loop: Span) -> Diagnostic:
    return msg.TYPE_CHANGES_LOOP.at(v.span, (Note("the loop starts here", loop),), name=name,
                                    before=before, after=v.type)
