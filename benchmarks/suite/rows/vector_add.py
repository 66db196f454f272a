"""Row 1 (and the tiny-add runners that rows 8 and 9 reuse): z = x + y in f32 and f16."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..plan import Case
from ..records import Record
from ..tuning import Variant, cutile_variants
from .common import Context, FnRunner, Impl, Skip, n_sets_for, run_case

TOL = {"f32": 1e-5, "f16": 2e-3, "bf16": 1e-2}
TRITON = ((1024, 4), (4096, 8))  # (BLOCK, num_warps)
CT_TILES = (1024, 4096, 16384)


def variants(case: Case) -> list[tuple[str, str]]:
    out = [("cutile", v.label) for v in cutile_variants(case)]
    out += [("torch", "torch.add(out=)")]
    out += [("triton", f"BLOCK={b} warps={w}") for b, w in TRITON]
    out += [("cuda.tile", f"tile={t}") for t in CT_TILES]
    return out


def torch_dtype(torch: Any, name: str) -> Any:
    return {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[name]


def outs(torch: Any, like: list[Any]) -> list[Any]:
    return [torch.empty_like(t) for t in like]


def cutile_add(ctx: Context, v: Variant, xs: list[Any], ys: list[Any],
               launcher: Callable[[Any], Any] | None = None) -> Any:
    from ..peers.cutile_native import CutileRunner

    glue = ctx.need_cutile()
    kernel = glue.kernel_of(v)
    zs = outs(ctx.torch, xs)
    if launcher is not None:
        unchecked = launcher(kernel)
        if unchecked is None:
            raise Skip("the runtime has no unchecked launch path (Kernel.unchecked)")
    else:
        unchecked = None
    return CutileRunner(v.label, kernel,
                        lambda i: (glue.partition(zs[i], v), glue.wrap(xs[i]), glue.wrap(ys[i])),
                        lambda i: zs[i], v.consts, len(xs), launcher=unchecked)


def impls(ctx: Context, case: Case, xs: list[Any], ys: list[Any]) -> list[Impl]:
    torch = ctx.torch
    n = len(xs)
    out: list[Impl] = []
    for v in cutile_variants(case):
        out.append(Impl("cutile", v.label, lambda v=v: cutile_add(ctx, v, xs, ys)))

    def torch_runner() -> FnRunner:
        zs = outs(torch, xs)
        return FnRunner("torch", "torch.add(out=)",
                        lambda i: torch.add(xs[i], ys[i], out=zs[i]), n, lambda i: zs[i])

    out.append(Impl("torch", "torch.add(out=)", torch_runner))
    for block, warps in TRITON:
        def triton_runner(block: int = block, warps: int = warps) -> FnRunner:
            tk = ctx.need_triton()
            zs = outs(torch, xs)
            return FnRunner("triton", f"BLOCK={block} warps={warps}",
                            lambda i: tk.add(xs[i], ys[i], zs[i], block, warps), n,
                            lambda i: zs[i])
        out.append(Impl("triton", f"BLOCK={block} warps={warps}", triton_runner))
    for tile in CT_TILES:
        def ctp_runner(tile: int = tile) -> FnRunner:
            ctp = ctx.need_ctp()
            zs = outs(torch, xs)
            grid = ((xs[0].numel() + tile - 1) // tile, 1, 1)
            return FnRunner("cuda.tile", f"tile={tile}",
                            lambda i: ctp.launch(ctx.ctp_stream(), grid, ctp.vadd,
                                                 (xs[i], ys[i], zs[i], tile)), n,
                            lambda i: zs[i])
        out.append(Impl("cuda.tile", f"tile={tile}", ctp_runner))
    return out


def make_sets(ctx: Context, case: Case, n_elems: int) -> tuple[list[Any], list[Any]]:
    torch = ctx.torch
    dt = torch_dtype(torch, case.dtype)
    size = torch.tensor([], dtype=dt).element_size()
    sets = n_sets_for(ctx, case, 3 * n_elems * size)
    g = torch.Generator(device="cuda").manual_seed(1234)
    xs = [torch.randn(n_elems, device="cuda", dtype=dt, generator=g) for _ in range(sets)]
    ys = [torch.randn(n_elems, device="cuda", dtype=dt, generator=g) for _ in range(sets)]
    return xs, ys


def run(ctx: Context, case: Case) -> list[Record]:
    torch = ctx.torch
    xs, ys = make_sets(ctx, case, case.params["n"])
    ref = xs[0].float() + ys[0].float()
    recs = run_case(ctx, case, impls(ctx, case, xs, ys), ref, TOL[case.dtype])
    del xs, ys, ref
    torch.cuda.empty_cache()
    return recs
