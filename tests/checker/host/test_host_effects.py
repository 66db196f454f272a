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
    "fill-then-launch": """
x = ct.ones((1024,), f32)
x.fill_(2.0)
y = ct.zeros((1024,), f32).fill_(1.0)
z = ct.zeros((1024,), f32).partition((128,))
z, x, _ = scale(z, x, 1.0).sync()
x.fill_(0.0)
y.fill_(3)
""",
    "fill-of-a-moved-tensor": """
t = ct.zeros((1024,), f32)
p = t.partition((128,))
t.fill_(1.0)  # E: CT301
""",
    "fill-while-a-launch-reads-it": """
x = ct.ones((1024,), f32)
op = scale(ct.zeros((1024,), f32).partition((128,)), x, 1.0)
x.fill_(0.0)  # E: CT303
op.sync()
x.fill_(0.0)
""",
    "fill-of-a-region-a-launch-writes": """
t = ct.zeros((256,), f32)
x = ct.ones((256,), f32)
lo, hi = t.split_at(0, 128)
op = scale(lo.partition((128,)), x, 1.0)
hi.fill_(5.0)
t[100:140].fill_(1.0)  # E: CT307
op.sync()
t.fill_(1.0)
""",
    "fill-of-a-meta-tensor": """
ct.meta((128,), f32).fill_(0.0)  # E: CT406
""",
    "fill-on-a-launch": """
op = scale(ct.zeros((1024,), f32).partition((128,)), ct.ones((1024,), f32), 1.0)
op.fill_(0.0)  # E: CT406
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
