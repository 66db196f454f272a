"""What the evaluator of one function body hands every rule it calls.

`Context` is shared by a kernel's analysis and every helper inlined into it (the module, the IR
builder, the diagnostics). `Scope` is one body being analyzed: its names, whether its block has
ended, the loops around the statement at hand. The evaluator's core (`core.Evaluator`, a
`Scope`) fills in `expr`, `statement`, `body` and `helper_scope`, so the topic modules
(expressions, statements, control flow, helper inlining) receive it, call back through those
methods, and import nothing above them.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from ...diagnostics.diagnostic import Diagnostic, Note, Span
from ...reader.source import ModuleInfo
from ..ir import Value
from ..types import TensorType, Type, fmt_shape
from .builder import Arg, Builder
from .values import Binding, FValue, Reject


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


@dataclass
class LoopCtx:
    """A loop being analyzed: what it carries and how a `continue` steps it."""

    carried: list[str]
    types: list[Type]
    span: Span
    iv: Value | None = None  # for-loops lowered as `loop`: continue passes iv + step
    step: Value | None = None
    args: list[Value] = field(default_factory=list)  # the carried values an iteration starts with
    safe: bool = True  # `iv + step` cannot pass 2**31 - 1 (else `continue` checks it first)


@dataclass(eq=False)
class Scope:
    """One function body being analyzed: a kernel, or a helper inlined at `call_site`."""

    ctx: Context
    env: dict[str, Binding]
    is_kernel: bool
    call_site: Span | None = None  # where the helper being analyzed was called from
    const_params: set[str] = field(default_factory=set)
    terminated: bool = False  # the current block ended in break/continue
    returned: bool = False  # the current block ended in return
    loops: list[LoopCtx] = field(default_factory=list)
    exit_flag: Value | None = None  # set by a loop the kernel may have returned from

    @property
    def b(self) -> Builder:
        return self.ctx.builder

    def span(self, node: ast.AST) -> Span:
        return self.ctx.info.span(node)

    def arg(self, node: ast.expr) -> Arg:
        return Arg(self.expr(node), self.span(node))

    def record(self, err: Reject) -> None:
        """Reports a rejected construct (in a helper, with a note at the call)."""
        diag = err.diag
        if self.call_site is not None:
            diag = replace(diag, notes=(*diag.notes, Note("in the call from here",
                                                          self.call_site)))
        self.ctx.diags.append(diag)

    # -- the core's (core.py), for the modules it dispatches to --------------------------------
    def expr(self, node: ast.expr) -> FValue:
        raise NotImplementedError

    def statement(self, stmt: ast.stmt) -> None:
        raise NotImplementedError

    def body(self, statements: Sequence[ast.stmt]) -> None:
        """Runs statements until the block ends (break, continue, return)."""
        raise NotImplementedError

    def helper_scope(self, env: dict[str, Binding], call_site: Span) -> Scope:
        """A scope for a helper's body inlined at `call_site`, sharing this one's Context."""
        raise NotImplementedError
