"""Ownership facts for editors: the state of each tensor, partition and launch at its names."""

from __future__ import annotations

import re

from hostcheck import PRELUDE, run

from cutile.checker.host import OwnershipFact, ownership_facts, ownership_view
from cutile.diagnostics.diagnostic import Diagnostic
from cutile.reader.source import ModuleInfo, parse_module

QUICK_START = PRELUDE + '''\
def main() -> None:
    x = ct.ones((1024,), f32)
    y = ct.ones((1024,), f32)
    z = ct.zeros((1024,), f32)
    zp = z.partition((128,))
    op = add(zp, x, y)
    print(x)
    zp, x, y = op.sync()
    print(zp, x)
'''


def _info(source: str) -> ModuleInfo:
    info = parse_module(source, "case.py")
    assert not isinstance(info, Diagnostic), info
    return info


def _line(source: str, text: str) -> int:
    """1-based number of the only line that contains `text`."""
    [n] = [i for i, line in enumerate(source.splitlines(), 1) if text in line]
    return n


def _at(facts: list[OwnershipFact], source: str, line_text: str, name: str,
        nth: int = 0) -> list[str]:
    """Summaries recorded at the `nth` occurrence of `name` on the line holding `line_text`."""
    line = _line(source, line_text)
    text = source.splitlines()[line - 1]
    col = [m.start() for m in re.finditer(rf"\b{name}\b", text)][nth]
    return [f.summary for f in facts
            if f.name == name and (f.span.line, f.span.col) == (line, col)
            and f.span.end_col == col + len(name)]


def test_quick_start_states() -> None:
    facts = ownership_facts(_info(QUICK_START))
    src = QUICK_START
    launch_line = _line(src, "op = add(")
    part_line = _line(src, "zp = z.partition")
    assert _at(facts, src, "x = ct.ones", "x") == ["live tensor (f32, shape (1024,))"]
    # At `z.partition(...)`: live when the call starts, moved by it.
    assert _at(facts, src, "zp = z.partition", "z") == [
        "live tensor (f32, shape (1024,))", f"moved into the partition at line {part_line}"]
    assert _at(facts, src, "zp = z.partition", "zp") == [
        "partition of z, tile (128,) (f32, shape (1024,), grid (8,))"]
    # The launch moves zp and leases the read-only inputs while it is pending.
    assert _at(facts, src, "op = add(", "zp")[-1] == (
        f"moved into a launch of 'add' at line {launch_line} (not yet synced)")
    leased = (f"live tensor (f32, shape (1024,)), read by a pending launch of 'add' "
              f"(line {launch_line})")
    assert _at(facts, src, "op = add(", "x")[-1] == leased
    assert _at(facts, src, "print(x)", "x") == [leased]
    assert _at(facts, src, "op = add(", "op") == [f"launch of 'add' (line {launch_line}), "
                                                  "not yet run"]
    assert _at(facts, src, "op.sync()", "op")[-1].endswith("no longer pending (synced, "
                                                           "chained or captured)")
    # Rebinding from .sync() makes them live again, and the lease is over.
    assert _at(facts, src, "zp, x, y = op.sync()", "zp") == [
        "partition of z, tile (128,) (f32, shape (1024,), grid (8,))"]
    assert _at(facts, src, "print(zp, x)", "x") == ["live tensor (f32, shape (1024,))"]
    assert run(QUICK_START) == []


def test_lease_by_two_pending_launches_and_a_use_after_move() -> None:
    src = PRELUDE + '''\
x = ct.ones((1024,), f32)
a = ct.zeros((1024,), f32).partition((128,))
b = ct.zeros((1024,), f32).partition((128,))
first = scale(a, x, 2.0)
second = scale(b, x, 3.0)
print(x)
print(a)
'''
    facts = ownership_facts(_info(src))
    one, two = _line(src, "first = "), _line(src, "second = ")
    assert _at(facts, src, "print(x)", "x") == [
        f"live tensor (f32, shape (1024,)), read by 2 pending launches: 'scale' (line {one}), "
        f"'scale' (line {two})"]
    # The use after move is reported once, and its hover says why.
    assert _at(facts, src, "print(a)", "a") == [
        f"moved into a launch of 'scale' at line {one} (not yet synced)"]
    assert [d.code for d in run(src)] == ["CT305", "CT305", "CT301"]


def test_unknown_values_record_nothing() -> None:
    src = PRELUDE + '''\
def f(t):
    u = t.partition((128,))
    v = make()
    w = ct.zeros((1024,), f32)
    keep(w)
    print(w, u, v)
'''
    facts = ownership_facts(_info(src))
    assert {f.name for f in facts} == {"w"}
    assert _at(facts, src, "keep(w)", "w")[-1] == (
        "handed to code the checker does not follow: not checked from here on")


def test_a_loop_keeps_the_facts_of_its_stable_pass() -> None:
    src = PRELUDE + '''\
z = ct.zeros((1024,), f32)
for _ in range(4):
    print(z)
    zp = z.partition((128,))
'''
    facts = ownership_facts(_info(src))
    # Pass one saw z live at print(z); the loop head after a pass has it moved.
    assert _at(facts, src, "print(z)", "z") == [
        f"moved into the partition at line {_line(src, 'zp = z.partition')}"]


def test_names_and_scopes() -> None:
    src = PRELUDE + '''\
def outer():
    x = ct.ones((1024,), f32)

    def inner():
        x = ct.zeros((64,), f32)
        return x
    return x
'''
    view = ownership_view(_info(src))
    scopes = {f.scope for f in view.facts if f.name == "x"}
    assert len(scopes) == 2
    inner = [f for f in view.facts if f.name == "x" and f.summary.endswith("(64,))")]
    assert inner and all(f.scope.line == _line(src, "def inner") for f in inner)
    inner_return, outer_return = [i for i, line in enumerate(src.splitlines(), 1)
                                  if line.strip() == "return x"]
    binds = sorted((n.span.line, n.binds) for n in view.names if n.name == "x")
    assert binds == [(_line(src, "x = ct.ones"), True), (_line(src, "x = ct.zeros"), True),
                     (inner_return, False), (outer_return, False)]
    # Each `return x` has the fact of its own scope's x.
    assert [f.summary for f in view.facts if f.span.line == outer_return] == [
        "live tensor (f32, shape (1024,))"]
