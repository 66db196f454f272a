"""Kernel options are declared once (compiler/kernel_options.py) and every user of them follows
the declaration: the decorator's edit-time check, `with_hints`, autotune configs, the lowering's
entry hints and their version gate, the tileiras optimization level, the typing of
`@ct.kernel(...)` / `with_hints(...)`, and the docs table."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from lower_util import ROOT, example, module, script, spec_for

import cutile as ct
from cutile.compiler import check_source
from cutile.compiler.bytecode import SUPPORTED, decode, encode
from cutile.compiler.bytecode.attrs import IntegerAttr
from cutile.compiler.compile import lower_kernel, specialization_key
from cutile.compiler.kernel_options import (
    HINTS,
    OPTIONS,
    EntryHint,
    KernelOption,
    OneOf,
    Range,
    Tileiras,
    option_problem,
)
from cutile.diagnostics.errors import CutileError

SOURCE = '''import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel{options}
def k(z: Mut[Tensor[f32, (128,)]]) -> None:
{wait}    z.store(ct.zeros((128,), f32))
'''


def _source(name: str, value: object) -> str:
    """SOURCE with the option; a pdl=True kernel also waits for its predecessor (CT116)."""
    wait = "    ct.wait_for_predecessor()\n" if name == "pdl" and value is True else ""
    return SOURCE.format(options=f"({name}={value!r})", wait=wait)


def valid_values(option: KernelOption) -> list[object]:
    """Values the declaration accepts: both ends of a range, every listed value, both bools,
    and None where the option is optional."""
    valid = option.spec.valid
    out: list[object] = []
    if isinstance(valid, Range):
        out += [valid.lo, valid.hi]
    elif isinstance(valid, OneOf):
        out += list(valid.values)
    elif option.base is bool:
        out += [True, False]
    return out + ([None] if option.optional else [])


def invalid_values(option: KernelOption) -> list[object]:
    """Values it rejects: just outside a range, an int between or past the listed values, a
    float, a bool for an int option, and an int (or None) for a bool one."""
    valid = option.spec.valid
    if option.base is bool:
        return [1, "yes"] + ([] if option.optional else [None])
    out: list[object] = [1.5, True]
    if isinstance(valid, Range):
        out += [valid.lo - 1, valid.hi + 1]
    elif isinstance(valid, OneOf):
        out.append(next(v for v in range(min(valid.values), max(valid.values) + 2)
                        if v not in valid.values))
    return out


CASES = [(o.name, v, True) for o in OPTIONS.values() for v in valid_values(o)] + [
    (o.name, v, False) for o in OPTIONS.values() for v in invalid_values(o)]
IDS = [f"{n}={v!r}" for n, v, _ in CASES]


@pytest.mark.parametrize(("name", "value", "ok"), CASES, ids=IDS)
def test_the_decorator_is_checked_at_edit_time_by_the_declaration(name: str, value: object,
                                                                  ok: bool) -> None:
    diags = check_source(_source(name, value), "k.py")
    if ok:  # no error (an unsafe kernel is the warning CT115, tests/cases/frontend)
        assert [d for d in diags if d.severity.value == "error"] == []
        return
    problem = option_problem(name, value)
    assert problem is not None
    assert [(d.code, d.span.line) for d in diags] == [("CT114", 5)]
    assert diags[0].message == f"kernel option '{name}' {problem}"


@pytest.mark.parametrize(("name", "value", "ok"), CASES, ids=IDS)
def test_with_hints_and_configs_follow_the_declaration(name: str, value: object, ok: bool
                                                       ) -> None:
    """A hint takes the same values per launch configuration as in the decorator, with the
    same words; an option that is not a hint is refused there."""
    add = example("add").add
    problem = option_problem(name, value) if name in HINTS else (
        f"is not a hint (hints: {', '.join(HINTS)})")
    if ok and name in HINTS:
        assert add.with_hints(**{name: value}).hints == (
            () if value is None else ((name, value),))
        ct.autotune(add, configs=[ct.Config(**{name: value})])
        return
    with pytest.raises(CutileError) as err:
        add.with_hints(**{name: value})
    assert err.value.diagnostics[0].code == "CT114"
    assert err.value.diagnostics[0].message == f"kernel option '{name}' {problem}"
    if name in HINTS:
        with pytest.raises(CutileError) as err:
            ct.autotune(add, configs=[ct.Config(**{name: value})])
        assert err.value.diagnostics[0].code == "CT114"
        assert f"'{name}' {problem}" in err.value.diagnostics[0].message


ENTRY = [o for o in OPTIONS.values() if isinstance(o.spec.becomes, EntryHint)]


@pytest.mark.parametrize("option", ENTRY, ids=[o.name for o in ENTRY])
@pytest.mark.parametrize("via", ["decorator", "with_hints"])
def test_entry_hints_reach_the_bytecode_from_their_version_on(option: KernelOption, via: str
                                                              ) -> None:
    """Each entry hint is written under its Tile IR key as an i32, in every version we write
    that has the key, and left out of older ones."""
    hint = option.spec.becomes
    assert isinstance(hint, EntryHint)
    value = valid_values(option)[-2 if option.optional else -1]
    source = SOURCE.format(options=f"({option.name}={value!r})" if via == "decorator" else "",
                           wait="")
    info = module("k.py", source)
    spec = spec_for(info, "k", {})
    if via == "with_hints":
        spec = replace(spec, hints=((option.name, value),))
    lowered = lower_kernel(info, "k", spec)
    for version in SUPPORTED:
        hints = decode(encode(lowered.module, version)).functions[0].hints
        written = dict(hints.by_arch[0][1].items) if hints is not None else {}
        if version >= hint.since:
            assert hints is not None and hints.by_arch[0][0] == "default"
            got = written[hint.key]
            assert isinstance(got, IntegerAttr) and got.value == value
        else:
            assert hint.key not in written


def test_the_optimization_level_is_the_compile_keys() -> None:
    (option,) = [o for o in OPTIONS.values() if isinstance(o.spec.becomes, Tileiras)]
    assert option.spec.becomes == Tileiras("--opt-level")
    info = module("k.py", SOURCE.format(options="", wait=""))
    spec = spec_for(info, "k", {})
    assert specialization_key(info, "k", spec).opt_level == option.spec.default
    for value in valid_values(option):
        hinted = replace(spec, hints=((option.name, value),))
        want = option.spec.default if value is None else value
        assert specialization_key(info, "k", hinted).opt_level == want
        assert lower_kernel(info, "k", hinted).opt_level == want


def test_the_docs_table_is_current() -> None:
    assert script("gen_options").main(["--check"]) == 0, "run: python scripts/gen_options.py"
    text = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    for option in OPTIONS.values():
        assert f"| `{option.name}` |" in text and option.spec.doc in text


TYPED = '''import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel(occupancy=2, worker_warps=8, unsafe=False, num_ctas=None)
def good(z: Mut[Tensor[f32, (128,)]]) -> None:
    z.store(ct.zeros((128,), f32))


tuned = good.with_hints(opt_level=2, occupancy=None)


@ct.kernel(warps=4)
def unknown(z: Mut[Tensor[f32, (128,)]]) -> None:
    z.store(ct.zeros((128,), f32))


@ct.kernel(occupancy="2")
def text(z: Mut[Tensor[f32, (128,)]]) -> None:
    z.store(ct.zeros((128,), f32))


not_a_hint = good.with_hints(unsafe=True)
misspelt = good.with_hints(ocupancy=2)
'''


@pytest.mark.slow
def test_mypy_checks_option_names_and_types(tmp_path: Path) -> None:
    """The decorator's and with_hints' keywords are typed from the declaration."""
    path = tmp_path / "user_options.py"
    path.write_text(TYPED)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MYPY")}
    env["MYPYPATH"] = str(ROOT)  # as tests/test_dsl_typing.py: the checkout's typed package
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir",
         str(tmp_path / ".mypy_cache"), str(path)],
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)
    lines = sorted({int(line.split(":")[1]) for line in proc.stdout.splitlines()
                    if line.startswith(str(path)) and ": error:" in line})
    want = [i + 1 for i, text in enumerate(TYPED.splitlines())
            if text.startswith(("@ct.kernel(warps", "@ct.kernel(occupancy=\"", "not_a_hint",
                                "misspelt"))]
    assert lines == want, proc.stdout
