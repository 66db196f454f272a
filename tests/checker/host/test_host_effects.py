"""Host API calls the checker follows by their registry entry's effect (checker/host/
effects.py, hostapi.py), each compared with the interpreter as the parity test does: the same
codes on the same lines. These go beyond the golden record's corpus (test_host_golden.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hostcheck import expected, found, run, with_prelude
from test_host_parity import _compare

CASES = {
    "empty-is-a-constructor": """
t = ct.empty((1024,), f32)
p = t.partition((128,))
t.numpy()  # E: CT301
""",
    "from-numpy-positional-dtype": """
import numpy as np
x = ct.from_numpy(np.ones(1024, np.float32), f16)
z = ct.zeros((1024,), f32).partition((128,))
z, x, _ = scale(z, x, 1.0).sync()  # E: CT406
""",
    "meta-tensor-has-no-elements-to-read": """
m = ct.meta((128,), f32)
m.numpy()  # E: CT406
m.partition((128,)).numpy()  # E: CT406
""",
    "partition-read-of-a-region-being-written": """
t = ct.zeros((256,), f32)
x = ct.ones((256,), f32)
pc = t[0:64].partition((64,))
op = scale(t[0:128].partition((128,)), x, 1.0)
pc.numpy()  # E: CT307
op.sync()
pc.numpy()
""",
    "dlpack-export-of-a-region-being-written": """
t = ct.zeros((256,), f32)
x = ct.ones((256,), f32)
op = scale(t[0:128].partition((128,)), x, 1.0)
t[128:256].__dlpack__()
t[0:64].__dlpack__()  # E: CT307
op.sync()
t[0:64].__dlpack__()
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_checker_reports_the_expected_codes(name: str) -> None:
    source = with_prelude(CASES[name])
    assert found(run(source)) == expected(source)


@pytest.mark.parametrize("name", sorted(CASES))
def test_interpreter_agrees(name: str, tmp_path: Path) -> None:
    path = tmp_path / "case.py"
    path.write_text(with_prelude(CASES[name]))
    _compare(path)
