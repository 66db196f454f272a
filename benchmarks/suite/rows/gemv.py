"""Row 7: decode GEMV, y = x @ W^T with W (N, K) bf16 and M = 1 or 16 rows of x.

The metric is weight bytes / time (W dominates); W sets rotate so a window streams >= 1 GiB.
"""

from __future__ import annotations

from typing import Any

from ..plan import Case
from ..records import Record
from ..tuning import Variant, cutile_variants
from .common import Context, FnRunner, Impl, n_sets_for, run_case

TOL = 1e-2
CTP_VEC = (32, 256)  # cuTile Python M = 1: (BN, BK)
CTP_MMA = (64, 128)  # M = 16


def variants(case: Case) -> list[tuple[str, str]]:
    out = [("cutile", v.label) for v in cutile_variants(case)]
    out += [("torch", "F.linear")]
    out += [("cuda.tile", _ctp_label(case.params["m"]))]
    return out


def _ctp_label(m: int) -> str:
    bn, bk = CTP_VEC if m == 1 else CTP_MMA
    return f"{'vec' if m == 1 else 'mma'} BN={bn} BK={bk}"


def _cutile(ctx: Context, v: Variant, x: Any, ws: list[Any]) -> Any:
    from ..peers.cutile_native import CutileRunner

    glue = ctx.need_cutile()
    kernel = glue.kernel_of(v)
    ys = [ctx.torch.empty(x.shape[0], w.shape[0], device="cuda", dtype=x.dtype) for w in ws]
    xt = glue.wrap(x)
    return CutileRunner(v.label, kernel, lambda i: (glue.partition(ys[i], v), xt, glue.wrap(ws[i])),
                        lambda i: ys[i], v.consts, len(ws))


def _ctp(ctx: Context, x: Any, ws: list[Any]) -> FnRunner:
    ctp = ctx.need_ctp()
    m = x.shape[0]
    n = ws[0].shape[0]
    ys = [ctx.torch.empty(m, n, device="cuda", dtype=x.dtype) for _ in ws]
    bn, bk = CTP_VEC if m == 1 else CTP_MMA
    grid = ((n + bn - 1) // bn, 1, 1)

    def fn(i: int) -> None:
        if m == 1:
            ctp.launch(ctx.ctp_stream(), grid, ctp.gemv_vec, (x, ws[i], ys[i], bn, bk))
        else:
            ctp.launch(ctx.ctp_stream(), grid, ctp.gemv_mma, (x, ws[i], ys[i], m, bn, bk))

    return FnRunner("cuda.tile", _ctp_label(m), fn, len(ws), lambda i: ys[i])


def run(ctx: Context, case: Case) -> list[Record]:
    torch = ctx.torch
    m, n, k = case.params["m"], case.params["n"], case.params["k"]
    g = torch.Generator(device="cuda").manual_seed(3)
    sets = n_sets_for(ctx, case, n * k * 2)
    ws = [torch.randn(n, k, device="cuda", dtype=torch.bfloat16, generator=g) for _ in range(sets)]
    x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
    ref = x.float() @ ws[0].float().t()
    impls = [Impl("cutile", v.label, lambda v=v: _cutile(ctx, v, x, ws))
             for v in cutile_variants(case)]
    f = torch.nn.functional.linear
    impls.append(Impl("torch", "F.linear",
                      lambda: FnRunner("torch", "F.linear", lambda i: f(x, ws[i]), len(ws))))
    impls.append(Impl("cuda.tile", _ctp_label(m), lambda: _ctp(ctx, x, ws)))
    recs = run_case(ctx, case, impls, ref, TOL)
    del ws, x, ref
    torch.cuda.empty_cache()
    return recs
