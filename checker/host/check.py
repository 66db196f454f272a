"""The entry point: every host scope of a module, analyzed on its own."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import libcst as cst

from ...compiler import messages as msg
from ...compiler.diagnostics import Diagnostic, Span
from ...compiler.frontend.module import ModuleInfo
from . import expressions as ex
from .context import Ctx
from .interpret import Stmt, run_block
from .project import ProjectIndex
from .values import UNKNOWN, State
from .world import World


@dataclass
class Scope:
    node: cst.Module | cst.FunctionDef | cst.ClassDef
    body: Sequence[Stmt]
    params: list[str]


def check_host(info: ModuleInfo, project: ProjectIndex | None = None) -> list[Diagnostic]:
    """CT3xx/CT4xx findings of the module's host code (kernel bodies are the frontend's)."""
    project = project if project is not None else ProjectIndex()
    module_globals = project.module_globals(info)
    diags: list[Diagnostic] = []
    for scope in scopes(info):
        world = World()
        ctx = Ctx(info, project, world, module_globals, _captured(info, scope))
        try:
            run_block(ctx, State(env=dict.fromkeys(scope.params, UNKNOWN)), scope.body)
        except Exception as err:  # a checker bug must not hide the file's other findings
            diags.append(Diagnostic("CT999", msg.INTERNAL_ERROR.format(
                detail=f"host analysis failed: {type(err).__name__}: {err}"),
                info.span(scope.node)))
            continue
        _report_unrun(world)
        diags += world.findings.values()
    return sorted(diags, key=Diagnostic.sort_key)


def _report_unrun(world: World) -> None:
    """CT305 at each call whose launches are never run on any path (loops repeat a call)."""
    by_site: dict[Span, list[int]] = {}
    for op, info in world.ops.items():
        if info.kind in ("launch", "chain"):
            by_site.setdefault(info.span, []).append(op)
    for ops in by_site.values():
        if not any(op in world.consumed for op in ops):
            info = world.ops[ops[0]]
            world.report(Diagnostic("CT305", msg.LAUNCH_NEVER_RUN.format(kernel=info.kernel),
                                    info.span))


def scopes(info: ModuleInfo) -> Iterator[Scope]:
    yield Scope(info.module, info.module.body, [])
    found: list[Scope] = []

    class Collect(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            if _is_cutile(info, node):
                return False  # kernel bodies are checked by the frontend
            params = node.params
            names = [p.name.value for p in (*params.posonly_params, *params.params,
                                             *params.kwonly_params)]
            for star in (params.star_arg, params.star_kwarg):
                if isinstance(star, cst.Param):
                    names.append(star.name.value)
            found.append(Scope(node, _suite(node.body), names))
            return True

        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            found.append(Scope(node, _suite(node.body), []))
            return True

    info.module.visit(Collect())
    yield from found


def _suite(body: cst.BaseSuite) -> Sequence[Stmt]:
    return body.body


def _is_cutile(info: ModuleInfo, node: cst.FunctionDef) -> bool:
    for deco in node.decorators:
        expr = deco.decorator
        target = info.resolve(expr.func if isinstance(expr, cst.Call) else expr)
        if target in ("kernel", "function"):
            return True
    return False


def _captured(info: ModuleInfo, scope: Scope) -> set[str]:
    """Names that nested functions, classes and lambdas of the scope may read at any time
    (kernels see only module-level constants, so they capture nothing)."""
    names: set[str] = set()

    class Collect(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            if not _is_cutile(info, node):
                names.update(ex.names_in(node.body))
            return False

        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            names.update(ex.names_in(node.body))
            return False

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            names.update(ex.names_in(node.body))
            return False

        def visit_Global(self, node: cst.Global) -> None:
            names.update(n.name.value for n in node.names)

        def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
            names.update(n.name.value for n in node.names)

    for stmt in scope.body:
        stmt.visit(Collect())
    return names
