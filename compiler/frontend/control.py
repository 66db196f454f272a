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
from dataclasses import dataclass, field

from ...diagnostics import messages as msg
from ...diagnostics.diagnostic import Diagnostic, Note, Span
from ...reader.scan import assigned_names, has_jumps
from ...reader.source import target_names
from ..dtypes import BOOL, I32
from ..ir import Block, Op, Value
from ..types import ConstType, PartitionType, SlabType, TensorType, TileType, Type, describe
from .builder import Arg, natural_dtype
from .stmts import Statements
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
)

SCALAR_I32 = TileType(I32, ())
I32_MAX = 2**31 - 1


# The carried flag of a loop a kernel may return from: a keyword, so no variable has its name.
RETURN_FLAG = "return"
FLAG = TileType(BOOL, ())


@dataclass
class LoopCtx:
    carried: list[str]
    types: list[Type]
    span: Span
    iv: Value | None = None  # for-loops lowered as `loop`: continue passes iv + step
    step: Value | None = None
    args: list[Value] = field(default_factory=list)  # the carried values an iteration starts with
    safe: bool = True  # `iv + step` cannot pass 2**31 - 1 (else `continue` checks it first)


@dataclass
class Branch:
    env: dict[str, Binding]
    block: Block
    terminated: bool
    returned: bool


class ControlFlow(Statements):
    loops: list[LoopCtx]
    exit_flag: Value | None = None  # set by a loop the kernel may have returned from

    def body(self, stmts: Sequence[ast.stmt]) -> None:
        for i, stmt in enumerate(stmts):
            if self.terminated or self.returned:
                return  # dead code after break/continue/return never runs
            self.statement(stmt)
            flag, self.exit_flag = self.exit_flag, None
            if flag is not None:
                self._after_returning_loop(flag, stmts[i + 1:], self.span(stmt))
                return

    def exit_kernel(self, span: Span) -> None:
        """A kernel's `return`: leave the innermost loop with its flag set, or end the block."""
        if self.loops:
            ctx = self.loops[-1]
            assert RETURN_FLAG in ctx.carried  # loop() saw this return in the loop's body
            true = self.b.emit1("constant", [], FLAG, span, value=True)
            values = [true if name == RETURN_FLAG else arg
                      for name, arg in zip(ctx.carried, ctx.args, strict=True)]
            # the other carried values are dead once the flag is set: the values this
            # iteration started with have the right types whatever the body rebound
            self.b.emit("break", values, [], span)
        elif len(self.b.blocks) > 1:  # inside an if's region (the body's end needs no op)
            self.b.emit("return", [], [], span)
        self.returned = True

    def _after_returning_loop(self, flag: Value, rest: Sequence[ast.stmt], span: Span) -> None:
        """`if flag: return` with the statements after the loop as its else branch."""
        if not rest and not self.loops and len(self.b.blocks) == 1:
            return  # the kernel ends here either way
        then = self._branch(lambda: self.exit_kernel(span))
        self.merge(then, self.branch(rest), flag, span)

    def statement(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, ast.If):
            self.if_(stmt)
        elif isinstance(stmt, (ast.For, ast.While)):
            if stmt.orelse:
                self.record(Reject(msg.UNSUPPORTED_STATEMENT.at(
                    self.span(stmt.orelse[0]), what="else on a loop",
                    hint="; use a flag or restructure the loop")))
            self.for_(stmt) if isinstance(stmt, ast.For) else self.while_(stmt)
        elif isinstance(stmt, COMPOUND):
            self.compound_rejected(stmt)
        else:
            self.simple(stmt)

    def branch(self, stmts: Sequence[ast.stmt]) -> Branch:
        return self._branch(lambda: self.body(stmts))

    def _branch(self, build: Callable[[], None]) -> Branch:
        saved = (self.env, self.terminated, self.returned)
        self.env, self.terminated, self.returned = dict(saved[0]), False, False
        self.b.blocks.append(Block())
        try:
            build()
        finally:
            block = self.b.blocks.pop()
            result = Branch(self.env, block, self.terminated, self.returned)
            self.env, self.terminated, self.returned = saved
        return result

    # -- if -------------------------------------------------------------------------------------
    def if_(self, node: ast.If) -> None:
        span = self.span(node.test)
        cond: FValue
        try:
            cond = self.condition(node.test, "if")
        except Reject as err:
            self.record(err)
            cond = UNKNOWN
        except Poisoned:
            cond = UNKNOWN
        static = const_of(cond) if not isinstance(cond, Unknown) else None
        if isinstance(static, bool):
            self.body(node.body if static else node.orelse)
            return
        then, other = self.branch(node.body), self.branch(node.orelse)
        self.merge(then, other, cond, span)

    def condition(self, test: ast.expr, stmt: str) -> FValue:
        value = self.expr(test)
        if isinstance(value, Unknown):
            return value
        c = const_of(value)
        if c is not None:
            return value  # decided at compile time (or unknown until specialized)
        assert isinstance(value, Value)
        if not (isinstance(value.type, TileType) and value.type.rank == 0 and
                value.type.dtype == BOOL):
            got = "a tensor" if isinstance(value.type, TensorType) else describe(value.type)
            self.b.fail(msg.CONDITION_TYPE, self.span(test), stmt=stmt, got=got)
        return value

    def merge(self, then: Branch, other: Branch, cond: FValue, span: Span) -> None:
        """Joins two branches. A tile condition is decided at run time; a Const one only at
        specialization (types may differ between its branches); an unknown one (a rejected
        condition) emits nothing and reports nothing more."""
        dynamic = isinstance(cond, Value) and not cond.is_const
        if self.is_kernel:  # a kernel's return ends the block: that branch joins nothing
            live = [br for br in (then, other) if not (br.terminated or br.returned)]
            self.returned = not live and (then.returned or other.returned)
            self.terminated = not live and not self.returned
        else:  # a helper's return gives its value: the merge joins it (`__return__`)
            live = [br for br in (then, other) if not br.terminated]
            self.terminated = not live
            if dynamic and len(live) == 2 and then.returned != other.returned:
                self.record(Reject(_early_return(span)))
            self.returned = bool(live) and all(br.returned for br in live)
        results: list[tuple[str, list[Value]]] = []
        for name in _changed(self.env, [br.env for br in live]):
            joined = self._join(name, [br.env.get(name) for br in live], cond)
            if isinstance(joined, list):
                results.append((name, joined))
            else:
                self.env[name] = joined
        if not isinstance(cond, Value):
            for name, vals in results:  # errors were reported: keep the type, emit nothing
                self.env[name] = Value(vals[0].type, span, name)
            return
        for i, br in enumerate(live):
            br.block.ops.append(Op("yield", [vals[i] for _, vals in results], [], span))
        types = [vals[0].type for _, vals in results]
        op = self.b.emit("if", [cond], types, span, regions=[then.block, other.block])
        for (name, _), result in zip(results, op.results, strict=True):
            result.name = name
            self.env[name] = result

    def _join(self, name: str, values: list[Binding | None],
              cond: FValue) -> Binding | list[Value]:
        """One binding for a name after an if, or the per-branch tiles to pass out as results."""
        dynamic = isinstance(cond, Value) and not cond.is_const
        symbolic = isinstance(cond, Value) and cond.is_const
        if any(v is None for v in values):
            return UNKNOWN if symbolic else Unbound("in some branches of an if")
        bad = [v for v in values if isinstance(v, (Unknown, Unbound))]
        if bad:
            return bad[0]
        if all(isinstance(v, Value) and v.is_const for v in values) and len(
                {repr(v.const) for v in values if isinstance(v, Value)}) == 1:
            return values[0]  # type: ignore[return-value]
        if symbolic:
            same = [v for v in values if isinstance(v, Value) and isinstance(v.type, TileType)]
            if len(same) == len(values) and len({t.type for t in same}) == 1:
                return same
            return UNKNOWN  # only one branch survives specialization
        try:
            tiles = self._as_tiles(values)
        except Reject as err:
            self.record(err)
            return UNKNOWN
        if tiles is None:
            only = values[0]
            if len(values) == 1 and only is not None and _static(only):
                return only  # the only path on: a compile-time object needs no result
            # a partition, slab or tuple cannot be an if's result: CT111 where it is used
            return Unbound("inside an if (only tiles and numbers flow out of a branch)")
        if len({t.type for t in tiles}) > 1:
            if dynamic:
                first = tiles[0]
                other = next(t for t in tiles if t.type != first.type)
                self.record(Reject(_type_changes_branch(name, first, other)))
            return UNKNOWN
        return tiles

    def _as_tiles(self, values: list[Binding | None]) -> list[Value] | None:
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
            out.append(self.b.materialize(v, dtype, v.span))
        return out

    # -- loops ----------------------------------------------------------------------------------
    def for_(self, node: ast.For) -> None:
        try:
            header = self.loop_header(node)
        except Reject as err:
            self.record(err)
            header = None
        except Poisoned:
            header = None
        self.loop(node.body, header, self.span(node.target), node.target)

    def loop_header(self, node: ast.For) -> tuple[Value, Value, Value, str | None]:
        it = node.iter
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and \
                it.func.attr == "tiles" and not it.args:
            return self.tiles_header(it)
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and
                it.func.id == "range" and "range" not in self.env):
            what = self.ctx.info.code(it)
            self.b.fail(msg.UNSUPPORTED_LOOP, self.span(it), what=f"'{what}'")
        args, kwargs = self.call_args(it)
        if kwargs or not 1 <= len(args) <= 3:
            self.b.fail(msg.TOO_MANY_ARGS, self.span(it),
                        name="range", most=3, s="s", given=len(args) + len(kwargs))
        if len(args) == 1:
            args = [Arg(const_value(args[0].span, 0), args[0].span), args[0]]
        step_arg = args[2] if len(args) == 3 else Arg(const_value(self.span(it), 1), self.span(it))
        step_const = const_of(self.b.known(step_arg))
        if isinstance(step_const, int) and step_const <= 0:
            self.b.fail(msg.BAD_OPERAND, step_arg.span, op="range()",
                        what="a step below 1 in kernels")
        lb, ub, step = (self._range_bound(a) for a in (args[0], args[1], step_arg))
        if self._known_int(step) is None:
            # a step that arrives at run time: below 1 the launch fails with CT411 (the GPU
            # then runs the loop 0 times: ub becomes lb) instead of looping forever
            ub = self.b.emit1("range_check", [lb, ub, step], SCALAR_I32, self.span(it))
        return lb, ub, step, None

    def _range_bound(self, arg: Arg) -> Value:
        """A range() argument as an i32 scalar: the loop variable is i32, so wider integers
        must be converted explicitly (a silent truncation could change the trip count)."""
        v = self.b.scalar_int(arg, "a range() bound")
        t = v.type
        assert isinstance(t, TileType)
        if t.dtype == I32:
            return v
        if t.dtype.bits >= 32:
            self.b.fail(msg.BAD_OPERAND, arg.span, op="range()",
                        what=f"a bound of dtype {t.dtype} (the loop variable is i32: "
                             f"convert it with .astype(i32) where it fits)")
        return self.b.emit1("astype", [v], SCALAR_I32, arg.span, dtype=I32)

    def _known_int(self, v: Value) -> int | None:
        """The value of an integer scalar that is a compile-time constant, else None."""
        r = self.b.ranges.get(v)
        return r.lo if r is not None and r.anchor is None and r.lo == r.hi else None

    def _steps_safely(self, ub: Value, step: Value) -> bool:
        """Whether `i + step` stays within i32 for every i below `ub` (else each iteration
        checks it before stepping: Python's range has no last-plus-step)."""
        s, u = self._known_int(step), self._known_int(ub)
        return s == 1 or (s is not None and u is not None and u <= I32_MAX - s + 1)

    def tiles_header(self, it: ast.Call) -> tuple[Value, Value, Value, str | None]:
        """Linear tile numbers from this block's linear id, stepping by the block count
        (`tiles_start_step`, see tiling.py): each tile is visited by exactly one block."""
        assert isinstance(it.func, ast.Attribute)
        from ..ops.memory import tensor

        z = tensor(self.b, self.arg(it.func.value), "tiles", mutable=True)
        span = self.span(it)
        lb, step = self.b.emit("tiles_start_step", [z], [SCALAR_I32] * 2, span).results
        ub = self.b.emit1("tile_count", [z], SCALAR_I32, span)
        return lb, ub, step, z.name or "z"

    def while_(self, node: ast.While) -> None:
        self.loop(node.body, None, self.span(node.test), None, test=node.test)

    def loop(self, body: Sequence[ast.stmt],
             header: tuple[Value, Value, Value, str | None] | None, span: Span,
             target: ast.expr | None, test: ast.expr | None = None) -> None:
        names = assigned_names(body)
        if target is not None:
            names = [n for n in names if n not in _target_list(target)]
        carried, inits = self._carried(names, span)
        returns = self.is_kernel and _returns_within(body)
        if returns:  # Tile IR's `for` cannot be left early: such a loop is a `loop`
            carried.append(RETURN_FLAG)
            inits.append(self.b.emit1("constant", [], FLAG, span, value=False))
        for_form = header is not None and test is None and not has_jumps(body) and not returns
        block = Block()
        iv = Value(SCALAR_I32, span) if header is not None else None
        args = [Value(v.type, v.span, name) for name, v in zip(carried, inits, strict=True)]
        block.args = ([iv] if iv is not None else []) + args
        ctx = LoopCtx(carried, [v.type for v in inits], span, iv,
                      header[2] if header is not None and not for_form else None, args,
                      header is None or header[3] is not None or
                      self._steps_safely(header[1], header[2]))
        saved = (self.env, self.terminated, self.returned)
        self.env = dict(self.env)
        self.env.update(zip(carried, args, strict=True))
        self.loops.append(ctx)
        self.b.blocks.append(block)
        if header is not None and header[3] is None and iv is not None:
            self.b.ranges.loop_variable(iv, block, header[:3], for_form, span)
        try:
            self._loop_body(body, header, iv, target, test, ctx, for_form)
        finally:
            self.b.blocks.pop()
            self.loops.pop()
            self.env, self.terminated, self.returned = saved
        targets = _target_list(target) if target is not None else []
        for name in names + targets:
            if name not in carried:
                self.env[name] = Unbound("inside a loop") if name not in self.env else UNKNOWN
        if header is None and test is None:
            return
        self._emit_loop(header, for_form, inits, carried, block, span)

    def _loop_body(self, body: Sequence[ast.stmt],
                   header: tuple[Value, Value, Value, str | None] | None, iv: Value | None,
                   target: ast.expr | None, test: ast.expr | None,
                   ctx: LoopCtx, for_form: bool) -> None:
        if header is None and target is not None:
            for name in _target_list(target):
                self.env[name] = UNKNOWN  # the header was rejected: no follow-on errors
        if header is not None and iv is not None and target is not None:
            self._bind_target(target, iv, header[3])
            if not for_form:
                self._exit_unless(self.b.emit1("lt", [iv, header[1]], TileType(BOOL, ()),
                                               ctx.span), ctx)
        if test is not None:
            try:
                cond = self.condition(test, "while")
            except Reject as err:
                self.record(err)
                cond = UNKNOWN
            except Poisoned:
                cond = UNKNOWN
            if isinstance(cond, Value) and not cond.is_const:
                self._exit_unless(cond, ctx)
        self.body(body)
        if not (self.terminated or self.returned):
            self._continue(ctx, self.span_end(body, ctx.span))

    def _bind_target(self, target: ast.expr, iv: Value, owner: str | None) -> None:
        if owner is None:
            if not isinstance(target, ast.Name):
                self.record(Reject(_bad_target(self, target)))
                for name in _target_list(target):
                    self.env[name] = UNKNOWN
                return
            if target.id in self.const_params:
                self.record(Reject(msg.CONST_REASSIGNED.at(self.span(target), name=target.id)))
            iv.name = target.id
            self.env[target.id] = iv
            return
        z = self.env.get(owner)
        assert isinstance(z, Value) and isinstance(z.type, TensorType)
        if not isinstance(target, ast.Name):
            self.record(Reject(msg.TILES_LOOP_TARGET.at(
                self.span(target), name=owner, what=f"'{self.ctx.info.code(target)}'")))
            for name in _target_list(target):
                self.env[name] = UNKNOWN
            return
        coords = self.b.emit("tile_coords", [z, iv], [SCALAR_I32] * z.type.rank, iv.span)
        slab = SlabVal(SlabType(z.type, owner), self.span(target), target.id, base=z,
                       index=tuple(coords.results))
        try:
            self.assign(target, slab)
        except Reject as err:
            self.record(err)
            self.env[target.id] = UNKNOWN
        self.env[owner] = SlabParent("inside its tiles loop", target.id)

    def _exit_unless(self, cond: Value, ctx: LoopCtx, values: list[Value] | None = None
                     ) -> None:
        stay = Block(ops=[Op("yield", [], [], ctx.span)])
        leave = Block(ops=[Op("break", self._current(ctx) if values is None else values, [],
                              ctx.span)])
        self.b.emit("if", [cond], [], ctx.span, regions=[stay, leave])

    def _current(self, ctx: LoopCtx) -> list[Value]:
        out = []
        for name, t in zip(ctx.carried, ctx.types, strict=True):
            v = self.env.get(name)
            out.append(v if isinstance(v, Value) else Value(t, ctx.span, name))
        return out

    def _check_types(self, ctx: LoopCtx, span: Span) -> list[Value]:
        values = self._current(ctx)
        for name, v, t in zip(ctx.carried, values, ctx.types, strict=True):
            if v.is_const and isinstance(t, TileType):
                try:
                    v = self.b.materialize(v, t.dtype, v.span)
                except Reject as err:
                    self.record(err)
                    continue
                values[ctx.carried.index(name)] = v
            if v.type != t:
                self.record(Reject(_type_changes_loop(name, t, v, ctx.span)))
        return values

    def _continue(self, ctx: LoopCtx, span: Span) -> None:
        values = self._check_types(ctx, span)
        if ctx.iv is not None and ctx.step is not None:
            if not ctx.safe:  # range() ends after a last value whose next would wrap
                top = self.b.emit1("constant", [], SCALAR_I32, span, value=I32_MAX)
                room = self.b.emit1("sub", [top, ctx.step], SCALAR_I32, span)
                self._exit_unless(self.b.emit1("le", [ctx.iv, room], FLAG, span), ctx, values)
            nxt = self.b.emit1("add", [ctx.iv, ctx.step], SCALAR_I32, span)
            values = [nxt, *values]
        self.b.emit("continue", values, [], span)

    def jump(self, node: ast.Break | ast.Continue) -> None:
        span = self.span(node)
        if not self.loops:
            self.b.fail(msg.UNSUPPORTED_STATEMENT, span, what=type(node).__name__.lower(),
                        hint=" outside a loop")
        ctx = self.loops[-1]
        if isinstance(node, ast.Continue):
            self._continue(ctx, span)
        else:
            self.b.emit("break", self._check_types(ctx, span), [], span)
        self.terminated = True

    def _carried(self, names: list[str], span: Span) -> tuple[list[str], list[Value]]:
        carried, inits = [], []
        for name in names:
            v = self.env.get(name)
            if not isinstance(v, Value) or not isinstance(v.type, (TileType, ConstType)):
                continue
            if isinstance(v.type, ConstType):
                if v.type.kind not in ("int", "float", "bool") or not isinstance(
                        v.const, (int, float)):
                    continue
                try:
                    v = self.b.materialize(v, natural_dtype(v.const), v.span)
                except Reject as err:
                    self.record(err)
                    continue
            carried.append(name)
            inits.append(v)
        return carried, inits

    def _emit_loop(self, header: tuple[Value, Value, Value, str | None] | None, for_form: bool,
                   inits: list[Value], carried: list[str], block: Block, span: Span) -> None:
        types = [v.type for v in inits]
        if header is not None and for_form:
            lb, ub, step, _ = header
            op = self.b.emit("for", [lb, ub, step, *inits], types, span, regions=[block])
        else:
            start = [header[0]] if header is not None else []
            op = self.b.emit("loop", [*start, *inits], types, span, regions=[block])
        for name, result in zip(carried, op.results, strict=True):
            result.name = name
            if name == RETURN_FLAG:
                self.exit_flag = result  # body() guards what follows the loop with it
            else:
                self.env[name] = result

    def span_end(self, body: Sequence[ast.stmt], fallback: Span) -> Span:
        return self.span(body[-1]) if body else fallback


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


def _target_list(target: ast.expr) -> list[str]:
    return target_names(target)


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


def _bad_target(owner: Statements, target: ast.expr) -> Diagnostic:
    return msg.UNSUPPORTED_LOOP.at(owner.span(target), what="tuple targets of range()")


def _type_changes_branch(name: str, a: Value, b: Value) -> Diagnostic:
    return msg.TYPE_CHANGES_BRANCH.at(b.span, (Note(f"'{name}' is {a.type} here", a.span),),
                                      name=name, a=a.type, b=b.type)


def _type_changes_loop(name: str, before: Type, v: Value, loop: Span) -> Diagnostic:
    return msg.TYPE_CHANGES_LOOP.at(v.span, (Note("the loop starts here", loop),), name=name,
                                    before=before, after=v.type)
