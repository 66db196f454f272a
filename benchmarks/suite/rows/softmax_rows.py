"""Row 14: softmax over vocabulary-sized f32 rows (32k-152k wide), one block per row.

cutile: examples/softmax_rows.py (slab (1, n) per block, walking the row in BN-wide tiles
twice: an online max and sum, then the output). Peers: `torch.softmax` and a Triton kernel of
the same design (one program per row, two passes in BLOCK-wide chunks: the suite's whole-row
Triton softmax of row 3 would need up to 262,144 values of a row in registers). The metric
counts one read and one write; the two-pass kernels read each row twice (the second read hits
L2 only when the rows in flight fit in it).

f32 because the example is f32; the peers run f32 too. bf16 rows (row 3's dtype) would halve
the bytes: that needs a bf16 copy of the example's kernel (a tensor's dtype is fixed in the
annotation).
"""

from __future__ import annotations

from typing import Any

from ..plan import Case
from ..records import Record
from ..tuning import Variant, cutile_variants
from .common import Context, FnRunner, Impl, n_sets_for, run_case

TOL = 1e-4  # f32 math against a float64 reference
TRITON_CONFIGS = ((4096, 8), (8192, 16))  # (BLOCK, warps), each timed as a variant


def _triton_label(cfg: tuple[int, int]) -> str:
    return f"two-pass online, BLOCK={cfg[0]} warps={cfg[1]}"


def variants(case: Case) -> list[tuple[str, str]]:
    out = [("cutile", v.label) for v in cutile_variants(case)]
    out.append(("torch", "torch.softmax"))
    return out + [("triton", _triton_label(c)) for c in TRITON_CONFIGS]


def _cutile(ctx: Context, v: Variant, xs: list[Any]) -> Any:
    from ..peers.cutile_native import CutileRunner

    glue = ctx.need_cutile()
    kernel = glue.kernel_of(v)
    ys = [ctx.torch.empty_like(x) for x in xs]

    def args(i: int) -> tuple[Any, ...]:
        return (glue.partition(ys[i], v), glue.wrap(xs[i]))

    return CutileRunner(v.label, kernel, args, lambda i: ys[i], v.consts, len(xs))


def _triton(ctx: Context, cfg: tuple[int, int], xs: list[Any]) -> FnRunner:
    tk = ctx.need_triton()
    ys = [ctx.torch.empty_like(x) for x in xs]

    def fn(i: int) -> None:
        tk.softmax_online(xs[i], ys[i], cfg)

    return FnRunner("triton", _triton_label(cfg), fn, len(xs), lambda i: ys[i])


def run(ctx: Context, case: Case) -> list[Record]:
    torch = ctx.torch
    m, n = case.params["m"], case.params["n"]
    g = torch.Generator(device="cuda").manual_seed(14)
    sets = n_sets_for(ctx, case, case.bytes)
    xs = [torch.randn(m, n, device="cuda", generator=g).mul_(3) for _ in range(sets)]
    ref = torch.softmax(xs[0].double(), dim=-1)
    impls = [Impl("cutile", v.label, lambda v=v: _cutile(ctx, v, xs))
             for v in cutile_variants(case)]
    impls.append(Impl("torch", "torch.softmax", lambda: FnRunner(
        "torch", "torch.softmax", lambda i: torch.softmax(xs[i], dim=-1), len(xs))))
    impls += [Impl("triton", _triton_label(c), lambda c=c: _triton(ctx, c, xs))
              for c in TRITON_CONFIGS]
    recs = run_case(ctx, case, impls, ref, TOL)
    del xs, ref
    torch.cuda.empty_cache()
    return recs
