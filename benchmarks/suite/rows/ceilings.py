"""Row 0: BW* (device-to-device copy of 2 GiB, bytes read + written) and TF* (torch.matmul bf16
8192^3 on randn inputs), measured in the same run as everything else."""

from __future__ import annotations

from ..plan import Case
from ..records import Record
from .common import Context, FnRunner, Impl, run_case


def variants(case: Case) -> list[tuple[str, str]]:
    return [("ceiling", "torch copy_" if case.memory_bound else "torch.matmul")]


def run(ctx: Context, case: Case) -> list[Record]:
    torch = ctx.torch
    dev = "cuda"
    if case.memory_bound:
        n = case.params["nbytes"] // 4
        src = torch.randn(n, device=dev, dtype=torch.float32)
        dst = torch.empty_like(src)
        impl = Impl("ceiling", "torch copy_",
                    lambda: FnRunner("ceiling", "torch copy_", lambda i: dst.copy_(src), 1))
        recs = run_case(ctx, case, [impl], src, 0.0)
        if recs[0].ok and recs[0].metric:
            ctx.bw = recs[0].metric * 1e12
        del src, dst
    else:
        m, n, k = case.params["m"], case.params["n"], case.params["k"]
        a = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
        b = torch.randn(k, n, device=dev, dtype=torch.bfloat16)
        ref = a.float() @ b.float()
        impl = Impl("ceiling", "torch.matmul",
                    lambda: FnRunner("ceiling", "torch.matmul", lambda i: torch.matmul(a, b), 1))
        recs = run_case(ctx, case, [impl], ref, 2e-2)
        if recs[0].ok and recs[0].metric:
            ctx.tf = recs[0].metric * 1e12
        del a, b, ref
    torch.cuda.empty_cache()
    return recs
