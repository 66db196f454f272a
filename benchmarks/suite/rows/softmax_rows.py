"""Row 14: softmax over vocabulary-sized f32 rows (32k-152k wide), one block per row.

cutile: examples/softmax_rows.py (slab (1, n) per block, walking the row in BN-wide tiles
twice: an online max and sum, then the output) and, where the row fits one tile, the one-pass
`softmax_row_once` of benchmarks/kernels/softmax_rows.py. Peers: `torch.softmax` and a Triton
kernel of the same design (one program per row, two passes in BLOCK-wide chunks), plus row 3's
Triton softmax (the whole row in registers, one pass) where the row fits: up to 32,768 values,
64 per thread at 16 warps; at 151,936 it would need 262,144. The metric
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
WHOLE_ROW_MAX = 32768  # the widest row the one-pass Triton softmax is timed on
WHOLE_ROW = "whole row per program"


def _triton_label(cfg: tuple[int, int]) -> str:
    return f"two-pass online, BLOCK={cfg[0]} warps={cfg[1]}"


def variants(case: Case) -> list[tuple[str, str]]:
    out = [("cutile", v.label) for v in cutile_variants(case)]
    out.append(("torch", "torch.softmax"))
    out += [("triton", _triton_label(c)) for c in TRITON_CONFIGS]
    return out + ([("triton", WHOLE_ROW)] if case.params["n"] <= WHOLE_ROW_MAX else [])


def _cutile(ctx: Context, v: Variant, xs: list[Any]) -> Any:
    from ..peers.cutile_native import CutileRunner

    glue = ctx.need_cutile()
    kernel = glue.kernel_of(v)
    ys = [ctx.torch.empty_like(x) for x in xs]

    def args(i: int) -> tuple[Any, ...]:
        return (glue.partition(ys[i], v), glue.wrap(xs[i]))

    return CutileRunner(v.label, kernel, args, lambda i: ys[i], v.consts, len(xs))


def _triton(ctx: Context, cfg: tuple[int, int] | None, xs: list[Any]) -> FnRunner:
    """The two-pass kernel with `cfg`, or (None) the whole-row one of row 3."""
    tk = ctx.need_triton()
    ys = [ctx.torch.empty_like(x) for x in xs]

    def fn(i: int) -> None:
        if cfg is None:
            tk.softmax(xs[i], ys[i])
        else:
            tk.softmax_online(xs[i], ys[i], cfg)

    label = WHOLE_ROW if cfg is None else _triton_label(cfg)
    return FnRunner("triton", label, fn, len(xs), lambda i: ys[i])


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
    if n <= WHOLE_ROW_MAX:
        impls.append(Impl("triton", WHOLE_ROW, lambda: _triton(ctx, None, xs)))
    recs = run_case(ctx, case, impls, ref, TOL)
    del xs, ref
    torch.cuda.empty_cache()
    return recs
