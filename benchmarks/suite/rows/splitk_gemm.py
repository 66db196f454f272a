"""Row 15: split-K GEMM, C = A @ B with small M, N and a long K; bf16 in, f32 accumulate.

- cutile: examples/splitk_gemm.py. C is an `Acc[..., "add"]` output: SPLIT blocks per output
  tile each add a partial product into it (atomic adds on the GPU), so C must be zero before
  every launch. The zeroing (`c.zero_()` on the timing stream, just before each launch) is part
  of the timed work: it is part of what a split-K product costs (the f32 C is 4 MiB at
  1024x1024, a few microseconds).
- torch: `torch.matmul(a, b, out=)` with a bf16 C (cuBLAS picks its own split-K or stream-K),
  and `torch.mm(a, b, out_dtype=torch.float32)` where this torch has it, the like-for-like f32
  result (skipped with the reason otherwise).

The checked output is C against `a.float() @ b.float()`, relative error within TOL (the f32
results differ only in summation order; torch's bf16 C rounds once at the end).
"""

from __future__ import annotations

from typing import Any

from ..plan import Case
from ..records import Record
from ..tuning import Variant, cutile_variants, splitk_grid
from .common import Context, FnRunner, Impl, Skip, run_case, short
from .gemm import operands

TOL = 1e-2
TORCH_BF16 = ("torch", "torch.matmul(out=) bf16 C")
TORCH_F32 = ("torch", "torch.mm(out_dtype=f32)")


def variants(case: Case) -> list[tuple[str, str]]:
    out = [("cutile", v.label) for v in cutile_variants(case)]
    return [*out, TORCH_BF16, TORCH_F32]


class Zeroed:
    """A runner whose every launch (checked or timed) first zeroes the accumulator `c` on the
    current stream, which is the stream the cutile launch runs on."""

    def __init__(self, inner: Any, c: Any) -> None:
        self.inner, self.c = inner, c
        self.impl, self.variant = inner.impl, inner.variant
        self.n_sets, self.blocking = inner.n_sets, inner.blocking
        self.out_of = inner.out_of  # run_case poisons it before the check; the check zeroes

    @property
    def launch_mode(self) -> str:
        mode: str = self.inner.launch_mode
        return mode + " + zero C"

    def check(self) -> Any:
        self.c.zero_()
        return self.inner.check()

    def prepare(self) -> None:
        self.inner.prepare()

    def enqueue(self, i: int) -> None:
        self.c.zero_()
        self.inner.enqueue(i)

    def close(self) -> None:
        self.inner.close()


def _cutile(ctx: Context, case: Case, v: Variant, a: Any, b: Any) -> Zeroed:
    from ..peers.cutile_native import CutileRunner

    glue = ctx.need_cutile()
    kernel = glue.kernel_of(v)
    grid = splitk_grid(case, v)
    c = ctx.torch.empty((a.shape[0], b.shape[1]), device="cuda", dtype=ctx.torch.float32)

    def launch(*args: Any, **consts: Any) -> Any:
        return kernel(*args, grid=grid, **consts)

    runner = CutileRunner(v.label, kernel, lambda i: (glue.wrap(c), glue.wrap(a), glue.wrap(b)),
                          lambda i: c, v.consts, 1, launcher=launch)
    return Zeroed(runner, c)


def _torch_bf16(ctx: Context, a: Any, b: Any) -> FnRunner:
    torch = ctx.torch
    c = torch.empty(a.shape[0], b.shape[1], device="cuda", dtype=torch.bfloat16)
    return FnRunner(*TORCH_BF16, lambda i: torch.matmul(a, b, out=c), 1, lambda i: c)


def _torch_f32(ctx: Context, a: Any, b: Any) -> FnRunner:
    torch = ctx.torch
    try:
        torch.mm(a[:16, :16], b[:16, :16], out_dtype=torch.float32)
    except (TypeError, RuntimeError) as exc:
        raise Skip(f"torch {torch.__version__} has no mm(out_dtype=) ({short(exc, 100)})"
                   ) from exc
    return FnRunner(*TORCH_F32, lambda i: torch.mm(a, b, out_dtype=torch.float32), 1)


def run(ctx: Context, case: Case) -> list[Record]:
    torch = ctx.torch
    a, b, ref = operands(torch, case, 15)
    impls = [Impl("cutile", v.label, lambda v=v: _cutile(ctx, case, v, a, b))
             for v in cutile_variants(case)]
    impls.append(Impl(*TORCH_BF16, lambda: _torch_bf16(ctx, a, b)))
    impls.append(Impl(*TORCH_F32, lambda: _torch_f32(ctx, a, b)))
    recs = run_case(ctx, case, impls, ref, TOL)
    del a, b, ref
    torch.cuda.empty_cache()
    return recs
