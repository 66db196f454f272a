"""User-facing op specs and call binding. Rules receive bound arguments and the Builder.

A spec's signature is written once, with annotations (`"x: Any, axis: int, keepdims: bool =
False"`): the frontend binds calls by it, and the generated stubs (`dsl/ops.py`) and docs show
it."""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ...diagnostics import messages as msg
from ...diagnostics.diagnostic import Span
from ..frontend.builder import Arg, Builder
from ..frontend.values import FValue, TupleVal

REQUIRED = object()


@dataclass(frozen=True)
class ParamDef:
    name: str
    default: object = REQUIRED  # a ConstVal default, or REQUIRED
    variadic: bool = False
    keyword: bool = False  # keyword-only (after `*` in the signature)


@dataclass(frozen=True)
class Call:
    name: str  # as the user wrote it: "ct.sum", "x.astype"
    args: dict[str, Arg]
    span: Span
    rest: tuple[Arg, ...] = ()  # variadic arguments

    def __getitem__(self, key: str) -> Arg:
        return self.args[key]

    def get(self, key: str) -> Arg | None:
        return self.args.get(key)


Rule = Callable[[Builder, Call], FValue]


@dataclass(frozen=True)
class OpSpec:
    name: str
    params: tuple[ParamDef, ...]
    rule: Rule
    receiver: str | None = None  # None for ct.NAME functions; "tile", "tensor", "mut", "partition"
    doc: str = ""  # one line for docs/language.md
    sig: str = ""  # the annotated parameters, as the stubs declare them
    returns: str = "TileValue"  # the stub's return annotation
    family: str = ""  # the docs table's row

    @property
    def usage(self) -> str:
        """How a call looks in the docs: `ct.sum(x, axis, keepdims=False)`, `t.astype(dtype)`."""
        shown = ", ".join(("*" if p.variadic else "") + p.name + (
            "" if p.default is REQUIRED else f"={p.default!r}")
            for p in self.params if p.name != "self")
        head = "ct" if self.receiver is None else RECEIVER_NAMES[self.receiver]
        return f"{head}.{self.name}({shown})"


RECEIVER_NAMES = {"tile": "t", "tensor": "x", "mut": "z", "partition": "p", "acc": "acc"}


FUNCTIONS: dict[str, OpSpec] = {}
METHODS: dict[tuple[str, str], OpSpec] = {}


def _params(sig: str) -> tuple[ParamDef, ...]:
    """'x: Any, axis: int, keepdims: bool = False, *args: Any' -> ParamDefs (literal defaults)."""
    fn = ast.parse(f"def f({sig}): pass").body[0]
    assert isinstance(fn, ast.FunctionDef)
    a = fn.args
    defaults = [REQUIRED] * (len(a.args) - len(a.defaults)) + [
        ast.literal_eval(d) for d in a.defaults]
    out = [ParamDef(p.arg, d) for p, d in zip(a.args, defaults, strict=True)]
    if a.vararg is not None:
        out.append(ParamDef(a.vararg.arg, variadic=True))
    for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True):
        out.append(ParamDef(p.arg, REQUIRED if d is None else ast.literal_eval(d),
                            keyword=True))
    return tuple(out)


def function(name: str, sig: str, doc: str, family: str,
             returns: str = "TileValue") -> Callable[[Rule], Rule]:
    def deco(rule: Rule) -> Rule:
        FUNCTIONS[name] = OpSpec(name, _params(sig), rule, None, doc, sig, returns, family)
        return rule
    return deco


def method(receivers: str, name: str, sig: str, doc: str, family: str,
           returns: str = "TileValue") -> Callable[[Rule], Rule]:
    """The receiver arrives as the first parameter, 'self'."""
    def deco(rule: Rule) -> Rule:
        for receiver in receivers.split():
            METHODS[(receiver, name)] = OpSpec(
                name, _params("self, " + sig if sig else "self"), rule, receiver, doc, sig,
                returns, family)
        return rule
    return deco


def bind(b: Builder, spec: OpSpec, shown: str, args: Sequence[Arg], kwargs: dict[str, Arg],
         span: Span) -> Call:
    """Matches a call's arguments to the spec (CT110 on mismatch); fills literal defaults."""
    bound: dict[str, Arg] = {}
    fixed = [p for p in spec.params if not p.variadic]
    positional = [p for p in fixed if not p.keyword]
    variadic = any(p.variadic for p in spec.params)
    given = len(args) - (1 if spec.receiver else 0)
    if len(args) > len(positional) and not variadic:
        most = len(positional) - (1 if spec.receiver else 0)
        b.fail(msg.TOO_MANY_ARGS, args[len(positional)].span, name=shown, most=most,
               s="" if most == 1 else "s", given=given)
    for p, a in zip(positional, args, strict=False):
        bound[p.name] = a
    rest = tuple(args[len(positional):])
    for key, a in kwargs.items():
        if key not in {p.name for p in fixed} or key == "self":
            b.fail(msg.UNKNOWN_KEYWORD, a.span, name=shown, param=key)
        if key in bound:
            b.fail(msg.DUPLICATE_ARG, a.span, name=shown, param=key)
        bound[key] = a
    for p in fixed:
        if p.name in bound:
            continue
        if p.default is REQUIRED:
            b.fail(msg.MISSING_ARG, span, name=shown, param=p.name)
        bound[p.name] = Arg(_default_value(p.default, span), span)
    return Call(shown, bound, span, rest)


def _default_value(value: object, span: Span) -> FValue:
    from ..frontend.values import const_value

    if isinstance(value, tuple):
        return TupleVal(tuple(_default_value(v, span) for v in value))
    return const_value(span, value)  # type: ignore[arg-type]
