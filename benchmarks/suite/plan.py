"""The suite of BENCHMARKS.md as data: rows, shapes, the work each shape does. No GPU, no torch."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

GIB = 1 << 30


@dataclass(frozen=True)
class Case:
    row: int
    kernel: str  # the row's name (also what --only takes)
    shape: str  # label, e.g. "N=2^24" or "4096x16384"
    dtype: str
    params: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    bytes: int = 0  # fewest bytes the kernel must move (each input read once, output written once)
    flops: int = 0
    metric_name: str = "TB/s"  # TB/s from bytes, TFLOP/s from flops
    # the compute ceiling as a multiple of the measured bf16 one (fp8 tensor cores: twice)
    tf_scale: float = 1.0

    @property
    def memory_bound(self) -> bool:
        return self.metric_name == "TB/s"

    def work(self) -> float:
        return float(self.bytes if self.memory_bound else self.flops)


ITEMSIZE = {"f16": 2, "bf16": 2, "f32": 4}


def _vector_add(quick: bool) -> list[Case]:
    exps = (20, 28) if quick else (20, 22, 24, 26, 28)
    return [Case(1, "vector_add", f"N=2^{e}", dt, {"n": 1 << e}, bytes=3 * (1 << e) * ITEMSIZE[dt])
            for dt in ("f32", "f16") for e in exps]


def _gemm(quick: bool) -> list[Case]:
    sizes = (4096, 8192) if quick else (2048, 4096, 8192, 16384)
    return [Case(2, "gemm", f"{s}^3", "bf16", {"m": s, "n": s, "k": s}, bytes=3 * s * s * 2,
                 flops=2 * s ** 3, metric_name="TFLOP/s") for s in sizes]


def _rows2d(row: int, name: str, shapes: tuple[tuple[int, int], ...], vectors: int) -> list[Case]:
    return [Case(row, name, f"{m}x{n}", "bf16", {"m": m, "n": n},
                 bytes=2 * m * n * 2 + vectors * n * 2) for m, n in shapes]


def _softmax(quick: bool) -> list[Case]:
    shapes = ((4096, 16384),) if quick else ((4096, 4096), (4096, 16384), (32768, 8192))
    return _rows2d(3, "softmax", shapes, 0)


NORM_SHAPES = ((65536, 1024), (65536, 4096), (16384, 8192))


def _rmsnorm(quick: bool) -> list[Case]:
    return _rows2d(4, "rmsnorm", ((65536, 4096),) if quick else NORM_SHAPES, 1)


def _layernorm(quick: bool) -> list[Case]:
    return _rows2d(5, "layernorm", ((65536, 4096),) if quick else NORM_SHAPES, 2)


def _attention(quick: bool) -> list[Case]:
    b, h, d = 4, 32, 128
    runs = ((4096, False), (8192, True)) if quick else (
        (1024, False), (4096, False), (8192, False), (8192, True))
    cases = []
    for s, causal in runs:
        flops = 4 * b * h * s * s * d // (2 if causal else 1)
        cases.append(Case(6, "attention", f"({b},{h},{s},{d}){' causal' if causal else ''}",
                          "bf16", {"b": b, "h": h, "s": s, "d": d, "causal": causal},
                          bytes=4 * b * h * s * d * 2, flops=flops, metric_name="TFLOP/s"))
    return cases


def _attention_bwd(quick: bool) -> list[Case]:
    """Row 12: dQ, dK, dV from dO (the forward's O and LSE given). FLOPs: 2.5x the forward's
    (five S x S x D matrix products against two: QK^T and dO V^T recomputed, dV, dK, dQ), so
    4 * 2.5 * B*H*S^2*D, halved when causal. Both sizes even with --quick."""
    b, h, d = 4, 32, 128
    cases = []
    for s in (4096, 8192):
        flops = 10 * b * h * s * s * d // 2
        cases.append(Case(12, "attention_bwd", f"({b},{h},{s},{d}) causal", "bf16",
                          {"b": b, "h": h, "s": s, "d": d, "causal": True},
                          bytes=8 * b * h * s * d * 2, flops=flops, metric_name="TFLOP/s"))
    return cases


def _gemv(quick: bool) -> list[Case]:
    weights = ((8192, 8192), (28672, 4096))
    ms = (1,) if quick else (1, 16)
    return [Case(7, "gemv", f"W {n}x{k}, M={m}", "bf16", {"m": m, "n": n, "k": k},
                 bytes=n * k * 2) for n, k in weights for m in ms]


FP8_SCALINGS = ("per-tensor", "1x128 blocks")


def _fp8_gemm(quick: bool) -> list[Case]:
    """e4m3 x e4m3 -> bf16; both sizes even with --quick (each shape is well under a second)."""
    return [Case(11, "fp8_gemm", f"{s}^3 {scaling}", "f8e4m3",
                 {"m": s, "n": s, "k": s, "scaling": scaling}, bytes=2 * s * s + 2 * s * s,
                 flops=2 * s ** 3, metric_name="TFLOP/s", tf_scale=2.0)
            for s in (4096, 8192) for scaling in FP8_SCALINGS]


def _ceilings(quick: bool) -> list[Case]:
    return [Case(0, "ceilings", "copy 2 GiB", "f32", {"nbytes": 2 * GIB}, bytes=2 * 2 * GIB),
            Case(0, "ceilings", "matmul 8192^3", "bf16", {"m": 8192, "n": 8192, "k": 8192},
                 flops=2 * 8192 ** 3, metric_name="TFLOP/s")]


def _host_overhead(quick: bool) -> list[Case]:
    launches = 2000 if quick else 10000
    return [Case(8, "host_overhead", f"tiny add, {launches} launches", "f32",
                 {"n": 4096, "launches": launches}, metric_name="us/launch"),
            Case(8, "host_overhead", "graph of 100 launches", "f32", {"n": 4096, "kernels": 100},
                 metric_name="us/kernel"),
            Case(8, "host_overhead", "compile", "", {}, metric_name="ms")]


def _safety(quick: bool) -> list[Case]:
    return [Case(9, "safety", "vector add N=2^24 kernel time", "f32", {"n": 1 << 24},
                 bytes=3 * (1 << 24) * 4),
            Case(9, "safety", f"tiny add, {2000 if quick else 10000} launches", "f32",
                 {"n": 4096, "launches": 2000 if quick else 10000}, metric_name="us/launch")]


def _cross_entropy(quick: bool) -> list[Case]:
    """Row 13: mean cross-entropy over (rows, vocab) f32 logits, the gradient written over the
    logits. Bytes: the fewest a fused kernel must move, one read and one write of the logits plus
    the i32 targets and the f32 per-row loss (the two-pass kernels read the logits twice; their
    second read is not counted)."""
    shapes = ((4096, 128256),) if quick else ((4096, 32000), (4096, 128256), (8192, 151936))
    return [Case(13, "cross_entropy", f"{m}x{n}", "f32", {"m": m, "n": n},
                 bytes=2 * m * n * 4 + m * 4 + m * 4) for m, n in shapes]


def _softmax_rows(quick: bool) -> list[Case]:
    """Row 14: softmax over vocabulary-sized f32 rows, one block walking each row in tiles.
    Bytes: one read and one write (the two-pass kernels' second read is not counted)."""
    shapes = ((1024, 151936),) if quick else ((4096, 32000), (1024, 151936))
    return [Case(14, "softmax_rows", f"{m}x{n}", "f32", {"m": m, "n": n}, bytes=2 * m * n * 4)
            for m, n in shapes]


QWEN3_SIZES = ("0.6B", "1.7B", "4B")
QWEN3_CONTEXT = 1024


def _qwen3_decode(quick: bool) -> list[Case]:
    """Row 10: batch-1 decode of the Qwen3 engine (examples/qwen3) in tokens/s at a 1k-token
    context, seeded random weights at the published shapes. Bytes: what one token must read,
    the bf16 matrices (the tied LM head once) and the bf16 K and V rows of the context, so
    BW* / bytes is the HBM roofline in tokens/s. --quick: 0.6B only, fewer timed tokens."""
    from ..qwen3_decode import bytes_per_token, shape_config

    return [Case(10, "qwen3_decode", f"Qwen3-{size} ctx {QWEN3_CONTEXT}", "bf16",
                 {"size": size, "context": QWEN3_CONTEXT, "tokens": 32 if quick else 64},
                 bytes=bytes_per_token(shape_config(size), QWEN3_CONTEXT), metric_name="tok/s")
            for size in (QWEN3_SIZES[:1] if quick else QWEN3_SIZES)]


def _splitk_gemm(quick: bool) -> list[Case]:
    """Row 15: C = A @ B with small M, N and a long K (split-K territory), bf16 in, f32 out.
    Bytes: A and B read once, C written once in f32 (an accumulating kernel also zeroes C
    first, which is not counted)."""
    shapes = ((1024, 1024, 16384), (512, 512, 65536)) if quick else (
        (1024, 1024, 16384), (1024, 1024, 65536), (512, 512, 65536))
    return [Case(15, "splitk_gemm", f"{m}x{n}x{k}", "bf16", {"m": m, "n": n, "k": k},
                 bytes=2 * (m * k + k * n) + 4 * m * n, flops=2 * m * n * k,
                 metric_name="TFLOP/s") for m, n, k in shapes]


ROWS: dict[str, tuple[int, Callable[[bool], list[Case]]]] = {
    "ceilings": (0, _ceilings),
    "vector_add": (1, _vector_add),
    "gemm": (2, _gemm),
    "softmax": (3, _softmax),
    "rmsnorm": (4, _rmsnorm),
    "layernorm": (5, _layernorm),
    "attention": (6, _attention),
    "gemv": (7, _gemv),
    "host_overhead": (8, _host_overhead),
    "safety": (9, _safety),
    "qwen3_decode": (10, _qwen3_decode),
    "fp8_gemm": (11, _fp8_gemm),
    "attention_bwd": (12, _attention_bwd),
    "cross_entropy": (13, _cross_entropy),
    "softmax_rows": (14, _softmax_rows),
    "splitk_gemm": (15, _splitk_gemm),
}


# rows that run only when named with --only: row 10 takes ~2.5 minutes per size (checkpoints,
# compiles, torch.compile), which would push the suite past one device command's 10 minutes
OPT_IN = frozenset({"qwen3_decode"})


def build_plan(quick: bool, only: list[str] | None = None) -> list[Case]:
    """Every case to run, in suite order (the OPT_IN rows only when named in `only`).
    Ceilings always run: every ratio needs them."""
    unknown = [n for n in only or [] if n not in ROWS]
    if unknown:
        raise ValueError(f"unknown row(s) {unknown}; choose from {', '.join(ROWS)}")
    names = [n for n in ROWS if (n in only if only else n not in OPT_IN) or n == "ceilings"]
    return [c for n in names for c in ROWS[n][1](quick)]
