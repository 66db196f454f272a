"""CPU checks of the GPU benchmark suite (benchmarks/suite): the plan, the cutile kernels it
launches (shared frontend, specialized as launched), the time estimate, and the JSON / Markdown /
plot writers on made-up records (written to a temporary directory, never committed)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from benchmarks.suite import __main__ as cli
from benchmarks.suite import dryrun, plots, records, report, targets, timing, tuning
from benchmarks.suite.config import SuiteConfig
from benchmarks.suite.plan import ROWS, build_plan
from benchmarks.suite.records import Record
from benchmarks.suite.tuning import KERNELS, cutile_variants

ROOT = Path(__file__).resolve().parents[2]


def test_plan_covers_every_row_of_benchmarks_md() -> None:
    plan = build_plan(quick=False)
    # row 10 (Qwen3 decode, minutes per size) runs only when named (test_qwen3_row.py)
    assert {c.row for c in plan} == {*range(10), 11, 12, 13, 14, 15}
    shapes = {(c.kernel, c.shape, c.dtype) for c in plan}
    for e in (20, 28):
        for dt in ("f16", "f32"):
            assert ("vector_add", f"N=2^{e}", dt) in shapes
    for s in (2048, 4096, 8192, 16384):
        assert ("gemm", f"{s}^3", "bf16") in shapes
    assert ("attention", "(4,32,8192,128) causal", "bf16") in shapes
    assert ("gemv", "W 28672x4096, M=16", "bf16") in shapes
    for s in (4096, 8192):
        for scaling in ("per-tensor", "1x128 blocks"):
            assert ("fp8_gemm", f"{s}^3 {scaling}", "f8e4m3") in shapes
    quick = build_plan(quick=True)
    assert {c.row for c in quick} == {*range(10), 11, 12, 13, 14, 15} and len(quick) < len(plan)


def test_only_keeps_the_ceilings_and_rejects_unknown_rows() -> None:
    plan = build_plan(quick=True, only=["gemm"])
    assert {c.kernel for c in plan} == {"ceilings", "gemm"}
    with pytest.raises(ValueError, match="unknown row"):
        build_plan(quick=True, only=["nope"])


def test_every_row_module_imports_without_torch() -> None:
    for name in set(dryrun.ROW_MODULES.values()):
        mod = importlib.import_module(f"benchmarks.suite.rows.{name}")
        assert callable(mod.run) and callable(mod.variants)


def test_every_case_has_cutile_and_a_peer() -> None:
    for case in build_plan(quick=False):
        impls = {i for i, _ in dryrun.row_variants(case)}
        if case.row == 0:
            assert impls == {"ceiling"}
        elif case.row in (1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 15):
            assert "cutile" in impls and "torch" in impls, case
        else:
            assert "cutile" in impls, case
    assert {"triton", "cuda.tile"} <= {i for c in build_plan(False) if c.row == 1
                                       for i, _ in dryrun.row_variants(c)}


@pytest.mark.parametrize("sweep", [False, True])
def test_cutile_kernels_pass_the_frontend_as_launched(sweep: bool,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Every variant's specialization, and every `ct.autotune` the suite builds over them
    (with --sweep too: a kernel with two Mut outputs takes no Config with a tile)."""
    monkeypatch.setattr(tuning, "_SWEEP", sweep)
    plan = build_plan(quick=False)
    checks = dryrun.check_kernels(ROOT, plan, "sm_90")
    assert {c.kernel for c in checks if c.consts == "(module)"} == {r for r, _ in KERNELS.values()}
    bad = [(c.kernel, c.consts, c.problems) for c in checks if c.problems]
    assert not bad
    # and the check is real: a mismatched tile shape is reported
    case = next(c for c in plan if c.kernel == "gemv")
    assert cutile_variants(case)


def test_dry_run_cli_and_time_estimates(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "0 with errors" in out and "estimated wall time" in out
    full, _ = dryrun.estimate_s(build_plan(False), SuiteConfig.make(False))
    quick, _ = dryrun.estimate_s(build_plan(True), SuiteConfig.make(True))
    assert full < 540, full  # the suite must fit in 10 minutes with margin
    # --quick: ~185 s before rows 13-14, which add ~37 s (torch.compile of a forward and a
    # backward is most of it)
    assert quick < 240 and quick < full


def test_windows_and_rotation() -> None:
    cfg = SuiteConfig.make(False)
    # a 2^20 f32 add (12 MiB a launch): a window must touch >= 1 GiB
    wp = timing.plan_window(3e-6, 12 << 20, 8, cfg, memory_bound=True)
    assert wp.launches * (12 << 20) >= 1 << 30 and wp.windows >= 25
    assert timing.rotating_sets(12 << 20, cfg, True) * (12 << 20) >= 1 << 30
    assert timing.rotating_sets(3 << 30, cfg, True) == 1
    assert timing.rotating_sets(1 << 20, cfg, False) == 1
    # a long compute-bound launch still gets >= 25 windows of one launch
    wp = timing.plan_window(0.02, 0, 6, cfg, memory_bound=False)
    assert wp.launches == 1 and wp.windows == 25
    assert timing.quantiles([1.0, 2.0, 3.0, 4.0, 5.0]) == (2.0, 3.0, 4.0)


def _fake_records() -> list[Record]:
    """Made-up numbers, only to exercise the writers (never written under benchmarks/results)."""
    def rec(row: int, kernel: str, shape: str, impl: str, metric: float | None, unit: str,
            dtype: str = "bf16", variant: str = "", status: str = "ok", **params: object) -> Record:
        return Record(row, kernel, shape, impl, variant, dtype, dict(params), status,
                      "" if status == "ok" else "because", unit, metric, metric, metric,
                      None if metric is None else 1.0, windows=25, launches_per_window=4)

    return [
        rec(0, "ceilings", "copy 2 GiB", "ceiling", 4.0, "TB/s", "f32"),
        rec(0, "ceilings", "matmul 8192^3", "ceiling", 800.0, "TFLOP/s"),
        rec(1, "vector_add", "N=2^28", "cutile", 3.9, "TB/s", "f32", "tile=4096"),
        rec(1, "vector_add", "N=2^28", "cutile", 3.0, "TB/s", "f32", "tile=1024"),
        rec(1, "vector_add", "N=2^28", "torch", 3.7, "TB/s", "f32"),
        rec(1, "vector_add", "N=2^28", "triton", None, "TB/s", "f32", status="skipped"),
        rec(2, "gemm", "8192^3", "cutile", 700.0, "TFLOP/s"),
        rec(2, "gemm", "8192^3", "torch", 780.0, "TFLOP/s"),
        rec(4, "rmsnorm", "65536x4096", "cutile", 3.7, "TB/s"),
        rec(4, "rmsnorm", "65536x4096", "torch.compile", None, "TB/s", status="failed"),
        rec(4, "rmsnorm", "65536x4096", "torch", 3.0, "TB/s"),
        rec(6, "attention", "(4,32,4096,128)", "cutile", 500.0, "TFLOP/s", s=4096),
        rec(6, "attention", "(4,32,4096,128)", "torch", 520.0, "TFLOP/s", "bf16", "sdpa flash",
            s=4096),
        rec(6, "attention", "(4,32,4096,128)", "torch", 560.0, "TFLOP/s", "bf16", "sdpa cudnn",
            s=4096),
        rec(12, "attention_bwd", "(4,32,8192,128) causal", "cutile", 300.0, "TFLOP/s",
            variant="BM=64 BN=64"),
        rec(12, "attention_bwd", "(4,32,8192,128) causal", "torch", 400.0, "TFLOP/s",
            variant="sdpa cudnn_attention backward"),
        rec(12, "attention_bwd", "(4,32,8192,128) causal", "torch", 320.0, "TFLOP/s",
            variant="sdpa flash_attention backward"),
        rec(8, "host_overhead", "tiny add, 10000 launches", "cutile", 2.5, "us/launch", "f32",
            "async"),
        rec(13, "cross_entropy", "8192x151936", "cutile", 3.0, "TB/s", "f32", "BN=2048"),
        rec(13, "cross_entropy", "8192x151936", "torch.compile", 2.0, "TB/s", "f32",
            "inductor fwd + bwd"),
        rec(13, "cross_entropy", "8192x151936", "triton", 3.3, "TB/s", "f32", "BLOCK=4096"),
        rec(14, "softmax_rows", "1024x151936", "cutile", 2.0, "TB/s", "f32", "BN=2048"),
        rec(14, "softmax_rows", "1024x151936", "torch", 1.5, "TB/s", "f32", "torch.softmax"),
        rec(8, "host_overhead", "compile", "cutile", 400.0, "ms", "", "cold add"),
        rec(9, "safety", "tiny add, 10000 launches", "cutile", 2.5, "us/launch", "f32",
            "checked"),
        rec(9, "safety", "tiny add, 10000 launches", "cutile", None, "us/launch", "f32",
            "unchecked", status="skipped"),
        rec(11, "fp8_gemm", "8192^3 1x128 blocks", "cutile", 900.0, "TFLOP/s", "f8e4m3",
            "blocks grouped 128x128x128 worker_warps=8"),
        rec(11, "fp8_gemm", "8192^3 1x128 blocks", "torch", 1000.0, "TFLOP/s", "f8e4m3",
            "torch._scaled_mm"),
    ]


def test_targets_from_fake_records() -> None:
    checks = {(c.row, c.shape, c.what): c for c in targets.evaluate(_fake_records())}
    bw = checks[(1, "N=2^28 f32", "cutile / BW*")]
    assert bw.value == pytest.approx(3.9 / 4.0) and bw.met is True
    peer = checks[(1, "N=2^28 f32", "cutile / best of torch, Triton, cuTile Python")]
    assert peer.value == pytest.approx(3.9 / 3.7) and peer.met is True
    gemm = checks[(2, "8192^3", "cutile / torch")]
    assert gemm.value == pytest.approx(700 / 780) and gemm.met is False
    assert checks[(2, "8192^3", "cutile / cuTile Python")].met is None  # peer missing
    att = checks[(6, "(4,32,4096,128)", "cutile / best torch SDPA backend")]
    assert att.value == pytest.approx(500 / 560) and att.met is False
    rms = checks[(4, "65536x4096", "cutile / torch.compile (failed: torch eager)")]
    assert rms.met is True and rms.value == pytest.approx(3.7 / 3.0)
    assert checks[(8, "tiny add, 10000 launches", "cutile us per launch")].met is True
    assert checks[(8, "cold add", "cutile cold add compile")].met is True
    assert checks[(9, "tiny add, 10000 launches", "checked vs unchecked")].met is None
    fp8 = checks[(11, "8192^3 1x128 blocks", "cutile / torch._scaled_mm")]
    assert fp8.value == pytest.approx(0.9) and fp8.met is False
    ce = checks[(13, "8192x151936", "cutile / best of torch, torch.compile, triton")]
    assert ce.value == pytest.approx(3.0 / 3.3) and ce.met is False
    assert checks[(13, "8192x151936", "cutile / BW*")].value == pytest.approx(0.75)
    sm = checks[(14, "1024x151936", "cutile / best of torch, triton")]
    assert sm.value == pytest.approx(2.0 / 1.5) and sm.met is True
    bwd = checks[(12, "(4,32,8192,128) causal", "cutile / best torch SDPA backend (backward)")]
    assert bwd.value == pytest.approx(300 / 400) and bwd.met is False


def test_writers_round_trip(tmp_path: Path) -> None:
    recs = _fake_records()
    env = {"date": "test", "nvidia_smi": {"name": "NVIDIA H200"}, "torch": "x"}
    records.write_json(tmp_path / "results.json", env, "python -m benchmarks.suite", recs)
    env2, cmd, back = records.read_json(tmp_path / "results.json")
    assert env2 == env and cmd.startswith("python -m") and back == recs
    report.write(tmp_path / "results.md", env, cmd, back)
    md = (tmp_path / "results.md").read_text()
    assert "NVIDIA H200" in md and "| met |" in md and "not met" in md and "n/a" in md
    assert "BW* (device copy, bytes read + written): 4 TB/s" in md
    written, note = plots.write(tmp_path, back)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert not written and "matplotlib" in note
    else:
        assert written and written[0].stat().st_size > 0 and not note


def test_peer_modules_import_where_their_packages_are() -> None:
    pytest.importorskip("triton")
    importlib.import_module("benchmarks.suite.peers.triton_kernels")


def test_cutile_python_peers_import_where_installed() -> None:
    pytest.importorskip("cuda.tile")
    importlib.import_module("benchmarks.suite.peers.cutile_python_kernels")


def test_rows_registry_matches_plan() -> None:
    assert set(ROWS) == set(dryrun.ROW_MODULES)


def test_timer_cursor_stays_in_range_when_a_runner_id_is_reused() -> None:
    """The timer keys its set cursor by id(runner); ids of freed runners come back with other
    runners (the rmsnorm row once failed with IndexError after a row with more input sets)."""
    from types import SimpleNamespace

    class Runner:
        n_sets = 3

    fake_torch = SimpleNamespace(cuda=SimpleNamespace())
    timer, r = timing.EventTimer(fake_torch, SuiteConfig()), Runner()
    timer.cursor[id(r)] = 7  # left behind by an earlier runner with 8 sets
    assert [timer._next(r) for _ in range(4)] == [1, 2, 0, 1]


def test_every_plotted_row_has_a_title_and_fp8_a_doubled_ceiling() -> None:
    from benchmarks.suite import plan, plots

    assert set(plots.PLOTTED_ROWS) <= set(plots.TITLES)
    cases = plan._fp8_gemm(quick=True) + plan._gemm(quick=True)
    assert {c.kernel: c.tf_scale for c in cases} == {"fp8_gemm": 2.0, "gemm": 1.0}


def test_attention_backward_row() -> None:
    """Row 12: both causal shapes even with --quick, FLOPs 2.5x the causal forward's, every SDPA
    backend as a peer, no `ct.autotune` variant (it tunes one kernel; the row runs a chain of
    three), and sweep variants with the worker_warps hint."""
    from benchmarks.suite import plan, tuning

    cases = build_plan(quick=True, only=["attention_bwd"])[2:]
    assert [c.shape for c in cases] == ["(4,32,4096,128) causal", "(4,32,8192,128) causal"]
    fwd = plan.Case(6, "attention", "", "bf16", flops=4 * 4 * 32 * 8192 ** 2 * 128 // 2)
    assert cases[1].flops == 2.5 * fwd.flops and cases[1].row == 12
    peers = {v for i, v in dryrun.row_variants(cases[1]) if i == "torch"}
    assert peers == {f"sdpa {b} backward" for b in ("flash_attention", "efficient_attention",
                                                    "cudnn_attention")}
    tuning.set_sweep(True)
    try:
        vs = cutile_variants(cases[1])
    finally:
        tuning.set_sweep(False)
    assert vs and all(v.kernel.startswith("attention_bwd_") and not v.tuned for v in vs)
    assert any(v.hints.get("worker_warps") == 8 for v in vs) and len(vs) <= 10
    assert {v.kernel for v in vs} == {"attention_bwd_dkdv", "attention_bwd_dkdv_t",
                                      "attention_bwd_fused"}
    for v in vs:
        assert v.tile == (1, v.inferred["BN"], 128) and v.consts["CAUSAL"] is True
    assert plots.TITLES[12] == "attention bwd" and 12 in plots.PLOTTED_ROWS


def test_vocabulary_row_walk_rows() -> None:
    """Rows 13-14 (issue 16): the real-kernel examples, one block per row of any width, BN as a
    Const; bytes are one read and one write of f32 (plus targets and loss for cross-entropy);
    --quick keeps one shape each; cross-entropy has no autotune variant (two Muts, in place);
    torch, torch.compile and Triton are its peers."""
    from benchmarks.suite import plan, tuning

    ce = build_plan(quick=False, only=["cross_entropy"])[2:]
    assert [c.shape for c in ce] == ["4096x32000", "4096x128256", "8192x151936"]
    assert ce[2].bytes == 2 * 8192 * 151936 * 4 + 8192 * 8 and ce[2].row == 13
    sm = build_plan(quick=False, only=["softmax_rows"])[2:]
    assert [c.shape for c in sm] == ["4096x32000", "1024x151936"]
    assert sm[1].bytes == 2 * 1024 * 151936 * 4 and {c.dtype for c in ce + sm} == {"f32"}
    assert len(build_plan(quick=True, only=["cross_entropy", "softmax_rows"])) == 4
    for case in ce + sm:
        vs = cutile_variants(case)
        assert all(v.tile == (1, case.params["n"]) for v in vs if not v.tuned)
        assert all("BN" in v.consts for v in vs if not v.tuned)
        assert any(v.tuned for v in vs) == (case.kernel == "softmax_rows")
    impls = {i for i, _ in dryrun.row_variants(ce[0])}
    assert impls == {"cutile", "torch", "torch.compile", "triton"}
    assert {i for i, _ in dryrun.row_variants(sm[0])} == {"cutile", "torch", "triton"}
    whole = [("triton", "whole row per program") in dryrun.row_variants(c) for c in sm]
    assert whole == [True, False]  # the one-pass Triton softmax only where a row fits registers
    tuning.set_sweep(True)
    try:
        swept = cutile_variants(ce[0])
    finally:
        tuning.set_sweep(False)
    assert len(tuning.sweep_variants(ce[0])) <= 10 and len(swept) > len(cutile_variants(ce[0]))
    assert any(v.hints.get("worker_warps") == 8 for v in swept)
    # the one-pass forms only where the row fits one tile (32,768 columns)
    assert {v.kernel for v in cutile_variants(ce[0])} == {"cross_entropy", "cross_entropy_once"}
    assert {v.kernel for v in cutile_variants(ce[1])} == {"cross_entropy"}
    assert {v.kernel for v in cutile_variants(sm[0]) if not v.tuned} == {
        "softmax_rows", "softmax_row_once"}
    assert {v.kernel for v in cutile_variants(sm[1]) if not v.tuned} == {"softmax_rows"}
    assert {13, 14} <= set(plots.PLOTTED_ROWS) and plan.ROWS["softmax_rows"][0] == 14
    _, per_row = dryrun.estimate_s(ce + sm, SuiteConfig.make(False))
    assert per_row["cross_entropy"] + per_row["softmax_rows"] < 180  # the lead's budget


def test_row_walk_meta_args_match_the_kernels() -> None:
    """The dry run's stand-in arguments for rows 13-14 specialize and lower (no GPU)."""
    import cutile as ct

    for case in build_plan(quick=True, only=["cross_entropy", "softmax_rows"])[2:]:
        v = next(v for v in cutile_variants(case) if not v.tuned)
        args = dryrun.variant_args(ct, case, v)
        assert args[0].shape == (case.params["m"], case.params["n"])


def test_splitk_row() -> None:
    """Row 15 (issue 16's split-K example): small M, N and long K; every variant's grid covers
    C once per split, is about one or two waves of 132 SMs, and its stand-in arguments compile
    the Acc kernel with that grid (no partition); no autotune variant (the configs would add
    into C); torch is the peer, and the target is read from its records."""
    import cutile as ct

    cases = build_plan(quick=False, only=["splitk_gemm"])[2:]
    assert [c.shape for c in cases] == ["1024x1024x16384", "1024x1024x65536", "512x512x65536"]
    assert cases[2].flops == 2 * 512 * 512 * 65536 and cases[2].row == 15
    assert cases[2].bytes == 2 * (512 * 65536 * 2) + 4 * 512 * 512
    assert len(build_plan(quick=True, only=["splitk_gemm"])) == 4
    for case in cases:
        vs = cutile_variants(case)
        assert len(vs) >= 3 and not any(v.tuned for v in vs)
        for v in vs:
            gx, gy, split = tuning.splitk_grid(case, v)
            assert gx * v.consts["BM"] >= case.params["m"] and split == v.consts["SPLIT"]
            assert gy * v.consts["BN"] >= case.params["n"] and 64 <= gx * gy * split <= 600
    assert {i for i, _ in dryrun.row_variants(cases[0])} == {"cutile", "torch"}
    v = cutile_variants(cases[0])[0]
    out, *inputs = dryrun.variant_args(ct, cases[0], v)
    assert out.shape == (1024, 1024) and [x.shape for x in inputs] == [(1024, 16384),
                                                                         (16384, 1024)]
    _, per_row = dryrun.estimate_s(cases, SuiteConfig.make(False))
    assert per_row["splitk_gemm"] < 30
    assert 15 in plots.PLOTTED_ROWS and 15 in targets.EVALUATORS


def test_splitk_targets_take_the_best_torch() -> None:
    def rec(impl: str, variant: str, metric: float) -> Record:
        return Record(15, "splitk_gemm", "512x512x65536", impl, variant, "bf16", {}, "ok", "",
                      "TFLOP/s", metric, metric, metric, 1.0, windows=25, launches_per_window=4)

    checks = targets.evaluate([rec("cutile", "128x64x64 split=4", 500.0),
                               rec("torch", "bf16 C", 400.0), rec("torch", "f32 C", 625.0)])
    assert [(c.row, round(c.value or 0, 3), c.met) for c in checks] == [(15, 0.8, False)]


def test_rel_err_takes_the_worst_part_of_a_tuple() -> None:
    torch = pytest.importorskip("torch")
    from benchmarks.suite.rows.common import poison, rel_err

    ref = (torch.ones(1), torch.ones(4))
    assert rel_err(torch, (torch.ones(1), torch.ones(4)), ref) == 0.0
    assert rel_err(torch, (torch.ones(1), torch.full((4,), 1.5)), ref) == pytest.approx(0.5)
    assert rel_err(torch, torch.ones(4), ref) == float("inf")
    out = (torch.zeros(1), torch.zeros(2))
    poison(out)
    assert all(bool(t.isnan().all()) for t in out)
