"""results.md: the environment, the ceilings, every target with its ratio and met / not met, and
each row's measurements side by side."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .plan import ROWS
from .records import Record, best
from .targets import Check, evaluate

ROW_NAMES = {n: name for name, (n, _) in ROWS.items()}


def _num(v: float | None, digits: int = 4) -> str:
    return "-" if v is None else f"{v:.{digits}g}"


def _met(c: Check) -> str:
    return "n/a" if c.met is None else ("met" if c.met else "not met")


def env_lines(env: dict[str, Any], command: str) -> list[str]:
    smi = env.get("nvidia_smi", {})
    gpu = smi.get("name", "unknown GPU") if isinstance(smi, dict) else "unknown GPU"
    lines = [f"- date: {env.get('date', '?')}; command: `{command}`",
             f"- GPU: {gpu}; driver {smi.get('driver_version', '?')}; "
             f"SM clock {smi.get('clocks.sm', '?')} (max {smi.get('clocks.max.sm', '?')}); "
             f"memory clock {smi.get('clocks.mem', '?')}; power limit "
             f"{smi.get('power.limit', '?')}; {env.get('sm_count', '?')} SMs",
             f"- CUDA (torch) {env.get('torch_cuda', '?')}, driver API "
             f"{env.get('cuda_driver_api', '?')}; tileiras {env.get('tileiras', '?')}; "
             f"torch {env.get('torch', '?')}; triton {env.get('triton', '?')}; cuda-tile "
             f"{env.get('cuda-tile', '?')}; Python {env.get('python', '?')}; cutile "
             f"{env.get('cutile_commit', '?')}"]
    return lines


def targets_table(checks: list[Check]) -> list[str]:
    lines = ["| # | kernel | shape | ratio | value | target | met | detail |",
             "|---|---|---|---|---|---|---|---|"]
    for c in checks:
        lines.append(f"| {c.row} | {c.kernel} | {c.shape} | {c.what} | {_num(c.value, 3)} | "
                     f"{c.target} | {_met(c)} | {c.detail} |")
    return lines


def detail_table(records: list[Record]) -> list[str]:
    lines = ["| shape | dtype | impl | variant | metric | p25 - p75 | time/launch | compile s | "
             "rel err | mode | status |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in records:
        unit = r.metric_name
        spread = "-" if r.metric_p25 is None else f"{_num(r.metric_p25)} - {_num(r.metric_p75)}"
        t = "-" if r.time_s is None else f"{r.time_s * 1e6:.4g} us"
        status = r.status + (f": {r.reason}" if r.reason else "")
        lines.append(f"| {r.shape} | {r.dtype} | {r.impl} | {r.variant} | "
                     f"{_num(r.metric)} {unit if r.metric is not None else ''} | {spread} | {t} | "
                     f"{_num(r.compile_s, 3)} | {_num(r.rel_err, 2)} | {r.launch_mode} | "
                     f"{status} |")
    return lines


def summary_line(checks: list[Check]) -> str:
    met = sum(1 for c in checks if c.met)
    missed = sum(1 for c in checks if c.met is False)
    na = sum(1 for c in checks if c.met is None)
    return f"{met} targets met, {missed} not met, {na} not evaluated (of {len(checks)})."


def render(env: dict[str, Any], command: str, records: list[Record]) -> str:
    checks = evaluate(records)
    out = ["# cutile benchmark results", "", *env_lines(env, command), ""]
    bw = best([r for r in records if r.row == 0 and r.metric_name == "TB/s"])
    tf = best([r for r in records if r.row == 0 and r.metric_name == "TFLOP/s"])
    out += ["## Ceilings (this run)", "",
            f"- BW* (device copy, bytes read + written): {_num(bw.metric if bw else None)} TB/s",
            f"- TF* (torch.matmul bf16 8192^3): {_num(tf.metric if tf else None)} TFLOP/s", "",
            "## Targets", "", summary_line(checks), "", *targets_table(checks), ""]
    out += ["## Measurements", "",
            "Medians over the timed windows; p25 - p75 of the same windows. Memory-bound rows "
            "count the fewest bytes the kernel must move; `mode` is how launches were issued "
            "(`direct`: on the stream; `graph`: one captured graph replayed per launch; "
            "`sync`: each launch waited on).", ""]
    for row in sorted({r.row for r in records}):
        recs = [r for r in records if r.row == row]
        out += [f"### {row}. {ROW_NAMES.get(row, '?')}", "", *detail_table(recs), ""]
    return "\n".join(out) + "\n"


def write(path: Path, env: dict[str, Any], command: str, records: list[Record]) -> None:
    path.write_text(render(env, command, records))
