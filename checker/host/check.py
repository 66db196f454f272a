"""The entry point: every host scope of a module, analyzed on its own."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ...diagnostics import messages as msg
from ...diagnostics.diagnostic import Diagnostic, Span
from ...reader.source import ModuleInfo
from .core import Evaluator
from .facts import ApiSite, FactLog, NameSite, OwnershipFact, name_sites, scope_span
from .names import ModuleIndex, Scope
from .places import seeds
from .project import ProjectIndex
from .values import UNKNOWN, State, TensorVal
from .world import World


def check_host(info: ModuleInfo, project: ProjectIndex | None = None) -> list[Diagnostic]:
    """CT3xx/CT4xx findings of the module's host code (kernel bodies are the frontend's)."""
    project = project if project is not None else ProjectIndex()
    module_globals = project.module_globals(info)
    index = ModuleIndex(info)
    diags: list[Diagnostic] = []
    for scope in index.scopes:
        world = World()
        ctx = Evaluator(info, project, world, module_globals, index, set(scope.captured),
                        seeds=seeds(info, scope))
        try:
            _run_scope(ctx, scope)
        except Exception as err:  # a checker bug must not hide the file's other findings
            detail = f"host analysis failed: {type(err).__name__}: {err}"
            diags.append(msg.INTERNAL_ERROR.at(_scope_span(info, scope.node), detail=detail))
            continue
        _report_unrun(world)
        diags += world.findings.values()
    return sorted(diags, key=Diagnostic.sort_key)


@dataclass(frozen=True)
class OwnershipView:
    """What an editor shows on hover: the facts, every name written in host code, and the
    names that use the host API."""

    facts: tuple[OwnershipFact, ...]
    names: tuple[NameSite, ...]
    api: tuple[ApiSite, ...] = ()


def ownership_facts(info: ModuleInfo, project: ProjectIndex | None = None
                    ) -> list[OwnershipFact]:
    """The ownership state of every tensor, partition and lazy op at each of its names, in the
    order the analysis met them (a scope that fails to analyse contributes nothing)."""
    return list(ownership_view(info, project).facts)


def ownership_view(info: ModuleInfo, project: ProjectIndex | None = None) -> OwnershipView:
    project = project if project is not None else ProjectIndex()
    module_globals = project.module_globals(info)
    index = ModuleIndex(info)
    facts: list[OwnershipFact] = []
    names: list[NameSite] = []
    api: list[ApiSite] = []
    for scope in index.scopes:
        where = scope_span(info, scope.node)
        names += name_sites(info, scope, where)
        log = FactLog(where)
        ctx = Evaluator(info, project, World(), module_globals, index, set(scope.captured),
                        facts=log, seeds=seeds(info, scope))
        try:
            _run_scope(ctx, scope)
        except Exception:  # check_host reports it (CT999); hovers just know nothing here
            continue
        facts += log.facts
        api += log.api.values()
    return OwnershipView(tuple(facts), tuple(names), tuple(api))


def _run_scope(ctx: Evaluator, scope: Scope) -> None:
    """From the parameters, unknown, and a method's seeded attributes, live tensors (one object
    on every path, so a move on any path reaches the uses after a join)."""
    st = State(env=dict.fromkeys(scope.params, UNKNOWN))
    for key in sorted(ctx.seeds):
        st.env[key] = TensorVal(ctx.world.fresh(), ctx.world.fresh(), None, None)
    ctx.run_block(st, scope.body)


def _scope_span(info: ModuleInfo, node: ast.AST) -> Span:
    """A function or class by its name; the module's top level by its first line."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return info.name_span(node)
    first = info.lines[0] if info.lines else ""
    return Span(info.path, 1, 0, 1, len(first))


def _report_unrun(world: World) -> None:
    """CT305 at each launch that is never run on any path (loops repeat a call), as the
    runtime warns it: a launch taken over by a `.then` chain runs when the chain runs."""
    by_site: dict[Span, list[int]] = {}
    for op, info in world.ops.items():
        if info.kind == "launch":
            by_site.setdefault(info.span, []).append(op)
    for ops in by_site.values():
        if all(world.never_run(op) for op in ops):
            info = world.ops[ops[0]]
            world.report(msg.LAUNCH_NEVER_RUN.at(info.span, kernel=info.kernel))
