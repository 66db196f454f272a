"""Row 10 of the suite (Qwen3 decode, benchmarks/suite/rows/qwen3_decode.py) and the functions of
benchmarks/qwen3_decode.py it runs: the plan, the targets and the writers on made-up records,
the engine-side functions on a tiny checkpoint (interpreter); on the GPU, the transformers peers
and the per-kernel profile."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from benchmarks import qwen3_decode as qd
from benchmarks import qwen3_tilings
from benchmarks.suite import dryrun, report, targets
from benchmarks.suite.config import SuiteConfig
from benchmarks.suite.plan import build_plan
from benchmarks.suite.records import Record
from benchmarks.suite.rows import qwen3_decode as row10

ROOT = Path(__file__).resolve().parents[2]
QWEN3_TESTS = ROOT / "tests" / "qwen3"


def test_row_10_runs_only_when_named_and_quick_keeps_0_6b() -> None:
    assert not [c for c in build_plan(False) if c.row == 10]
    full = build_plan(False, only=["qwen3_decode"])
    cases = [c for c in full if c.row == 10]
    assert {c.kernel for c in full} == {"ceilings", "qwen3_decode"}  # BW* for the roofline
    assert [c.params["size"] for c in cases] == ["0.6B", "1.7B", "4B"]
    assert cases[0].shape == "Qwen3-0.6B ctx 1024"
    for c in cases:
        assert c.metric_name == "tok/s" and c.dtype == "bf16" and c.params["context"] == 1024
        assert c.bytes == qd.bytes_per_token(qd.shape_config(c.params["size"]), 1024)
    # 0.6B: 0.44B bf16 parameters per token (the tied 151936x1024 head once) + 117 MB bf16 K/V
    kv = 28 * 2 * 8 * 1024 * 128 * 2
    assert cases[0].bytes - kv == 2 * (28 * (4096 * 1024 + 2048 * 1024 + 3 * 1024 * 3072)
                                       + 151936 * 1024)
    assert cases[0].bytes < cases[1].bytes < cases[2].bytes
    quick = [c for c in build_plan(True, only=["qwen3_decode"]) if c.row == 10]
    assert [(c.params["size"], c.params["tokens"]) for c in quick] == [("0.6B", 32)]
    impls = {i for i, _ in dryrun.row_variants(cases[0])}
    assert impls == {"cutile", "transformers", "transformers.compile", "roofline"}
    total, per_row = dryrun.estimate_s(build_plan(True, only=["qwen3_decode"]),
                                       SuiteConfig.make(True))
    assert 100 < per_row["qwen3_decode"] < total < 400  # one size fits one device command


def _rec(shape: str, size: str, impl: str, variant: str, metric: float | None,
         status: str = "ok") -> Record:
    return Record(10, "qwen3_decode", shape, impl, variant, "bf16", {"size": size}, status,
                  "" if status == "ok" else "RuntimeError: inductor", "tok/s", metric)


def _fake() -> list[Record]:
    big, small = "Qwen3-4B ctx 1024", "Qwen3-0.6B ctx 1024"
    return [
        _rec(big, "4B", "cutile", "graph", 100.0), _rec(big, "4B", "cutile", "eager", 9.0),
        _rec(big, "4B", "roofline", row10.ROOFLINE, 110.0),
        _rec(big, "4B", "transformers", row10.HF_EAGER, 14.0),
        _rec(big, "4B", "transformers.compile", row10.HF_COMPILE, 80.0),
        _rec(small, "0.6B", "cutile", "graph", 466.0),
        _rec(small, "0.6B", "roofline", row10.ROOFLINE, 2970.0),
        _rec(small, "0.6B", "transformers", row10.HF_EAGER, 10.6),
        _rec(small, "0.6B", "transformers.compile", row10.HF_COMPILE, None, "failed"),
    ]


def test_row_10_targets() -> None:
    """>= 0.80 of the roofline at 4B only; >= 1.5x transformers + torch.compile at every size,
    not evaluated (never against eager transformers) when torch.compile failed; the graph
    path is the one compared, not the best cutile record."""
    checks = {(c.shape, c.what): c for c in targets.evaluate(_fake())}
    roof = checks[("Qwen3-4B ctx 1024", "cutile graph / HBM roofline")]
    assert roof.value == pytest.approx(100 / 110) and roof.met is True and roof.target == ">= 0.8"
    hf = checks[("Qwen3-4B ctx 1024", "cutile graph / transformers + compile")]
    assert hf.value == pytest.approx(1.25) and hf.met is False
    failed = checks[("Qwen3-0.6B ctx 1024", "cutile graph / transformers + compile")]
    assert failed.met is None and "not evaluated" in failed.detail
    assert ("Qwen3-0.6B ctx 1024", "cutile graph / HBM roofline") not in checks
    assert len(checks) == 3


def test_row_10_in_the_report(tmp_path: Path) -> None:
    recs = [Record(0, "ceilings", "copy 2 GiB", "ceiling", "torch copy_", "f32", {}, "ok", "",
                   "TB/s", 4.2), *_fake()]
    report.write(tmp_path / "results.md", {"date": "test"}, "python -m benchmarks.suite", recs)
    md = (tmp_path / "results.md").read_text()
    assert "### 10. qwen3_decode" in md and "cutile graph / HBM roofline" in md
    assert "tok/s" in md and "RuntimeError: inductor" in md


def test_roofline_record_and_a_missing_transformers() -> None:
    case = build_plan(True, only=["qwen3_decode"])[-1]
    ctx: Any = SimpleNamespace(bw=4.2e12, torch=SimpleNamespace())
    rec = row10.roofline(ctx, case)
    assert rec.ok and rec.metric == pytest.approx(4.2e12 / case.bytes) and rec.bytes == case.bytes
    ctx.bw = None
    assert row10.roofline(ctx, case).status == "skipped"
    try:
        import transformers  # noqa: F401
    except ImportError:
        recs = row10.run(ctx, case)  # nothing can run: every implementation says why
        assert len(recs) == len(row10.variants(case))
        assert all(r.status == "skipped" and "transformers" in r.reason for r in recs)


def _tiny_checkpoint(root: Path) -> None:
    sys.path[:0] = [str(QWEN3_TESTS)]
    import checkpoint

    cfg = {**checkpoint.TINY, "torch_dtype": "bfloat16"}
    checkpoint.write(root, cfg, checkpoint.random_tensors(cfg, 10), "BF16")


def test_engine_functions_on_a_tiny_checkpoint(tmp_path: Path) -> None:
    """load_engine (bf16 matrices) and engine_prefill_s: the batched prefill of the context
    runs and its first token is the step path's."""
    _tiny_checkpoint(tmp_path)
    # run as a script, benchmarks/ is on sys.path: a module there named as one of the engine's
    # (its `suite` package's `config`, say) imported first must not stand in for the engine's
    sys.path.insert(0, str(Path(qd.__file__).parent))
    saved = {n: sys.modules.pop(n) for n in qd.ENGINE_MODULES if n in sys.modules}
    stranger = types.ModuleType("config")
    stranger.__file__ = str(Path(qd.__file__).parent / "config.py")
    sys.modules["config"] = stranger
    try:
        model = qd.load_engine(tmp_path)
        assert Path(sys.modules["config"].__file__ or "").parent == qd.ENGINE
    finally:
        sys.path.remove(str(Path(qd.__file__).parent))
        sys.modules.update(saved)
    assert model.dtype == "bfloat16"
    assert qd.engine_prefill_s(model, 20) > 0
    first = model.tokens(20, 1)
    model.reset([(7919 * i + 1) % 1000 for i in range(20)], 2)
    model.run_eager(20)
    assert model.tokens(20, 1) == first


def test_tiling_sweep_applies_a_variant_for_one_step_and_undoes_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """qwen3_tilings.step_us: the step it profiles sees the variant's tiling (every layer's
    matrices of the role, decode attention's fields), and the table's comes back after, also
    when the profile fails."""
    _tiny_checkpoint(tmp_path)
    model = qd.load_engine(tmp_path)
    seen: list[tuple[int, int, int]] = []

    def profile(m: Any, context: int) -> list[dict[str, Any]]:
        seen.append((m.layers[-1].down.latency, m.layers[0].up.bk, m.cache_tile))
        m.reset([1, 2], 2)
        m.run_eager(1)  # the variant must still be a step that runs
        if len(seen) == 2:
            raise RuntimeError("tileiras said no")
        return [{"kernel": "k", "us_per_step": 1.0}]

    monkeypatch.setattr(qd, "kernel_profile", profile)
    table = (model.layers[-1].down.latency, model.layers[0].up.bk, model.cache_tile)
    variant = {"down": {"latency": 3}, "gate_up": {"bk": 32}, "attn": {"tile": 16}}
    assert qwen3_tilings.step_us(model, variant) == {"k": 1.0}
    with pytest.raises(RuntimeError):
        qwen3_tilings.step_us(model, variant)
    assert seen == [(3, 32, 16)] * 2
    assert (model.layers[-1].down.latency, model.layers[0].up.bk, model.cache_tile) == table
    assert table != (3, 32, 16)


@pytest.mark.gpu
def test_transformers_peers_and_the_profile_on_the_gpu(tmp_path: Path) -> None:
    """The peers' decode loops (eager and torch.compile over a static cache) and the kernel
    table of one graph step, on a tiny bf16 checkpoint saved by transformers: rates above zero
    and a table with the step's kernels in it."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    cfg = transformers.Qwen3Config(hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                   num_attention_heads=4, num_key_value_heads=2, head_dim=32,
                                   vocab_size=1000, tie_word_embeddings=True,
                                   max_position_embeddings=512, torch_dtype="bfloat16")
    hf = transformers.Qwen3ForCausalLM(cfg).to("cuda", torch.bfloat16).eval()
    hf.save_pretrained(tmp_path)
    assert qd.hf_rate(torch, transformers, hf, 40, 8, False) > 0
    row: dict[str, Any] = {}
    qd.guarded(row, "compiled", lambda: qd.hf_rate(torch, transformers, hf, 40, 8, True))
    assert row["compiled"] is not None and row["compiled"] > 0, row.get("compiled_error")
    model = qd.load_engine(tmp_path)
    assert qd.engine_prefill_s(model, 40) > 0
    prof = qd.kernel_profile(model, 40)
    assert len(prof) >= 5 and all(r["calls_per_step"] > 0 for r in prof)
    assert sum(r["us_per_step"] for r in prof) > 0


def test_llama_family_shapes_and_sizes(capsys: pytest.CaptureFixture[str]) -> None:
    """--family llama: Llama-3.2's published shapes, sizes named case-insensitively, a size the
    family lacks an argparse error (before torch is imported); the roofline's bytes count the
    tied head once and head_dim 64's K/V."""
    assert qd.size_name("llama", "1b") == "1B" and qd.size_name("qwen3", "0.6b") == "0.6B"
    with pytest.raises(SystemExit) as e:
        qd.main(["--family", "llama", "--size", "0.6B"])
    assert e.value.code == 2 and "llama has no size '0.6B' (it has 1B, 3B)" in \
        capsys.readouterr().err
    c = qd.shape_config("1B", "llama")
    assert (c.hidden_size, c.head_dim, c.num_hidden_layers, c.vocab_size) == (2048, 64, 16, 128256)
    layer = (32 + 16) * 64 * 2048 + 32 * 64 * 2048 + 3 * 2048 * 8192
    assert qd.bytes_per_token(c, 0) == 2 * (16 * layer + 128256 * 2048)  # 1.24B parameters
    assert qd.bytes_per_token(c, 10) - qd.bytes_per_token(c, 0) == 16 * 2 * 8 * 10 * 64 * 2


def test_engine_functions_on_a_tiny_llama_checkpoint(tmp_path: Path) -> None:
    """load_engine reads a Llama checkpoint (the family from config.json) and the timed paths
    agree: graph and eager pick the same tokens after a skipped prefix."""
    sys.path[:0] = [str(QWEN3_TESTS)]
    import checkpoint

    cfg = {**checkpoint.TINY_LLAMA, "torch_dtype": "bfloat16"}
    checkpoint.write(tmp_path, cfg, checkpoint.random_tensors(cfg, 10), "BF16")
    model = qd.load_engine(tmp_path)
    assert model.cfg.family == "llama" and model.cfg.rope_scaling is not None
    _, graph = qd.engine_rate(model, 20, 3, eager=False)
    _, eager = qd.engine_rate(model, 20, 3, eager=True)
    assert graph == eager and len(graph) == 4
