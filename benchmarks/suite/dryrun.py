"""`--dry-run`: the plan, every cutile kernel checked by the shared frontend (module check plus
the specializations the suite launches), and an estimate of the run time. No GPU, no torch.

`compile_variant` compiles one cutile variant of a case as the suite would launch it (`ct.meta`
arguments with the case's shapes), for scripts that look at the cubins
(`benchmarks/kernel_resources.py`)."""

from __future__ import annotations

import importlib
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .config import SuiteConfig
from .plan import Case
from .rows.rowwise import EPS
from .timing import plan_window, rotating_sets
from .tuning import ACC_KERNELS, KERNELS, Variant, cutile_variants, splitk_grid

ROW_MODULES = {"ceilings": "ceilings", "vector_add": "vector_add", "gemm": "gemm",
               "softmax": "rowwise", "rmsnorm": "rowwise", "layernorm": "rowwise",
               "attention": "attention", "gemv": "gemv", "host_overhead": "host_overhead",
               "safety": "safety", "fp8_gemm": "fp8_gemm", "attention_bwd": "attention_bwd",
               "cross_entropy": "cross_entropy", "softmax_rows": "softmax_rows",
               "qwen3_decode": "qwen3_decode", "splitk_gemm": "splitk_gemm"}
# first-call cost guesses (s) per variant, to estimate the wall time before anything runs
COMPILE_GUESS = {"cutile": 0.6, "triton": 1.5, "cuda.tile": 0.8, "torch": 0.05,
                 "torch.compile": 25.0, "ceiling": 0.05}
BW, TF = 4.3e12, 7.9e14
DECODE_GUESS_S = 150.0  # row 10 per size: checkpoint, engine compile, torch.compile, timings


def row_variants(case: Case) -> list[tuple[str, str]]:
    mod = importlib.import_module(f".rows.{ROW_MODULES[case.kernel]}", __package__)
    out: list[tuple[str, str]] = mod.variants(case)
    return out


def _check_autotune(root: Path, v: Variant) -> KernelCheck:
    """`ct.autotune` of the kernel over the variants it tunes, built as the suite builds it
    (a Config the kernel cannot take fails there, before any GPU work)."""
    from cutile.diagnostics.errors import CutileError

    from .peers.cutile_native import CutileGlue

    try:
        CutileGlue(root).kernel_of(v)
    except CutileError as err:
        return KernelCheck(v.kernel, v.label, [str(err).strip()])
    return KernelCheck(v.kernel, v.label, [])


@dataclass
class KernelCheck:
    kernel: str
    consts: str
    problems: list[str]


def check_kernels(root: Path, plan: list[Case], arch: str) -> list[KernelCheck]:
    """check_source on every kernel file, then each planned specialization (Consts bound)."""
    from cutile.compiler import check_source, render_concise
    from cutile.compiler.api import specialize
    from cutile.reader.source import parse_module

    out: list[KernelCheck] = []
    infos = {}
    for rel, _name in KERNELS.values():
        src = (root / rel).read_text()
        if rel not in infos:
            diags = check_source(src, rel)
            out.append(KernelCheck(rel, "(module)", [render_concise(d) for d in diags]))
            infos[rel] = parse_module(src, rel)
    seen = set()
    for case in plan:
        for v in cutile_variants(case, arch):
            if v.tuned:  # ct.autotune over variants checked on their own: its configs
                if v.label not in seen:
                    seen.add(v.label)
                    out.append(_check_autotune(root, v))
                continue
            rel, name = KERNELS[v.kernel]
            key = (v.kernel, tuple(sorted(v.all_consts.items())))
            if key in seen:
                continue
            seen.add(key)
            info = infos[rel]
            if not hasattr(info, "functions"):  # a parse failure, reported above
                continue
            res = specialize(info, name, v.all_consts)  # type: ignore[arg-type]
            probs = [render_concise(d) for d in res.diagnostics
                     if d.severity.value == "error"]
            out.append(KernelCheck(f"{rel}:{name}", str(v.all_consts), probs))
    return out


def compile_variant(root: Path, case: Case, v: Variant, arch: str) -> Any:
    """`kernel.compile(...)` of one variant with the arguments the case's row launches it with
    (same shapes, dtypes and partition, so the same cubin); returns the `Compiled`."""
    import cutile as ct

    from .peers.cutile_native import load_kernel_module

    rel, name = KERNELS[v.kernel]
    kernel = getattr(load_kernel_module(root, rel), name)
    if v.hints:  # occupancy / num_ctas / opt_level over the decorator's, as the row launches
        kernel = kernel.with_hints(**v.hints)
    out, *inputs = variant_args(ct, case, v)
    if v.kernel in ACC_KERNELS:  # an accumulator: the whole tensor, and the grid given
        return kernel.compile(out, *inputs, arch=arch, grid=splitk_grid(case, v), **v.consts)
    return kernel.compile(v.partition(ct, out), *inputs, arch=arch, **v.consts)


def variant_args(ct: Any, case: Case, v: Variant) -> list[Any]:
    """`ct.meta` stand-ins for a variant's launch arguments, output tensor first (unpartitioned),
    mirroring the argument lists built in rows/*.py."""
    p, m = case.params, ct.meta
    if v.kernel in ("add", "add_f16"):
        dt = ct.f16 if v.kernel == "add_f16" else ct.f32
        n = p.get("n", 1 << 24)  # the "compile" case has no shape; compile_probe uses 2^24
        return [m((n,), dt), m((n,), dt), m((n,), dt)]
    if v.kernel in ("gemm", "gemm_persistent"):
        return [m((p["m"], p["n"]), ct.bf16), m((p["m"], p["k"]), ct.bf16),
                m((p["k"], p["n"]), ct.bf16)]
    if v.kernel in ("softmax", "rms_norm", "layer_norm"):
        x = (p["m"], p["n"])
        vecs = {"softmax": 0, "rms_norm": 1, "layer_norm": 2}[v.kernel]
        eps = [EPS[case.kernel]] if vecs else []
        return [m(x, ct.bf16), m(x, ct.bf16)] + [m((p["n"],), ct.bf16)] * vecs + eps
    if v.kernel.startswith("cross_entropy"):  # logits (in place), per-row loss, targets, 1 / rows
        rows = p["m"]
        loss = m((rows, 1), ct.f32).partition((1, 1))
        return [m((rows, p["n"]), ct.f32), loss, m((rows,), ct.i32), 1.0 / rows]
    if v.kernel == "splitk_gemm":  # C (Acc, f32), A, B
        return [m((p["m"], p["n"]), ct.f32), m((p["m"], p["k"]), ct.bf16),
                m((p["k"], p["n"]), ct.bf16)]
    if v.kernel.startswith("softmax_row"):
        return [m((p["m"], p["n"]), ct.f32), m((p["m"], p["n"]), ct.f32)]
    if v.kernel.startswith("attention_bwd_"):
        # dk, dv (partitioned here: a second Mut), [dQ (the fused form's f32 Acc)], q, k, v, dO,
        # LSE, Delta, scale
        flat = (p["b"] * p["h"], p["s"], p["d"])
        rows = m((flat[0], flat[1]), ct.f32)
        acc = [m(flat, ct.f32)] if v.kernel == "attention_bwd_fused" else []
        return [m(flat, ct.bf16), v.partition(ct, m(flat, ct.bf16)), *acc] + [
            m(flat, ct.bf16) for _ in range(4)] + [rows, rows, 1.0 / math.sqrt(p["d"])]
    if v.kernel.startswith("attention"):
        flat = (p["b"] * p["h"], p["s"], p["d"])
        return [m(flat, ct.bf16) for _ in range(4)] + [1.0 / math.sqrt(p["d"])]
    if v.kernel in ("gemv", "gemv_mma", "gemv_pipelined"):
        return [m((p["m"], p["n"]), ct.bf16), m((p["m"], p["k"]), ct.bf16),
                m((p["n"], p["k"]), ct.bf16)]
    if v.kernel == "fp8_gemm":
        return [m((p["m"], p["n"]), ct.bf16), m((p["m"], p["k"]), ct.f8e4m3),
                m((p["n"], p["k"]), ct.f8e4m3), 1.0]
    if v.kernel == "fp8_gemm_blockwise":
        return [m((p["m"], p["n"]), ct.bf16), m((p["m"], p["k"]), ct.f8e4m3),
                m((p["n"], p["k"]), ct.f8e4m3), m((p["k"] // 128, p["m"]), ct.f32),
                m((p["k"] // 128, p["n"]), ct.f32)]
    raise ValueError(f"no launch arguments known for kernel {v.kernel!r}")


def estimate_s(plan: list[Case], cfg: SuiteConfig) -> tuple[float, dict[str, float]]:
    """A rough wall-time estimate: timed windows at the guessed ceilings plus first calls."""
    per_row: dict[str, float] = {}
    for case in plan:
        vs = row_variants(case)
        t = 0.0
        if case.metric_name in ("TB/s", "TFLOP/s"):
            est = max(case.bytes / BW, case.flops / TF, 2e-6) * 1.3
            wp = plan_window(est, case.bytes, len(vs), cfg, case.memory_bound)
            sets = rotating_sets(case.bytes, cfg, case.memory_bound)
            t += len(vs) * (wp.windows + 2) * wp.launches * est  # windows, calibration
            t += len(vs) * 2 * est + 0.05 * sets  # checks, allocation
            t += 0.5  # reference and input generation
        elif case.metric_name == "us/launch":
            t += len(vs) * 5 * case.params["launches"] * 10e-6
        elif case.metric_name == "us/kernel":
            t += len(vs) * 0.2
        elif case.metric_name == "tok/s":  # a checkpoint, the engine's and torch's compiles
            t += DECODE_GUESS_S
        else:
            t += 2 * 3.0  # two fresh processes importing cutile and compiling
        t += sum(COMPILE_GUESS.get(i, 0.5) for i, _ in vs)
        per_row[case.kernel] = per_row.get(case.kernel, 0.0) + t
    return sum(per_row.values()) + 20.0, per_row  # + startup (imports, CUDA context)


def report(root: Path, plan: list[Case], cfg: SuiteConfig) -> tuple[str, bool]:
    lines = [f"plan: {len(plan)} shapes ({'quick' if cfg.quick else 'full'})"]
    for case in plan:
        vs = row_variants(case)
        lines.append(f"  #{case.row} {case.kernel:13s} {case.shape:28s} {case.dtype:4s} "
                     f"{len(vs)} implementations: "
                     + ", ".join(sorted({i for i, _ in vs})))
    checks = check_kernels(root, plan, cfg.arch)
    bad = [c for c in checks if c.problems]
    lines.append(f"cutile kernels: {len(checks)} checks (modules and specializations), "
                 f"{len(bad)} with errors")
    for c in bad:
        lines += [f"  {c.kernel} {c.consts}:"] + [f"    {p}" for p in c.problems]
    total, per_row = estimate_s(plan, cfg)
    lines.append(f"estimated wall time on an H200: {total:.0f} s ("
                 + ", ".join(f"{k} {v:.0f}s" for k, v in per_row.items()) + ")")
    return "\n".join(lines), not bad
