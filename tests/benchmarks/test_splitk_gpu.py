"""Row 15 on the GPU at a small shape, end to end through `run_case` (every variant built,
checked against the f32 product, timed briefly): the H200 run of the suite cannot be the first
time the zeroed accumulator runner runs (run_case checks twice, each time on a C poisoned with
NaN: a launch that did not zero C first reads wrong)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from benchmarks.suite.config import SuiteConfig
from benchmarks.suite.plan import Case

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.gpu


def test_splitk_row_runs_end_to_end(cuda_torch: Any) -> None:
    torch = cuda_torch
    from benchmarks.suite.rows import splitk_gemm as row
    from benchmarks.suite.rows.common import Context
    from cutile.runtime import context

    m, n, k = 256, 320, 8192  # 320: a column of tiles overhangs C's edge
    case = Case(15, "splitk_gemm", f"{m}x{n}x{k}", "bf16", {"m": m, "n": n, "k": k},
                bytes=2 * (m * k + k * n) + 4 * m * n, flops=2 * m * n * k,
                metric_name="TFLOP/s")
    cfg = SuiteConfig(windows=3, shape_cap_s=0.05, window_bytes=1 << 26, rotate_bytes=1 << 26)
    old = context.set_current_stream(None)
    try:
        ctx = Context(cfg, ROOT, torch, print)
        recs = row.run(ctx, case)
        torch.cuda.synchronize()
    finally:
        context.set_current_stream(old)
    assert {(r.impl, r.variant) for r in recs} == set(row.variants(case))
    bad = [(r.impl, r.variant, r.status, r.reason) for r in recs
           if r.status != "ok" and not (r.status == "skipped" and "out_dtype" in r.reason)]
    assert not bad
    cutile = [r for r in recs if r.impl == "cutile"]
    assert cutile and all(r.rel_err is not None and r.rel_err <= 1e-5 for r in cutile)
    assert all(r.metric and "zero C" in r.launch_mode for r in cutile)
