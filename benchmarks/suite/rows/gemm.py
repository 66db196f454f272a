"""Row 2: C = A @ B, bf16 in, f32 accumulate, bf16 out, M = N = K."""

from __future__ import annotations

from typing import Any

from ..plan import Case
from ..records import Record
from ..tuning import Variant, cutile_variants
from .common import Context, FnRunner, Impl, run_case

TOL = 2e-2
# cuTile Python (BM, BN, BK), grouped order. Not 128x256x64: it spills (45 TFLOP/s, 190 ms per
# launch at 16384^3) and its long, light windows let the GPU's clocks recover, which favoured
# whichever kernel the interleaving ran next (cuTile Python 128x128 738 vs our 675 TFLOP/s at
# 16384^3, with a cubin identical to ours).
CT_CONFIGS = ((128, 128, 64),)


def variants(case: Case) -> list[tuple[str, str]]:
    out = [("cutile", v.label) for v in cutile_variants(case)]
    out += [("torch", "torch.matmul(out=)")]
    out += [("triton", _triton_label(c)) for c in _triton_configs()]
    out += [("cuda.tile", f"grouped {bm}x{bn}x{bk}") for bm, bn, bk in CT_CONFIGS]
    return out


def _triton_configs() -> tuple[tuple[int, int, int, int, int], ...]:
    return ((128, 256, 64, 3, 8), (128, 128, 64, 4, 4))


def _triton_label(c: tuple[int, int, int, int, int]) -> str:
    return f"{c[0]}x{c[1]}x{c[2]} stages={c[3]} warps={c[4]}"


def cutile_runner(ctx: Context, v: Variant, a: Any, b: Any) -> Any:
    from ..peers.cutile_native import CutileRunner

    glue = ctx.need_cutile()
    kernel = glue.kernel_of(v)
    c = ctx.torch.empty((a.shape[0], b.shape[1]), device="cuda", dtype=a.dtype)
    return CutileRunner(v.label, kernel,
                        lambda i: (glue.partition(c, v), glue.wrap(a), glue.wrap(b)),
                        lambda i: c, v.consts, 1)


def operands(torch: Any, case: Case, seed: int) -> tuple[Any, Any, Any]:
    """Seeded bf16 A (m, k) and B (k, n) on the device, and their product in float32."""
    m, n, k = case.params["m"], case.params["n"], case.params["k"]
    g = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=g)
    return a, b, a.float() @ b.float()


def run(ctx: Context, case: Case) -> list[Record]:
    torch = ctx.torch
    m, n = case.params["m"], case.params["n"]
    a, b, ref = operands(torch, case, 7)
    impls: list[Impl] = []
    for v in cutile_variants(case):
        impls.append(Impl("cutile", v.label, lambda v=v: cutile_runner(ctx, v, a, b)))

    def torch_runner() -> FnRunner:
        c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        return FnRunner("torch", "torch.matmul(out=)", lambda i: torch.matmul(a, b, out=c), 1,
                        lambda i: c)

    impls.append(Impl("torch", "torch.matmul(out=)", torch_runner))
    for cfg in _triton_configs():
        def triton_runner(cfg: tuple[int, int, int, int, int] = cfg) -> FnRunner:
            tk = ctx.need_triton()
            c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
            return FnRunner("triton", _triton_label(cfg), lambda i: tk.gemm(a, b, c, cfg), 1,
                            lambda i: c)
        impls.append(Impl("triton", _triton_label(cfg), triton_runner))
    for bm, bn, bk in CT_CONFIGS:
        def ctp_runner(bm: int = bm, bn: int = bn, bk: int = bk) -> FnRunner:
            ctp = ctx.need_ctp()
            c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
            grid = (((m + bm - 1) // bm) * ((n + bn - 1) // bn), 1, 1)
            return FnRunner("cuda.tile", f"grouped {bm}x{bn}x{bk}",
                            lambda i: ctp.launch(ctx.ctp_stream(), grid, ctp.gemm_grouped,
                                                 (a, b, c, bm, bn, bk, 8)), 1, lambda i: c)
        impls.append(Impl("cuda.tile", f"grouped {bm}x{bn}x{bk}", ctp_runner))
    recs = run_case(ctx, case, impls, ref, TOL)
    del a, b, ref
    torch.cuda.empty_cache()
    return recs
