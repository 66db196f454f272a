"""The checker's host evaluator: one core that finds every host API entry's handler, and
topic modules below it (no import cycles in checker/, nothing imports the core but check.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from cutile.checker.host.core import HANDLERS
from cutile.checker.host.handlers import Handlers
from cutile.compiler.hostapi import HOST_API, Effect

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "scripts"))

import import_cycles  # noqa: E402


@pytest.mark.parametrize("key", sorted(HOST_API), ids=lambda k: ".".join(k))
def test_every_entry_has_a_handler(key: tuple[str, str]) -> None:
    assert HANDLERS.find(HOST_API[key]) is not None


def test_entries_whose_effect_is_not_enough_have_their_own() -> None:
    for effect in (Effect.MOVES, Effect.VIEWS, Effect.WAITS, Effect.ENQUEUES):
        assert effect not in HANDLERS.by_effect
    assert set(HANDLERS.by_effect) == {Effect.CREATES, Effect.READS, Effect.WRITES,
                                       Effect.INSPECTS}


def test_a_handler_needs_a_declared_entry() -> None:
    with pytest.raises(ValueError, match=r"no host API entry tensor\.frobnicate"):
        Handlers().entry("tensor", "frobnicate")


def test_two_handlers_for_one_entry_are_refused() -> None:
    a, b = Handlers(), Handlers()
    for table in (a, b):
        table.entry("tensor", "narrow")(lambda ctx, st, use: use.value)  # type: ignore
    with pytest.raises(ValueError, match="two handlers"):
        a.update(b)


def test_no_import_cycle_over_two_modules_in_the_checker() -> None:
    comps = import_cycles.components(import_cycles.graph(nested=True))
    big = [c for c in comps if len(c) > 2 and any(m.startswith("cutile.checker") for m in c)]
    assert big == []


def test_topic_modules_sit_below_the_core() -> None:
    edges = import_cycles.graph(nested=True, typing=True)
    host = "cutile.checker.host"
    above = {f"{host}.core", f"{host}.check", host}
    for module, targets in edges.items():
        if module.startswith(host + ".") and module not in above:
            assert not targets & above, (module, targets & above)


def test_a_statement_the_analysis_fails_on_costs_that_statement_only(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A checker bug (here: the `.sync()` handler raising) is CT999 at its statement; the
    scope's other findings stay, and the names the statement touched report nothing more."""
    from hostcheck import run, with_prelude

    def broken(*_: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setitem(HANDLERS.by_entry, ("op", "sync"), broken)
    source = with_prelude('''
def f():
    x = ct.ones((256,), f32)
    z = ct.zeros((256,), f32).partition((128,))
    y = ct.zeros((256,), f32).partition((128,))
    z.unpartition()
    op = scale(z, x, 2.0)  # E: CT301
    scale(y, x, 2.0).sync()  # E: CT999
    w = y.unpartition()
    return op, w
''')
    found = sorted((d.span.line, d.code) for d in run(source))
    lines = source.splitlines()
    assert found == [(i + 1, code) for i, line in enumerate(lines)
                     for code in ("CT301", "CT999") if f"# E: {code}" in line]
    diag = next(d for d in run(source) if d.code == "CT999")
    assert diag.message == "internal error in cutile: host analysis failed: RuntimeError: boom"
