"""The accumulator fuzzer (`--target acc`): a CI slice on the interpreter, proof that its check
finds a wrong element (inside the tensor, and one written outside a tile's reach), and the GPU
campaign under `-m gpu`."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from . import acc_target, campaign

ROOT = Path(__file__).resolve().parents[2]


def test_interpreter_campaign(tmp_path: Path) -> None:
    summary = campaign.run(acc_target, "acc", 150, "ci-acc", 60.0, tmp_path)
    assert summary.cases == 150
    assert not summary.failures, summary.line() + "\n" + "\n".join(
        f"{k}: {f.outcome.detail[-1500:]}" for k, f in summary.failures.items())


def test_the_cases_cover_every_form() -> None:
    cases = [acc_target.case(random.Random(i)) for i in range(400)]
    seen = {(c[0]["op"], c[0]["dtype"]) for c in cases}
    assert seen == {(op, d) for op, dts in acc_target.OPS.items() for d in dts}
    assert {c[0]["scatter"] for c in cases} == {True, False}
    assert {c[0]["wide"] for c in cases} == {True, False}  # i32 and i64 index tensors
    assert {len(c[0]["shape"]) for c in cases} == {1, 2}
    outside = [b for c in cases if not c[0]["scatter"] for b in c[1:]
               if any(w < 0 or w >= -(-n // t) for w, n, t in
                      zip(b["where"], c[0]["shape"], c[0]["tile"], strict=True))]
    assert len(outside) > 100  # tile indices past the edge, negative and huge


@pytest.mark.parametrize("where", ["inside", "outside"])
def test_a_wrong_element_is_reported(where: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """One element changed, where a block accumulated or where none could: the check fails."""
    c = [{"op": "add", "dtype": "i32", "shape": [10], "tile": [4], "scatter": False,
          "init": [0] * 10}, {"values": [1, 2, 3, 4], "where": [2]}]  # elements 8, 9 (ragged)
    real = acc_target.run

    def wrong(header: dict[str, Any], blocks: list[dict[str, Any]], backend: str) -> Any:
        out = real(header, blocks, backend)
        out[9 if where == "inside" else 0] += 1
        return out

    assert acc_target.check(c) is None
    monkeypatch.setattr(acc_target, "run", wrong)
    problem = acc_target.check(c)
    assert problem is not None and "1 element(s) differ" in problem


@pytest.mark.gpu
def test_cuda_campaign(tmp_path: Path) -> None:
    """Accumulations on the GPU (TMA reductions, per-element atomics) agree with NumPy, as on
    the interpreter (a fresh process: the campaign's workers fork before CUDA starts)."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    done = subprocess.run([sys.executable, "-m", "tests.fuzz", "--target", "acc", "--backend",
                           "cuda", "--n", "80", "--seed", "gpu-ci", "--out", str(tmp_path)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
