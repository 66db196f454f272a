"""Kernel options, declared once: every keyword `@ct.kernel(...)` takes.

`KernelHints` and `KernelOptions` below are the declaration. Each key is one option:
- its name and Python type are the key and its annotation, so mypy and pyright check
  `@ct.kernel(...)` and `kernel.with_hints(...)` against them (`Unpack`, runtime/kernel.py);
- its `Option` says what a valid value is (`Range` / `OneOf`: the test and the plain words of
  CT114, the same from the checker, `with_hints` and `ct.Config`), where the value goes (the
  frontend, a Tile IR entry hint with its key and first bytecode version, or a tileiras flag),
  its default and its doc line (docs/language.md's table: `scripts/gen_options.py`).

The hints (`KernelHints`) only tune code generation, so a launch configuration may change them
(`with_hints`, autotune configs); `unsafe` changes what the kernel may do and `pdl` when it may
start (compiler/pdl.py), so only the decorator sets them. Adding an entry hint that Tile IR has
is one line in `KernelHints`: the lowering writes it (`entry_hints`), the encoder leaves it
out of bytecode older than its `since`, and the checks, the typing and the docs follow.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import NoneType, UnionType
from typing import Annotated, Any, Literal, TypedDict, get_args, get_type_hints

from .bytecode.attrs import Hints
from .bytecode.version import V13_1, V13_3, Version


@dataclass(frozen=True)
class Range:
    """An int from `lo` to `hi`, both included."""

    lo: int
    hi: int
    unit: str = ""  # what the number counts, said after it in messages

    def accepts(self, value: int) -> bool:
        return self.lo <= value <= self.hi

    def words(self) -> str:
        return _with_unit(f"an int from {self.lo} to {self.hi}", self.unit)


@dataclass(frozen=True)
class OneOf:
    """One of a few ints."""

    values: tuple[int, ...]
    unit: str = ""

    def accepts(self, value: int) -> bool:
        return value in self.values

    def words(self) -> str:
        *rest, last = map(str, self.values)
        return _with_unit(f"{', '.join(rest)} or {last}" if rest else last, self.unit)


def _with_unit(text: str, unit: str) -> str:
    return f"{text} ({unit})" if unit else text


@dataclass(frozen=True)
class EntryHint:
    """A key of the Tile IR entry's `optimization_hints`, written as an i32 under the "default"
    target; bytecode older than `since` has no such key, so the encoder leaves it out (a hint
    only tunes code generation: an older tileiras compiles the same kernel without it)."""

    key: str
    since: Version = V13_1


@dataclass(frozen=True)
class Tileiras:
    """A tileiras command-line flag (the compile cache key holds the value)."""

    flag: str


# the frontend reads the value itself (what the kernel may do)
FRONTEND: Literal["frontend"] = "frontend"


@dataclass(frozen=True)
class Option:
    """One option's declaration, the metadata of its annotation."""

    doc: str
    becomes: EntryHint | Tileiras | Literal["frontend"]
    valid: Range | OneOf | None = None  # None: any value of the type (a bool)
    default: object = None  # None: tileiras chooses


class KernelHints(TypedDict, total=False):
    """The code-generation hints: `kernel.with_hints(...)`, `ct.Config(...)`, the decorator."""

    occupancy: Annotated[int | None, Option(
        "CTAs per SM to plan for: tileiras then budgets registers as 65,536 / (occupancy x "
        "threads)", EntryHint("occupancy"), Range(1, 32, "CTAs per SM"))]
    num_ctas: Annotated[int | None, Option(
        "CTAs per cluster", EntryHint("num_cta_in_cga"), OneOf((1, 2, 4, 8, 16),
                                                               "CTAs per cluster"))]
    opt_level: Annotated[int | None, Option(
        "tileiras' optimization level", Tileiras("--opt-level"), Range(0, 3), default=3)]
    worker_warps: Annotated[int | None, Option(
        "the warps that do the math in each CTA; tileiras adds its own producer warps (8 gives "
        "the softmax example a 384-thread CTA where the default gives 256)",
        EntryHint("num_worker_warps_per_cta", since=V13_3), OneOf((4, 8), "math warps per CTA"))]


class KernelOptions(KernelHints, total=False):
    """Everything `@ct.kernel(...)` takes: the hints and the options only the decorator sets."""

    unsafe: Annotated[bool, Option(
        "allows the unsafe operations (scatters, index-addressed stores: CT112); each unsafe "
        "kernel is reported (CT115)", FRONTEND, default=False)]
    pdl: Annotated[bool, Option(
        "programmatic dependent launch (sm_90+): in a `.then` chain or its graph the kernel may "
        "start while the launch before it still runs; it calls `ct.wait_for_predecessor()` "
        "once, before touching what that launch writes (CT116, CT308)", FRONTEND,
        default=False)]


@dataclass(frozen=True)
class KernelOption:
    """A declared option: its name, its Python type and its `Option`."""

    name: str
    type: Any  # bool, or int | None
    spec: Option

    @property
    def optional(self) -> bool:
        """None is a value (the default: tileiras chooses)."""
        return isinstance(self.type, UnionType) and NoneType in get_args(self.type)

    @property
    def base(self) -> type:
        """The type of a value other than None."""
        args = [a for a in get_args(self.type) if a is not NoneType] or [self.type]
        base: type = args[0]
        return base

    def words(self) -> str:
        """What a valid value is, in plain words."""
        if self.spec.valid is not None:
            return self.spec.valid.words()
        return "True or False" if self.base is bool else f"a {self.base.__name__}"

    def problem(self, value: object) -> str | None:
        """Why `value` is not valid for this option, in plain words; None when it is."""
        if value is None and self.optional:
            return None
        if self.base is bool:
            return None if isinstance(value, bool) else f"must be {self.words()}"
        if isinstance(value, bool) or not isinstance(value, self.base) or (
                self.spec.valid is not None and not self.spec.valid.accepts(value)):
            return f"must be {self.words()}, not {value!r}"
        return None


def _declared(td: type, skip: Iterable[str] = ()) -> dict[str, KernelOption]:
    out = {}
    for name, ann in get_type_hints(td, include_extras=True).items():
        if name in skip:
            continue
        typ, spec = get_args(ann)[:2]
        assert isinstance(spec, Option), f"option {name} has no Option"
        out[name] = KernelOption(name, typ, spec)
    return out


HINTS: dict[str, KernelOption] = _declared(KernelHints)
# the decorator-only options first, then the hints (the order CT114 lists them in)
OPTIONS: dict[str, KernelOption] = {**_declared(KernelOptions, skip=HINTS), **HINTS}


def option_problem(name: str, value: object) -> str | None:
    """Why `name=value` is not a valid kernel option, in plain words; None when it is."""
    option = OPTIONS.get(name)
    if option is None:
        return f"is not a kernel option (options: {', '.join(OPTIONS)})"
    return option.problem(value)


def hint_problem(name: str, value: object) -> str | None:
    """The same for a hint given per launch configuration (`with_hints`)."""
    if name not in HINTS:
        return f"is not a hint (hints: {', '.join(HINTS)})"
    return HINTS[name].problem(value)


def merged(options: Mapping[str, Any], hints: Iterable[tuple[str, Any]]) -> dict[str, Any]:
    """The decorator's options with a specialization's hints (`with_hints`) over them: what
    the lowering writes, so what the compile cache key holds."""
    return {**options, **dict(hints)}


def entry_hints(options: Mapping[str, Any]) -> Hints | None:
    """The Tile IR entry's optimization hints for these (merged) options, in their order; None
    when no entry hint is set."""
    values: dict[str, int] = {}
    since: dict[str, Version] = {}
    for name, value in options.items():
        option = OPTIONS.get(name)
        if option is None or value is None or not isinstance(option.spec.becomes, EntryHint):
            continue
        key = option.spec.becomes.key
        values[key], since[key] = int(value), option.spec.becomes.since
    return Hints.entry("default", since=tuple(since.items()), **values) if values else None


def opt_level(options: Mapping[str, Any]) -> int:
    """The tileiras optimization level these (merged) options ask for."""
    value = options.get("opt_level")
    default = OPTIONS["opt_level"].spec.default
    assert isinstance(default, int)
    return value if isinstance(value, int) and not isinstance(value, bool) else default
