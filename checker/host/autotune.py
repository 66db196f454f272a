"""Autotuned kernels (`ct.autotune(kernel, configs=[...])` and `@ct.autotune(...)` above
`@ct.kernel`): a call launches the kernel itself, so the analysis checks it as the kernel's own
launch. What the configs add is read from the literal list of `ct.Config(...)`: the Const values
they pass by keyword, and whether one re-partitions the Mut argument (`tile`, `order`, `blocks`),
after which the tile the kernel sees is not known."""

from __future__ import annotations

import ast
from dataclasses import replace

from ...compiler.frontend.params import KernelSignature
from ...compiler.kernel_options import HINTS
from ...diagnostics.diagnostic import Span
from ...reader.source import ModuleInfo, target_names
from .launches import Arg
from .syntax import call_args
from .values import UNKNOWN, KernelVal, PartitionVal, Tuning

_RETILE = frozenset({"tile", "order", "blocks"})
_UNREAD = Tuning(None, True)  # configs not written as a literal list: anything may come


def tuning_of(info: ModuleInfo, call: ast.Call) -> Tuning:
    """What the `configs=` of a `ct.autotune(...)` call add to each launch."""
    configs = next((a.value for a in call_args(call) if a.name == "configs"), None)
    if not isinstance(configs, (ast.List, ast.Tuple)) or not configs.elts:
        return _UNREAD
    consts: set[str] = set()
    retiles = False
    for config in configs.elts:
        if not (isinstance(config, ast.Call) and info.resolve(config.func) == "Config"
                and not config.args and all(k.arg is not None for k in config.keywords)):
            return _UNREAD
        names = {k.arg for k in config.keywords if k.arg is not None}
        retiles = retiles or bool(names & _RETILE)
        consts |= names - _RETILE - HINTS.keys()
    return Tuning(frozenset(consts), retiles)


def tuned(info: ModuleInfo, call: ast.Call, kernel: KernelVal) -> KernelVal:
    return replace(kernel, tuning=tuning_of(info, call))


def module_tuned(info: ModuleInfo, kernels: dict[str, KernelVal]) -> dict[str, KernelVal]:
    """The module's autotuned kernels by name: `@ct.autotune(...)` kernels, and names bound
    once at module level to `ct.autotune(kernel, ...)` of one of `kernels`."""
    out: dict[str, KernelVal] = {}
    bound: dict[str, int] = {}
    for stmt in info.tree.body:
        for target in stmt.targets if isinstance(stmt, ast.Assign) else []:
            for name in target_names(target):
                bound[name] = bound.get(name, 0) + 1
        if isinstance(stmt, ast.FunctionDef) and stmt.name in kernels:
            for deco in stmt.decorator_list:
                if isinstance(deco, ast.Call) and info.resolve(deco.func) == "autotune":
                    out[stmt.name] = tuned(info, deco, kernels[stmt.name])
    for stmt in info.tree.body:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name) and bound[stmt.targets[0].id] == 1):
            continue
        kernel = autotuned_kernel(info, stmt.value, kernels)
        if kernel is not None:
            out[stmt.targets[0].id] = kernel
    return out


def autotuned_kernel(info: ModuleInfo, expr: ast.expr, kernels: dict[str, KernelVal]
                     ) -> KernelVal | None:
    """`ct.autotune(k, configs=...)` of a kernel `k` of `kernels`."""
    if not (isinstance(expr, ast.Call) and info.resolve(expr.func) == "autotune"
            and len(expr.args) == 1 and isinstance(expr.args[0], ast.Name)):
        return None
    kernel = kernels.get(expr.args[0].id)
    return tuned(info, expr, kernel) if kernel is not None else None


def as_tuned(tuning: Tuning, sig: KernelSignature, positional: list[Arg],
             keywords: list[tuple[str, Span, Arg]], call: Span
             ) -> tuple[list[Arg], list[tuple[str, Span, Arg]]]:
    """The arguments the kernel is launched with: the configs' Consts added (their values not
    known), and a Mut partition of unknown tile where a config re-partitions it."""
    given = {name for name, _, _ in keywords} | {p.name for p in sig.params[:len(positional)]}
    added = [(p.name, call, Arg(UNKNOWN, call, p.name)) for p in sig.params
             if p.kind == "const" and p.name not in given
             and (tuning.consts is None or p.name in tuning.consts)]
    if tuning.retiles:
        muts = {p.name for p in sig.params if p.kind == "mut"}
        positional = [_retiled(a) if i < len(sig.params) and sig.params[i].name in muts else a
                      for i, a in enumerate(positional)]
        keywords = [(k, s, _retiled(a) if k in muts else a) for k, s, a in keywords]
    return positional, keywords + added


def _retiled(arg: Arg) -> Arg:
    value = arg.value
    if not isinstance(value, PartitionVal):
        return arg
    return replace(arg, value=replace(value, tile=None, order=None))
