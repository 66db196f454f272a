"""benchmarks/decode_trace.py runs (on the interpreter here): every launch of the first step is
named before it runs and timed after."""

from __future__ import annotations

import pytest

from benchmarks import decode_trace


def test_the_first_step_names_each_launch(capsys: pytest.CaptureFixture[str]) -> None:
    decode_trace.main(["--prompt", "20", "--steps", "2"])
    out = capsys.readouterr().out.splitlines()
    launches = [line for line in out if line.startswith("step 0 ")]
    assert launches and all(line.endswith(" ms") for line in launches)
    assert any("decode_attention" in line for line in launches)
    assert out[-1] == "done: 2 steps"
