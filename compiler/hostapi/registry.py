"""The host API's entries: what one constructor, method or property is, declared once.

An entry names its receiver (`ct` for the functions of the module; `tensor`, `partition`, `op`
for a lazy launch or chain, `graph` for a captured graph), its signature (annotated, as the
runtime declares it), its ownership `Effect`, the messages it may raise beyond those its effect
implies (diagnostics/messages.py, so codes by reference: no second table of codes) and its doc
line. The table itself is `table.py`.
"""

from __future__ import annotations

import ast
import enum
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

from ...diagnostics import messages as msg
from ...diagnostics.messages import Message

Receiver = Literal["ct", "tensor", "partition", "op", "graph"]
Kind = Literal["function", "method", "property"]
# what a CREATES call's tensor stands on: new contiguous memory, another library's memory (any
# strides), or none (a shape and dtype only)
Memory = Literal["new", "imported", "none"]

# how usage lines name each receiver
SHOWN: dict[Receiver, str] = {"ct": "ct", "tensor": "t", "partition": "p", "op": "op",
                              "graph": "g"}


class Effect(enum.Enum):
    """What a call does to ownership. The checker evaluates an entry by its effect where that
    is enough, and the runtime checks its receiver by it (runtime/access.py)."""

    CREATES = "creates a new tensor"
    MOVES = "moves the receiver into its result: the old name is dead"
    VIEWS = "returns a view that borrows the receiver's region; the receiver stays usable"
    READS = "reads the receiver's elements"
    WRITES = "writes every element of the receiver, in place"
    WAITS = "waits for the op and hands its arguments back"
    ENQUEUES = "enqueues the op (or a chain or graph of it) without waiting"
    INSPECTS = "reads the receiver's metadata only"


# What a call on a tensor or partition may raise whatever the entry: any use of a moved handle;
# a read, a region a pending launch writes; a write or a move of a tensor (which takes it
# over), a region a pending launch reads or writes.
_USE = (msg.USE_AFTER_MOVE, msg.MOVE_IN_LOOP)
USE_CODES = frozenset(m.code for m in _USE)  # what any call on a moved handle raises
_READ = (msg.REGION_WRITTEN,)
_WRITE = (msg.WRITE_WHILE_LEASED, msg.REGION_READ, msg.REGION_WRITTEN)


@dataclass(frozen=True)
class Param:
    name: str
    annotation: str
    default: str | None  # the default's source text; None: required
    keyword: bool = False  # keyword-only
    variadic: bool = False  # *args


@dataclass(frozen=True)
class HostEntry:
    receiver: Receiver
    name: str
    kind: Kind
    effect: Effect
    doc: str  # one sentence for docs/host-api.md and hovers
    sig: str = ""  # the annotated parameters (no self), as the runtime declares them
    returns: str = "None"
    raises: tuple[Message, ...] = ()  # beyond what the receiver and the effect imply
    # how a message names the effect on the receiver ("partitioned", "copied to the host")
    action: str = ""
    memory: Memory = "new"  # CREATES only

    @cached_property
    def params(self) -> tuple[Param, ...]:
        fn = ast.parse(f"def f({self.sig}): pass").body[0]
        assert isinstance(fn, ast.FunctionDef)
        a = fn.args
        defaults: list[ast.expr | None] = [None] * (len(a.args) - len(a.defaults))
        out = [Param(p.arg, _text(p.annotation), _text(d) if d is not None else None)
               for p, d in zip(a.args, [*defaults, *a.defaults], strict=True)]
        if a.vararg is not None:
            out.append(Param(a.vararg.arg, _text(a.vararg.annotation), None, variadic=True))
        out += [Param(p.arg, _text(p.annotation), _text(d) if d is not None else None, True)
                for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True)]
        return tuple(out)

    @property
    def positional(self) -> tuple[str, ...]:
        """The parameters a positional argument binds to, in order."""
        return tuple(p.name for p in self.params if not p.keyword and not p.variadic)

    @property
    def messages(self) -> tuple[Message, ...]:
        """Everything the call may raise: a use of a moved handle, what its effect implies
        for the receiver, then the entry's own."""
        implied: tuple[Message, ...] = ()
        if self.receiver in ("tensor", "partition"):
            implied = _USE
        if self.receiver in ("tensor", "partition") and self.effect is Effect.READS:
            implied += _READ
        if self.receiver == "tensor" and self.effect in (Effect.MOVES, Effect.WRITES):
            implied += _WRITE
        return tuple(dict.fromkeys(implied + self.raises))

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(sorted({m.code for m in self.messages}))

    @property
    def usage(self) -> str:
        """The call as the docs show it: `ct.zeros(shape, dtype)`, `t.shape`, `t[key]`."""
        head = SHOWN[self.receiver]
        shown = ", ".join(("*" if p.variadic else "") + p.name
                          + ("" if p.default is None else f"={p.default}")
                          for p in self.params)
        if self.kind == "property":
            return f"{head}.{self.name}"
        if self.name == "__getitem__":
            return f"{head}[{shown}]"
        if self.name == "__await__":
            return f"await {head}"
        return f"{head}.{self.name}({shown})"

    @property
    def signature(self) -> str:
        """The declaration, annotated: `ct.zeros(shape: ..., dtype: DType) -> Tensor`."""
        head = SHOWN[self.receiver]
        if self.kind == "property":
            return f"{head}.{self.name}: {self.returns}"
        return f"{head}.{self.name}({self.sig}) -> {self.returns}"

    def markdown(self) -> str:
        """The hover text: the declaration, the doc line, the effect and the codes."""
        codes = ", ".join(self.codes)
        lines = [f"```python\n{self.signature}\n```", "", self.doc, "",
                 f"Ownership: {self.effect.value}."]
        if codes:
            lines.append(f"Errors: {codes}.")
        return "\n".join(lines)


def _text(node: ast.expr | None) -> str:
    return ast.unparse(node) if node is not None else ""


HOST_API: dict[tuple[Receiver, str], HostEntry] = {}


def declare(entry: HostEntry) -> HostEntry:
    key = (entry.receiver, entry.name)
    if key in HOST_API:
        raise ValueError(f"host API entry {key} is declared twice")
    HOST_API[key] = entry
    return entry


def lookup(receiver: Receiver, name: str) -> HostEntry | None:
    return HOST_API.get((receiver, name))


def entries(*receivers: Receiver) -> list[HostEntry]:
    return [e for e in HOST_API.values() if e.receiver in receivers]


def public_names(*receivers: Receiver) -> frozenset[str]:
    """The entries' attribute names without a leading underscore (dunders are the syntax's)."""
    return frozenset(e.name for e in entries(*receivers) if not e.name.startswith("_"))
