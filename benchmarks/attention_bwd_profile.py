"""Row 12's backward, kernel by kernel: which of cutile's three kernels holds the time, against
the kernels of cuDNN's backward on the same inputs.

    python benchmarks/attention_bwd_profile.py [--seq 4096 8192] [--runs 5]

Needs a GPU, torch and its profiler. (4, 32, S, 128) bf16, causal. cutile runs the forward with
LSE once, then the backward chain `--runs` times for each variant below (the example's dK/dV
kernel and the S^T form, 64x64 at `occupancy=2`, each with the dQ kernel after it; the fused
form, 64x64: Delta with dQ zeroed, dK/dV/dQ in one kernel, the dQ cast);
torch runs cuDNN's SDPA backward as many times. Per kernel: the mean time of one call and the
TFLOP/s of the matrix products it does itself (dK/dV: QK^T, dO V^T, P^T dO, dS^T Q; dQ: QK^T,
dO V^T, dS K; fused: the five; halved for causal), so the kernel furthest from the tensor
cores' rate shows.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "examples")]

B, H, D, BM, BN = 4, 32, 128, 64, 64
# S x S x D matrix products each kernel does (first match of the kernel's name, in this order)
PRODUCTS = {"fused": 5, "dkdv": 4, "dq_cast": 0, "dq": 3}


def kernel_times(prof: Any, runs: int) -> dict[str, float]:
    """Mean device microseconds per run of each CUDA kernel the profiler saw."""
    from benchmarks.qwen3_decode import per_kernel

    return {r["kernel"]: round(float(r["us_per_step"]), 1) for r in per_kernel(prof, runs)}


def tflops(name: str, us: float, s: int) -> float | None:
    kind = next((k for k in PRODUCTS if k in name), None)
    if kind is None or not PRODUCTS[kind] or us <= 0:
        return None
    flops = PRODUCTS[kind] * 2 * B * H * s * s * D / 2
    return round(flops / (us * 1e-6) / 1e12, 1)


def cutile_profile(s: int, runs: int, variant: str) -> dict[str, float]:
    import attention_backward as ab
    import torch
    from torch.profiler import ProfilerActivity, profile

    import cutile as ct
    from benchmarks.kernels import attention_bwd as alt

    q, k, v, do = (ct.randn((B * H, s, D), ct.bf16, seed=i) for i in range(4))
    o, lse = ab.forward(q, k, v, bm=128, bn=64, causal=True)
    dkdv = ab.attention_bwd_dkdv if variant == "example" else alt.attention_bwd_dkdv_t
    kernels = (ab.attention_bwd_preprocess, dkdv.with_hints(occupancy=2),
               ab.attention_bwd_dq.with_hints(occupancy=2))
    state = [q, k, v, o, do, lse]
    flat = (B * H, s, D)
    fused_out = [ct.zeros(flat, ct.bf16).partition((1, t, D)) for t in (BM, BN, BN)] + [
        ct.zeros((B * H, s), ct.f32).partition((1, BM)),
        ct.zeros(flat, ct.f32).partition((1, BM, D))]

    def once() -> None:
        q, k, v, o, do, lse = state
        if variant == "fused":
            got = alt.attention_backward_fused(*fused_out, q, k, v, o, do, lse, D ** -0.5,
                                               BM=BM, BN=BN, CAUSAL=True).sync()
            fused_out[:] = [*got[:3], got[3].partition((1, BM)), got[4].partition((1, BM, D))]
            return
        *_, o = ab.backward_op(q, k, v, o, do, lse, bm=BM, bn=BN, causal=True,
                               kernels=kernels).sync()
        state[3] = o

    once()  # compiles
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(runs):
            once()
        torch.cuda.synchronize()
    return kernel_times(prof, runs)


def cudnn_profile(s: int, runs: int) -> dict[str, float]:
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from torch.profiler import ProfilerActivity, profile

    g = torch.Generator(device="cuda").manual_seed(7)
    q, k, v, do = (torch.randn(B, H, s, D, device="cuda", dtype=torch.bfloat16, generator=g)
                   for _ in range(4))
    leaves = [t.requires_grad_() for t in (q, k, v)]
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        out = torch.nn.functional.scaled_dot_product_attention(*leaves, is_causal=True)
    torch.autograd.grad(out, leaves, do, retain_graph=True)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(runs):
            torch.autograd.grad(out, leaves, do, retain_graph=True)
        torch.cuda.synchronize()
    return kernel_times(prof, runs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seq", type=int, nargs="+", default=[4096, 8192])
    ap.add_argument("--runs", type=int, default=5)
    opts = ap.parse_args()
    report: dict[str, Any] = {}
    for s in opts.seq:
        total = 4 * 2.5 * B * H * s * s * D / 2  # the row's FLOPs convention
        for name, times in (("cutile example", cutile_profile(s, opts.runs, "example")),
                            ("cutile S^T", cutile_profile(s, opts.runs, "t")),
                            ("cutile fused", cutile_profile(s, opts.runs, "fused")),
                            ("cudnn", cudnn_profile(s, opts.runs))):
            whole = sum(times.values())
            report[f"{name} S={s}"] = {
                "total_us": round(whole, 1),
                "row_tflops": round(total / (whole * 1e-6) / 1e12, 1) if whole else None,
                "kernels": {k: {"us": us, "tflops": tflops(k, us, s)} for k, us in
                            sorted(times.items(), key=lambda kv: -kv[1])}}
            print(f"S={s} {name}: {whole:.0f} us ({report[f'{name} S={s}']['row_tflops']} "
                  "TFLOP/s by the row's count)")
            for k, us in sorted(times.items(), key=lambda kv: -kv[1]):
                print(f"    {us:9.1f} us  {tflops(k, us, s) or '':>7}  {k[:90]}")
    print(json.dumps(report))


if __name__ == "__main__":
    main()
