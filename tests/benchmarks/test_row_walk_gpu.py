"""Rows 13-14 on the GPU at small shapes: the Triton peers written for them against float64
references (rows of widths no chunk divides), and each row end to end through `run_case` (every
implementation built, checked against the reference, timed briefly), so the H200 run of the
suite cannot be the first time these run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from benchmarks.suite.config import SuiteConfig
from benchmarks.suite.plan import Case

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.gpu


@pytest.mark.parametrize(("m", "n"), [(16, 1000), (8, 32001), (4, 151936)])
def test_triton_row_walk_peers_match_float64(m: int, n: int, cuda_torch: Any) -> None:
    torch = cuda_torch
    pytest.importorskip("triton")
    from benchmarks.suite.peers import triton_kernels as tk
    from benchmarks.suite.rows.cross_entropy import reference

    g = torch.Generator(device="cuda").manual_seed(n)
    x = torch.randn(m, n, device="cuda", generator=g) * 3
    t = torch.randint(0, n, (m,), device="cuda", generator=g)
    t[0] = n - 1
    y = torch.empty_like(x)
    tk.softmax_online(x, y, (4096, 8))
    torch.testing.assert_close(y.double(), torch.softmax(x.double(), -1), rtol=1e-4, atol=1e-9)
    want_loss, want_grad = reference(torch, x, t)
    loss = torch.empty(m, device="cuda")
    tk.cross_entropy(x, t.to(torch.int32), loss, (4096, 8))  # x now holds the gradient
    torch.testing.assert_close(loss.double().sum().reshape(1), want_loss.double(), rtol=1e-5,
                               atol=0.0)
    torch.testing.assert_close(x, want_grad, rtol=1e-4, atol=1e-9)


@pytest.mark.parametrize("kernel", ["cross_entropy", "softmax_rows"])
def test_row_runs_end_to_end(kernel: str, cuda_torch: Any) -> None:
    torch = cuda_torch
    import importlib

    from benchmarks.suite.rows.common import Context
    from cutile.runtime import context

    m, n = 64, 32000
    row = {"cross_entropy": 13, "softmax_rows": 14}[kernel]
    case = Case(row, kernel, f"{m}x{n}", "f32", {"m": m, "n": n}, bytes=2 * m * n * 4)
    cfg = SuiteConfig(windows=3, shape_cap_s=0.05, window_bytes=1 << 26, rotate_bytes=1 << 26)
    mod = importlib.import_module(f"benchmarks.suite.rows.{kernel}")
    old = context.set_current_stream(None)
    try:
        ctx = Context(cfg, ROOT, torch, print)  # points cutile at its own torch stream
        recs = mod.run(ctx, case)
        torch.cuda.synchronize()
    finally:
        context.set_current_stream(old)  # the stream dies with ctx: later tests must not use it
    assert {(r.impl, r.variant) for r in recs} == set(mod.variants(case))
    bad = [(r.impl, r.variant, r.status, r.reason) for r in recs if r.status != "ok"]
    assert not bad
    assert all(r.metric and r.rel_err is not None and r.rel_err <= 1e-4 for r in recs)
