"""Row 9: the cost of cutile's ownership and launch checks, against an unchecked launch path of
the same kernel: kernel time of the N = 2^24 add (interleaved windows, as in row 1) and host
time per launch of the tiny add (as in row 8)."""

from __future__ import annotations

from ..plan import Case
from ..records import Record
from ..tuning import Variant
from .common import Context, Impl, run_case
from .host_overhead import launches_case
from .vector_add import TOL, cutile_add, make_sets


def variants(case: Case) -> list[tuple[str, str]]:
    return [("cutile", "checked"), ("cutile", "unchecked")]


def run(ctx: Context, case: Case) -> list[Record]:
    if case.metric_name == "us/launch":
        return launches_case(ctx, case, unchecked=True)
    torch = ctx.torch
    xs, ys = make_sets(ctx, case, case.params["n"])
    v = Variant("checked", "add", (4096,), inferred={"B": 4096})
    impls = [Impl("cutile", "checked", lambda: cutile_add(ctx, v, xs, ys)),
             Impl("cutile", "unchecked",
                  lambda: cutile_add(ctx, v, xs, ys, launcher=lambda k: ctx.need_cutile()
                                     .unchecked(k)))]
    recs = run_case(ctx, case, impls, xs[0].float() + ys[0].float(), TOL[case.dtype])
    del xs, ys
    torch.cuda.empty_cache()
    return recs
