"""What the walker of one scope (a host function or the module's top level) carries along.

`Ctx` is what every part of the analysis is handed: the scope's state, and the evaluator's core
(`core.Evaluator`, a `Ctx`) through `evaluate`/`run_block`/`run_stmt`, so the topic modules
(expressions, statements, calls, views, lazy ops) call back into the core without importing it.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass, field

from ...compiler.launch.facts import MoveFacts
from ...diagnostics.diagnostic import Diagnostic, Severity, Span
from ...reader.source import ModuleInfo
from .facts import FactLog
from .names import ModuleIndex
from .project import ProjectIndex
from .values import Moved, Reported, State, Value
from .world import World


@dataclass
class LaunchFrame:
    """A launch whose arguments are being evaluated: moves made by its own arguments
    (`k(z.partition(s), z)`) are aliasing (CT302), not use after move, if the rules agree."""

    span: Span
    current: Span | None = None  # the argument being evaluated
    # its arguments that are moved values, by argument span: the contract reports them
    moves: dict[Span, tuple[MoveFacts, int, Moved | Reported]] = field(default_factory=dict)
    # an error was reported while its arguments were evaluated: at run time that raises
    # before the launch exists, so nothing about the launch itself is reported
    failed: bool = False


@dataclass
class LoopFlow:
    """States that leave a loop body early."""

    breaks: list[State] = field(default_factory=list)
    continues: list[State] = field(default_factory=list)


@dataclass
class Ctx:
    info: ModuleInfo
    project: ProjectIndex
    world: World
    globals: dict[str, Value]
    index: ModuleIndex
    captured: set[str]  # names that nested functions or `global` declarations can see
    loops: list[tuple[int, int]] = field(default_factory=list)  # (loop id, pass) innermost last
    launches: list[LaunchFrame] = field(default_factory=list)
    flows: list[LoopFlow] = field(default_factory=list)
    facts: FactLog | None = None  # only for editors: ownership states at each name
    seeds: frozenset[str] = frozenset()  # a method's attributes that start as tensors (places.py)
    raised: int = 0  # how many times evaluation met code that raises at run time, so far

    def raises(self) -> None:
        """What is being evaluated raises at run time (reported now or before): so does every
        launch whose arguments are being evaluated."""
        self.raised += 1
        for frame in self.launches:
            frame.failed = True

    def span(self, node: ast.AST) -> Span:
        return self.info.span(node)

    def report(self, diag: Diagnostic, here: bool = True) -> None:
        """`here`: the error raises where it is evaluated; False for one the run raises later,
        when the op it is about runs (a chain's link, a launch's compile)."""
        if diag.severity is Severity.ERROR and here:
            self.raises()
        self.world.report(diag)

    def text(self, node: ast.AST) -> str:
        return self.info.code(node).strip()

    # -- the core's (core.py), for the modules it dispatches to --------------------------------
    def evaluate(self, st: State, expr: ast.expr) -> Value:
        raise NotImplementedError

    def run_stmt(self, st: State, stmt: ast.stmt) -> State | None:
        """A state of None is a path that does not continue (return, raise, break)."""
        raise NotImplementedError

    def run_block(self, st: State | None, body: Sequence[ast.stmt]) -> State | None:
        for stmt in body:
            if st is None:
                return None
            st = self.run_stmt(st, stmt)
        return st


def contains(outer: Span, inner: Span) -> bool:
    return ((outer.line, outer.col) <= (inner.line, inner.col)
            and (inner.end_line, inner.end_col) <= (outer.end_line, outer.end_col))
