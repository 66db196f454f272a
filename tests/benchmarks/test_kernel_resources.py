"""benchmarks/kernel_resources.py: every cutile variant of the suite compiled on the CPU, and its
resources as a Markdown table."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import cutile as ct  # noqa: E402
from benchmarks import kernel_resources  # noqa: E402
from benchmarks.suite.dryrun import variant_args  # noqa: E402
from benchmarks.suite.plan import build_plan  # noqa: E402
from benchmarks.suite.tuning import cutile_variants  # noqa: E402
from cutile.compiler.toolchain import Toolchain  # noqa: E402


def test_every_variant_has_launch_arguments() -> None:
    plan = build_plan(quick=False)
    count = 0
    for case in plan:
        for v in cutile_variants(case):
            args = variant_args(ct, case, v)
            assert args[0].shape[-1] % v.tile[-1] == 0  # the output tiles evenly
            count += 1
    assert count > 40


def test_table_for_two_rows(toolchain: Toolchain, tmp_path: Path) -> None:
    out = tmp_path / "resources.md"
    assert kernel_resources.main(["--quick", "--only", "vector_add", "--only", "attention",
                                  "--out", str(out)]) == 0
    text = out.read_text()
    lines = [ln for ln in text.splitlines() if ln.startswith("| ")]
    assert lines[0] == "| row | shape | variant | registers | threads | smem | spill | stack |"
    plan = build_plan(True, ["vector_add", "attention"])
    assert len(lines) - 1 == sum(not v.tuned for c in plan for v in cutile_variants(c))
    add = next(ln for ln in lines if "add tile=1024" in ln).split(" | ")
    assert int(add[3]) <= 255 and int(add[4]) % 32 == 0 and add[5] == "0 B"


def test_variant_hints_reach_the_cubin(toolchain: Toolchain) -> None:
    """A variant's `occupancy` / `num_ctas` hints are compiled in, as its row launches it."""
    from benchmarks.suite.dryrun import compile_variant

    hinted = [(c, v) for c in build_plan(True, ["rmsnorm", "gemm"]) for v in cutile_variants(c)
              if v.hints][:3]
    assert hinted
    for case, v in hinted:
        r = compile_variant(ROOT, case, v, "sm_90").resources
        occ, ctas = v.hints.get("occupancy"), v.hints.get("num_ctas")
        if occ is not None:
            assert r.registers <= 65536 // (occ * r.threads)
        if ctas is not None:
            assert r.cluster is not None and r.cluster[0] * r.cluster[1] * r.cluster[2] == ctas


def test_tuning_tables_become_autotune_configs() -> None:
    """Each kernel with several variants also gets one `ct.autotune` variant over them, and
    every variant turns into a valid `ct.Config` of its kernel."""
    from benchmarks.suite.peers.cutile_native import CutileGlue

    glue = CutileGlue(ROOT)
    for case in build_plan(quick=True, only=["gemm", "attention", "gemv"]):
        vs = cutile_variants(case)
        if case.kernel == "ceilings":
            continue
        tuned = [v for v in vs if v.tuned]
        assert tuned and all(len({t.kernel for t in v.tuned}) == 1 for v in tuned)
        for v in tuned:
            at = glue.kernel_of(v)
            assert isinstance(at, ct.Autotuned) and len(at.configs) == len(v.tuned)
            assert at.configs[0] == v.tuned[0].config(ct)
