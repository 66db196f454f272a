"""Op specs and call binding. Rules receive bound arguments and the Builder."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .. import messages as msg
from ..diagnostics import Span
from ..frontend.builder import Arg, Builder
from ..frontend.values import FValue, TupleVal

REQUIRED = object()


@dataclass(frozen=True)
class ParamDef:
    name: str
    default: object = REQUIRED  # a ConstVal default, or REQUIRED
    variadic: bool = False


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
    doc: str = ""


FUNCTIONS: dict[str, OpSpec] = {}
METHODS: dict[tuple[str, str], OpSpec] = {}


def _params(spec: str) -> tuple[ParamDef, ...]:
    """'x, axis, keepdims=False, *args' -> ParamDefs (defaults are Python literals)."""
    out = []
    for part in filter(None, (p.strip() for p in spec.split(","))):
        if part.startswith("*"):
            out.append(ParamDef(part[1:], variadic=True))
        elif "=" in part:
            name, default = part.split("=")
            out.append(ParamDef(name.strip(), eval(default.strip(), {})))
        else:
            out.append(ParamDef(part))
    return tuple(out)


def function(name: str, params: str, doc: str = "") -> Callable[[Rule], Rule]:
    def deco(rule: Rule) -> Rule:
        FUNCTIONS[name] = OpSpec(name, _params(params), rule, None, doc)
        return rule
    return deco


def method(receivers: str, name: str, params: str, doc: str = "") -> Callable[[Rule], Rule]:
    """The receiver arrives as the first parameter, 'self'."""
    def deco(rule: Rule) -> Rule:
        for receiver in receivers.split():
            METHODS[(receiver, name)] = OpSpec(name, _params("self, " + params), rule,
                                               receiver, doc)
        return rule
    return deco


def bind(b: Builder, spec: OpSpec, shown: str, args: Sequence[Arg], kwargs: dict[str, Arg],
         span: Span) -> Call:
    """Matches a call's arguments to the spec (CT110 on mismatch); fills literal defaults."""
    bound: dict[str, Arg] = {}
    fixed = [p for p in spec.params if not p.variadic]
    variadic = any(p.variadic for p in spec.params)
    given = len(args) - (1 if spec.receiver else 0)
    if len(args) > len(fixed) and not variadic:
        most = len(fixed) - (1 if spec.receiver else 0)
        b.fail(msg.TOO_MANY_ARGS, args[len(fixed)].span, name=shown, most=most,
               s="" if most == 1 else "s", given=given)
    for p, a in zip(fixed, args, strict=False):
        bound[p.name] = a
    rest = tuple(args[len(fixed):])
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
