"""Row 11: FP8 GEMM, e4m3 x e4m3 -> bf16 (f32 accumulation), per-tensor and 1x128 block scales,
against `torch._scaled_mm` in the same run.

Inputs are randn, quantized the usual way: per tensor, one scale maps the largest magnitude to
448 (e4m3's largest finite value); per 1x128 block, one scale per 128 values of a row of A and
of a column of B (stored (K / 128, M) and (K / 128, N): the outer-dim-major layout cuBLAS
wants, which the cutile kernel reads as is). B is passed K-major, as B^T (N, K) contiguous.
The reference is the dequantized product in float32. Per tensor, each side also runs with the
tensor cores' own accumulation (cutile's FAST_ACC variant, torch's `use_fast_accum=True`), so
the best of each side is compared like for like.
"""

from __future__ import annotations

from typing import Any

from ..plan import Case
from ..records import Record
from ..tuning import Variant, cutile_variants
from .common import Context, FnRunner, Impl, Skip, run_case, short

TOL = 2e-2
FAST = "torch._scaled_mm use_fast_accum"
E4M3_MAX = 448.0
QBLOCK = 128


def variants(case: Case) -> list[tuple[str, str]]:
    fast = [("torch", FAST)] if case.params["scaling"] == "per-tensor" else []
    return [("cutile", v.label) for v in cutile_variants(case)] + [("torch", "torch._scaled_mm"),
                                                                    *fast]


def quantize(torch: Any, x: Any, blockwise: bool) -> tuple[Any, Any]:
    """(R, K) float32 -> (e4m3 tensor, dequantizing scales): a 0-d scale, or (K/128, R)."""
    if not blockwise:
        scale = x.abs().max().clamp(min=1e-12) / E4M3_MAX
        return (x / scale).to(torch.float8_e4m3fn), scale.float()
    r, k = x.shape
    blocks = x.view(r, k // QBLOCK, QBLOCK)
    scale = blocks.abs().amax(dim=2).clamp(min=1e-12) / E4M3_MAX  # (R, K/128)
    q = (blocks / scale[:, :, None]).view(r, k).to(torch.float8_e4m3fn)
    return q, scale.t().contiguous()


def dequantize(torch: Any, q: Any, scale: Any, blockwise: bool) -> Any:
    if not blockwise:
        return q.float() * scale
    return q.float() * scale.t().repeat_interleave(QBLOCK, dim=1)


def _cutile(ctx: Context, v: Variant, a: Any, bt: Any, sa: Any, sb: Any, blockwise: bool
            ) -> Any:
    from ..peers.cutile_native import CutileRunner

    glue = ctx.need_cutile()
    kernel = glue.kernel_of(v)
    c = ctx.torch.empty((a.shape[0], bt.shape[0]), device="cuda", dtype=ctx.torch.bfloat16)
    if blockwise:
        wsa, wsb = glue.wrap(sa), glue.wrap(sb)

        def args(i: int) -> tuple[Any, ...]:
            return (glue.partition(c, v), glue.wrap(a), glue.wrap(bt), wsa, wsb)
    else:
        scale = float(sa) * float(sb)

        def args(i: int) -> tuple[Any, ...]:
            return (glue.partition(c, v), glue.wrap(a), glue.wrap(bt), scale)
    return CutileRunner(v.label, kernel, args, lambda i: c, v.consts, 1)


def _scaled_mm(torch: Any, a: Any, bt: Any, sa: Any, sb: Any, blockwise: bool, ref: Any,
               fast: bool = False) -> FnRunner:
    """`torch._scaled_mm(a, b, scale_a, scale_b)` with B column-major. For 1x128 blocks torch
    versions differ in which orientation of scale_b they accept (the v1 API checks it as
    (K/128, N)); each layout is tried once against the reference and the first that is right
    is timed."""
    b = bt.t()
    # blockwise scale_a: (M, K/128) with strides (1, M)
    layouts = [(sa.t(), sb), (sa.t(), sb.t())] if blockwise else [(sa, sb)]
    errors = []
    for scale_a, scale_b in layouts:
        def fn(i: int, scale_a: Any = scale_a, scale_b: Any = scale_b) -> Any:
            return torch._scaled_mm(a, b, scale_a=scale_a, scale_b=scale_b,
                                    out_dtype=torch.bfloat16, use_fast_accum=fast)
        try:
            out = fn(0).float()
        except (RuntimeError, NotImplementedError, TypeError, ValueError) as exc:
            errors.append(short(exc, 160))
            continue
        if float((out - ref).norm() / ref.norm()) <= TOL:
            return FnRunner("torch", FAST if fast else "torch._scaled_mm", fn, 1)
        errors.append(f"scale_b {tuple(scale_b.shape)}: wrong result")
    raise Skip("torch._scaled_mm did not run this scaling: " + "; ".join(errors))


def run(ctx: Context, case: Case) -> list[Record]:
    torch = ctx.torch
    m, n, k = case.params["m"], case.params["n"], case.params["k"]
    blockwise = case.params["scaling"] != "per-tensor"
    if not hasattr(torch, "float8_e4m3fn"):
        raise Skip("this torch has no float8_e4m3fn")
    g = torch.Generator(device="cuda").manual_seed(13)
    a, sa = quantize(torch, torch.randn(m, k, device="cuda", generator=g), blockwise)
    bt, sb = quantize(torch, torch.randn(n, k, device="cuda", generator=g) * 0.05, blockwise)
    ref = dequantize(torch, a, sa, blockwise) @ dequantize(torch, bt, sb, blockwise).t()
    impls = [Impl("cutile", v.label, lambda v=v: _cutile(ctx, v, a, bt, sa, sb, blockwise))
             for v in cutile_variants(case)]
    impls.append(Impl("torch", "torch._scaled_mm",
                      lambda: _scaled_mm(torch, a, bt, sa, sb, blockwise, ref)))
    if not blockwise:
        impls.append(Impl("torch", FAST,
                          lambda: _scaled_mm(torch, a, bt, sa, sb, blockwise, ref, fast=True)))
    recs = run_case(ctx, case, impls, ref, TOL)
    del a, bt, sa, sb, ref
    torch.cuda.empty_cache()
    return recs
