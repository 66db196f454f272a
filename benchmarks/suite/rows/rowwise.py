"""Rows 3-5: softmax, RMSNorm and LayerNorm over the last axis of a (M, N) bf16 tensor, f32 math.

All three share inputs (rotating x sets, one weight and bias) and implementations side by side:
cutile (examples/), torch eager (and torch.compile for RMSNorm), Triton and cuTile Python.
"""

from __future__ import annotations

from typing import Any

from ..plan import Case
from ..records import Record
from ..tuning import Variant, cutile_variants
from .common import Context, FnRunner, Impl, n_sets_for, run_case, short

TOL = 1e-2
EPS = {"rmsnorm": 1e-6, "layernorm": 1e-5}
TORCH = {"softmax": "torch.softmax", "rmsnorm": "F.rms_norm", "layernorm": "F.layer_norm"}
CTP_KERNEL = {"softmax": "softmax_rows", "rmsnorm": "rmsnorm_rows", "layernorm": "layernorm_rows"}
TRITON = {"softmax": "softmax", "rmsnorm": "rmsnorm", "layernorm": "layernorm"}


def ctp_rows(n: int) -> list[int]:
    return sorted({max(1, 8192 // n), max(1, 16384 // n)})


def variants(case: Case) -> list[tuple[str, str]]:
    out = [("cutile", v.label) for v in cutile_variants(case)]
    out.append(("torch", TORCH[case.kernel]))
    if case.kernel == "rmsnorm":
        out.append(("torch.compile", "inductor"))
    out.append(("triton", "row per program"))
    out += [("cuda.tile", f"{bm} rows/block") for bm in ctp_rows(case.params["n"])]
    return out


def reference(torch: Any, kind: str, x: Any, w: Any, b: Any) -> Any:
    xf = x.float()
    if kind == "softmax":
        return torch.softmax(xf, dim=-1)
    if kind == "rmsnorm":
        return xf * torch.rsqrt((xf * xf).mean(-1, keepdim=True) + EPS[kind]) * w.float()
    mean = xf.mean(-1, keepdim=True)
    var = ((xf - mean) ** 2).mean(-1, keepdim=True)
    return (xf - mean) * torch.rsqrt(var + EPS[kind]) * w.float() + b.float()


def _cutile(ctx: Context, kind: str, v: Variant, xs: list[Any], w: Any, b: Any) -> Any:
    from ..peers.cutile_native import CutileRunner

    glue = ctx.need_cutile()
    kernel = glue.kernel_of(v)
    ys = [ctx.torch.empty_like(x) for x in xs]
    wt, bt = glue.wrap(w), glue.wrap(b)

    def args(i: int) -> tuple[Any, ...]:
        y, x = glue.partition(ys[i], v), glue.wrap(xs[i])
        if kind == "softmax":
            return (y, x)
        if kind == "rmsnorm":
            return (y, x, wt, EPS[kind])
        return (y, x, wt, bt, EPS[kind])

    return CutileRunner(v.label, kernel, args, lambda i: ys[i], v.consts, len(xs))


def _torch_eager(torch: Any, kind: str, xs: list[Any], w: Any, b: Any) -> FnRunner:
    n = xs[0].shape[1]
    f = torch.nn.functional
    if kind == "softmax":
        def fn(i: int) -> Any:
            return torch.softmax(xs[i], dim=-1)
    elif kind == "rmsnorm":
        def fn(i: int) -> Any:
            return f.rms_norm(xs[i], (n,), w, EPS[kind])
    else:
        def fn(i: int) -> Any:
            return f.layer_norm(xs[i], (n,), w, b, EPS[kind])
    return FnRunner("torch", TORCH[kind], fn, len(xs))


def _torch_compile(torch: Any, xs: list[Any], w: Any) -> FnRunner:
    eps = EPS["rmsnorm"]

    def rms(x: Any, w: Any) -> Any:
        xf = x.float()
        return (xf * torch.rsqrt((xf * xf).mean(-1, keepdim=True) + eps) * w.float()).to(x.dtype)

    compiled = torch.compile(rms, dynamic=False)
    return FnRunner("torch.compile", "inductor", lambda i: compiled(xs[i], w), len(xs))


def _triton(ctx: Context, kind: str, xs: list[Any], w: Any, b: Any) -> FnRunner:
    tk = ctx.need_triton()
    ys = [ctx.torch.empty_like(x) for x in xs]
    if kind == "softmax":
        def fn(i: int) -> None:
            tk.softmax(xs[i], ys[i])
    elif kind == "rmsnorm":
        def fn(i: int) -> None:
            tk.rmsnorm(xs[i], w, ys[i], EPS[kind])
    else:
        def fn(i: int) -> None:
            tk.layernorm(xs[i], w, b, ys[i], EPS[kind])
    return FnRunner("triton", "row per program", fn, len(xs), lambda i: ys[i])


def _ctp(ctx: Context, kind: str, bm: int, xs: list[Any], w: Any, b: Any) -> FnRunner:
    ctp = ctx.need_ctp()
    ys = [ctx.torch.empty_like(x) for x in xs]
    m, n = xs[0].shape
    kernel = getattr(ctp, CTP_KERNEL[kind])
    grid = ((m + bm - 1) // bm, 1, 1)

    def fn(i: int) -> None:
        if kind == "softmax":
            args: tuple[Any, ...] = (xs[i], ys[i], bm, n)
        elif kind == "rmsnorm":
            args = (xs[i], w, ys[i], EPS[kind], bm, n)
        else:
            args = (xs[i], w, b, ys[i], EPS[kind], bm, n)
        ctp.launch(ctx.ctp_stream(), grid, kernel, args)

    return FnRunner("cuda.tile", f"{bm} rows/block", fn, len(xs), lambda i: ys[i])


def run(ctx: Context, case: Case) -> list[Record]:
    torch = ctx.torch
    kind = case.kernel
    m, n = case.params["m"], case.params["n"]
    g = torch.Generator(device="cuda").manual_seed(11)
    sets = n_sets_for(ctx, case, 2 * m * n * 2)
    xs = [torch.randn(m, n, device="cuda", dtype=torch.bfloat16, generator=g) for _ in range(sets)]
    w = torch.randn(n, device="cuda", dtype=torch.bfloat16, generator=g)
    b = torch.randn(n, device="cuda", dtype=torch.bfloat16, generator=g)
    ref = reference(torch, kind, xs[0], w, b)
    impls = [Impl("cutile", v.label, lambda v=v: _cutile(ctx, kind, v, xs, w, b))
             for v in cutile_variants(case)]
    impls.append(Impl("torch", TORCH[kind], lambda: _torch_eager(torch, kind, xs, w, b)))
    if kind == "rmsnorm":
        impls.append(Impl("torch.compile", "inductor", lambda: _torch_compile(torch, xs, w)))
    impls.append(Impl("triton", "row per program", lambda: _triton(ctx, kind, xs, w, b)))
    impls += [Impl("cuda.tile", f"{bm} rows/block",
                   lambda bm=bm: _ctp(ctx, kind, bm, xs, w, b)) for bm in ctp_rows(n)]
    recs = run_case(ctx, case, impls, ref, TOL)
    for r in recs:
        if r.impl == "torch.compile" and r.status == "failed":
            r.reason = "torch.compile failed (offline?); the target falls back to torch eager: " \
                + short(Exception(r.reason), 200)
    del xs, w, b, ref
    torch.cuda.empty_cache()
    return recs
