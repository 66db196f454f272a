"""CT308 at edit time: a `pdl=True` kernel launched by a `.then` link touching, before its wait,
memory the launch before it writes (or, for its own writes, reads). compiler/pdl.py has the rule;
the runtime checks every link (runtime/pdl.py). The checker sees the links whose next launch it
can read without running anything: `op.then(kernel)` (the kernel gets the launch's results, in
order) and `op.then(lambda a, b: kernel(...))` (arguments that are the lambda's parameters,
names of the enclosing code, or `x.unpartition()` / `x.partition(...)` of those). A kernel of
another file is not reported here (its lines are that file's), as for specialized errors
(specialize.py)."""

from __future__ import annotations

import ast
from collections.abc import Sequence

from ...compiler.launch.moves import kernel_label
from ...compiler.pdl import access_diagnostic, early_accesses, first_conflict
from ...compiler.unit import kernel_unit
from .context import Ctx
from .leases import overlap, region_of
from .values import UNKNOWN, KernelVal, OpVal, PartitionVal, State, TensorVal, Value

Memory = TensorVal | PartitionVal


def check_then(ctx: Ctx, st: State, call: ast.Call, op: OpVal) -> None:
    """CT308 for a `.then` link whose next launch is of a pdl=True kernel of this file."""
    info = ctx.world.ops.get(op.op)
    if (info is None or info.kind != "launch" or info.sig is None or info.results is None
            or len(call.args) != 1 or call.keywords):
        return
    link = _link(ctx, st, call.args[0], info.results)
    if link is None:
        return
    kernel, args, site = link
    if (kernel.sig is None or kernel.sig.span.path != ctx.info.path
            or kernel.name not in ctx.info.functions):
        return
    ir = kernel_unit(ctx.info, kernel.name).analysis.ir
    facts = early_accesses(ir) if ir is not None else None
    if facts is None:
        return
    theirs = [(v, p.kind in ("mut", "acc")) for v, p in zip(info.results, info.sig.params,
                                                            strict=False)
              if isinstance(v, TensorVal | PartitionVal)]
    found = first_conflict(facts, lambda i: _memory(args, i), theirs, _meet)
    if found is not None:
        access, they_write = found
        ctx.report(access_diagnostic(access, they_write, kernel_label(kernel.name), info.kernel,
                                     ctx.span(site), info.span), here=False)  # when it runs


def _memory(args: Sequence[Value], i: int) -> Memory | None:
    value = args[i] if i < len(args) else UNKNOWN
    return value if isinstance(value, TensorVal | PartitionVal) else None


def _meet(a: Memory, b: Memory) -> bool:
    """Surely shared elements (the runtime decides views of unknown bounds)."""
    return a.storage == b.storage and overlap(region_of(a), region_of(b))


def _link(ctx: Ctx, st: State, fn: ast.expr, results: tuple[Value, ...]
          ) -> tuple[KernelVal, list[Value], ast.expr] | None:
    """The kernel a link launches, its positional arguments' values and the launching call."""
    if isinstance(fn, ast.Name):
        kernel = _kernel(ctx, st, fn)
        return None if kernel is None else (kernel, list(results), fn)
    if not (isinstance(fn, ast.Lambda) and isinstance(fn.body, ast.Call)
            and isinstance(fn.body.func, ast.Name)):
        return None
    kernel = _kernel(ctx, st, fn.body.func)
    if kernel is None or any(isinstance(a, ast.Starred) for a in fn.body.args):
        return None
    params = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)]
    bound = {name: results[i] for i, name in enumerate(params) if i < len(results)}
    shadowed = {a.arg for a in (*fn.args.kwonlyargs, fn.args.vararg, fn.args.kwarg)
                if a is not None}
    return kernel, [_value(ctx, st, a, bound, shadowed) for a in fn.body.args], fn.body


def _kernel(ctx: Ctx, st: State, name: ast.Name) -> KernelVal | None:
    value = st.env.get(name.id, ctx.globals.get(name.id))
    return value if isinstance(value, KernelVal) else None


def _value(ctx: Ctx, st: State, expr: ast.expr, bound: dict[str, Value],
           shadowed: set[str]) -> Value:
    """An argument of the lambda's launch: a parameter, an outer name, or `x.unpartition()` /
    `x.partition(...)` of one (the same memory); anything else is unknown (reports nothing)."""
    if isinstance(expr, ast.Name):
        if expr.id in bound:
            return bound[expr.id]
        return UNKNOWN if expr.id in shadowed else st.env.get(expr.id, UNKNOWN)
    if (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute)
            and expr.func.attr in ("unpartition", "partition")):
        return _value(ctx, st, expr.func.value, bound, shadowed)
    return UNKNOWN
