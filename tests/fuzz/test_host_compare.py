"""The host fuzzer's backend comparison (`--target host --backend ...`): a CI slice on the CPU
(the interpreter against itself and NumPy), proof that it finds what it looks for, and the GPU
campaign under `-m gpu`."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from . import campaign, host_kernels, host_target

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = 60


@pytest.fixture
def comparing() -> Iterator[None]:
    host_target.configure("interpreter")
    try:
        yield
    finally:
        host_target.configure(None)


def test_interpreter_compare_budget(comparing: None, tmp_path: Path) -> None:
    summary = campaign.run(host_target, "host", PROGRAMS, "ci-compare", 30.0, tmp_path)
    assert summary.cases == PROGRAMS
    assert not summary.failures, summary.line() + "\n" + "\n".join(
        f"{k}: {f.outcome.detail[-1500:]}" for k, f in summary.failures.items())


@pytest.mark.filterwarnings("ignore")  # launches the programs drop (CT305 warnings)
def test_the_programs_launch_and_check_models(comparing: None,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison has something to compare: programs run launches that hand back, and
    those are held to the kernels' NumPy models."""
    import random

    from cutile.runtime.backends.interpreter import InterpreterBackend

    checked: list[str] = []
    for name, model in list(host_kernels.MODELS.items()):
        def counted(*args: object, name: str = name, model: object = model) -> object:
            checked.append(name)
            return model(*args)  # type: ignore[operator]
        monkeypatch.setitem(host_kernels.MODELS, name, counted)
    for i in range(PROGRAMS):
        host_target.run_on(host_target.case(random.Random(f"models:{i}"), 0),
                           InterpreterBackend())
    assert len(checked) >= PROGRAMS // 6 and len(set(checked)) >= 3, checked


def test_a_wrong_result_is_found_and_shrunk(comparing: None, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A kernel whose result is off by one (here: its model) is reported with a short repro."""
    monkeypatch.setitem(host_kernels.MODELS, "inc", lambda z: {0: np.asarray(z) + 2})
    summary = campaign.run(host_target, "host", PROGRAMS, "ci-compare", 30.0, tmp_path)
    keys = [k for k in summary.failures if "hk.inc differs from its NumPy model" in k]
    assert keys, summary.line()
    repro = summary.failures[keys[0]].repro
    assert repro is not None and "hk.inc(" in repro.read_text()


def test_the_compiled_and_python_launch_paths_agree(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """`--backend python-path`: each program on the interpreter with the compiled launch path,
    then with every compiled piece handing its calls to its Python twin; and the comparison
    sees a twin that misbehaves (a completion that leaves the Mut handles held)."""
    from cutile.runtime import native
    from cutile.runtime.ops import LaunchOp

    if not native.available():
        pytest.skip("the extension is not built")
    host_target.configure("python-path")
    try:
        summary = campaign.run(host_target, "host", PROGRAMS, "ci-paths", 30.0, tmp_path)
        assert summary.cases == PROGRAMS and not summary.failures, summary.line()
        real = LaunchOp._complete_py  # type: ignore[attr-defined]

        def moves_its_results(op: LaunchOp) -> None:  # a twin that hands back moved handles
            results, muts = op._results, op._muts
            real(op)
            for i in muts:
                if i < len(results):
                    results[i]._move("by a broken completion", op.site)

        monkeypatch.setattr(LaunchOp, "_complete_py", moves_its_results)
        summary = campaign.run(host_target, "host", PROGRAMS, "ci-paths", 30.0, tmp_path / "b")
        assert any("differs" in k for k in summary.failures), summary.line()
    finally:
        host_target.configure(None)


def test_final_contents_and_outcomes_are_compared() -> None:
    a = host_target.Trace(["ok", "error CT406"], {"t1": np.ones(4, np.float32), "r": 1},
                          {"r"})
    b = host_target.Trace(["ok", "error CT406"], {"t1": np.ones(4, np.float32), "r": 2})
    assert host_target._compare_final(a, b, "cuda") == []  # r is an unseeded draw
    b.final["t1"] = np.array([1, 1, 1, np.nan], np.float32)
    (problem,) = host_target._compare_final(a, b, "cuda")
    assert problem.startswith("contents differ at the end") and "t1" in problem
    nan = host_target.Trace([], {"t1": np.array([np.nan], np.float32)})
    assert host_target._compare_final(nan, nan, "cuda") == []


@pytest.mark.gpu
def test_cuda_compare_campaign(tmp_path: Path) -> None:
    """Host programs on the GPU agree with the interpreter and NumPy (a fresh process: the
    campaign's workers fork, which CUDA allows only before it starts)."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    done = subprocess.run([sys.executable, "-m", "tests.fuzz", "--target", "host", "--backend",
                           "cuda", "--n", "300", "--seed", "gpu-ci", "--out", str(tmp_path)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
