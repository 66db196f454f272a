"""The parity fuzzer (`--target parity`): a CI slice of random host programs on which the
checker reports no error the run does not raise, and proof that it finds one that it does."""

from __future__ import annotations

from pathlib import Path

import pytest

from cutile.diagnostics import messages as msg
from cutile.diagnostics.diagnostic import Diagnostic, Span

from . import campaign, parity_target

PROGRAMS = 40


@pytest.fixture(autouse=True)
def _harness() -> None:
    parity_target.setup()


@pytest.mark.filterwarnings("ignore")
def test_parity_budget(tmp_path: Path) -> None:
    summary = campaign.run(parity_target, "parity", PROGRAMS, "ci-parity", 60.0, tmp_path)
    assert summary.cases == PROGRAMS
    assert not summary.failures, summary.line() + "\n" + "\n".join(
        f"{k}: {f.outcome.detail[-1500:]}" for k, f in summary.failures.items())


def test_attribute_form_keeps_the_program() -> None:
    lines = ["t1 = ct.zeros((128,), ct.f32)", "p2 = t1.partition((64,))",
             "o3 = hk.inc(p2)", "p2, = o3.sync()"]
    assert parity_target.as_attributes(lines) == [
        "s.t1 = ct.zeros((128,), ct.f32)", "s.p2 = s.t1.partition((64,))",
        "s.o3 = hk.inc(s.p2)", "s.p2, = s.o3.sync()"]


@pytest.mark.filterwarnings("ignore")
def test_a_false_alarm_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """A checker that reports CT301 at a line the run passes is caught."""
    from cutile.checker import analyze

    real = analyze.analyze_source

    def crying_wolf(source: str, path: str) -> list[Diagnostic]:
        line = len(source.splitlines())
        return [*real(source, path), msg.USE_AFTER_MOVE.at(
            Span(path, line, 0, line, 1), name="t1", how="by .partition()")]

    monkeypatch.setattr(analyze, "analyze_source", crying_wolf)
    found = parity_target.check(["t1 = ct.zeros((128,), ct.f32)", "t1.numpy()"])
    assert found is not None and "CT301" in found



@pytest.mark.filterwarnings("ignore")
def test_a_launch_of_an_unseen_value_twice_may_run() -> None:
    """Seed s42x, case 1341: `hk.pair(p2, p2)` of a `p2` the checker cannot see raises CT302
    unless `p2` holds no element; here it holds none, so the launch runs and takes `p2`, and a
    later launch of `p2` raises CT301. The checker stays silent on both (it reported CT305 at
    the later one, taking the first to have raised)."""
    program = ["t1 = ct.arange(0, ct.f32)", "p2 = t1.partition((32,))",
               "o5 = hk.pair(p2, p2)", "p2, p2 = hk.cancel_await(o5)",
               "o6 = hk.pair(p2, p2)", "o8 = hk.loop(p2, 3, 2)"]
    assert parity_target.check(program) is None
    # the same with a second, known partition beside the unseen one
    known = ["t1 = ct.arange(0, ct.f32)", "p2 = t1.partition((32,))",
             "o5 = hk.pair(p2, p2)", "p2, p2 = hk.cancel_await(o5)",
             "p3 = ct.arange(0, ct.f32).partition((32,))",
             "o6 = hk.pair(p2, p2)", "o7 = hk.pair(p3, p2)", "o8 = hk.inc(p3)"]
    assert parity_target.check(known) is None
    # and after a branch that rebinds it to another unseen value: still doubtful after the join
    joined = [*program[:5], "if len(str(o6)) > 10**6:", "    p2 = hk.run_await(o6)[0]",
              "o8 = hk.loop(p2, 3, 2)"]
    assert parity_target.check(joined) is None
