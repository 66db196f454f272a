"""Row 13: mean cross-entropy over vocabulary-sized rows, f32 logits, with the logits' gradient.

Each implementation produces the loss and the gradient of the mean loss with respect to the
logits, from the same logits and targets:
- cutile: examples/cross_entropy.py, one block per row, the gradient written over the logits in
  place and a per-row loss (already divided by the row count; their sum is the mean loss);
- Triton: the fused in-place kernel of peers/triton_kernels.py (one program per row, two passes
  over the row in BLOCK-wide chunks, as Liger-style kernels do), per-row loss as cutile;
- torch: `F.cross_entropy(x, t)` (mean) and `torch.autograd.grad` of it (forward + backward
  each launch; the gradient goes to a new tensor), eager and under `torch.compile`.

The in-place kernels share the rotating logits sets; after the first launch a set holds a
gradient, and the next launch computes the loss of that (same work, finite values). Every check
therefore first copies the pristine logits back into set 0. The checked output is (mean loss,
gradient) against a float64 reference, each part to TOL.

f32 because the example is f32; every peer runs f32 too, so the comparison is like for like.
Training usually keeps bf16 logits (half the bytes): a bf16 case would need a bf16 copy of the
example's kernel (a tensor's dtype is fixed in the annotation).
"""

from __future__ import annotations

from typing import Any

from ..plan import Case
from ..records import Record
from ..tuning import Variant, cutile_variants
from .common import Context, FnRunner, Impl, n_sets_for, poison, run_case, short

TOL = 1e-4  # f32 math against float64
CHUNK = 1024  # rows per step of the float64 reference (bounds its memory)
# Triton (BLOCK, warps), each timed as a variant (a chunk of 4096-8192 f32 in flight per row)
TRITON_CONFIGS = ((4096, 8), (8192, 16))


def _triton_label(cfg: tuple[int, int]) -> str:
    return f"in-place fused, BLOCK={cfg[0]} warps={cfg[1]}"


def variants(case: Case) -> list[tuple[str, str]]:
    out = [("cutile", v.label) for v in cutile_variants(case)]
    out += [("torch", "F.cross_entropy + backward"), ("torch.compile", "inductor fwd + bwd")]
    return out + [("triton", _triton_label(c)) for c in TRITON_CONFIGS]


class _Checked:
    """A runner whose check starts from the pristine logits: `restore()` copies them into set
    0 and poisons the loss, then the inner runner's check runs and `outputs()` is returned."""

    def __init__(self, inner: Any, restore: Any, outputs: Any) -> None:
        self.inner, self.restore, self.outputs = inner, restore, outputs
        self.impl, self.variant = inner.impl, inner.variant
        self.n_sets, self.blocking = inner.n_sets, inner.blocking

    @property
    def launch_mode(self) -> str:
        mode: str = self.inner.launch_mode
        return mode

    def check(self) -> Any:
        self.restore()
        self.inner.check()
        return self.outputs()

    def prepare(self) -> None:
        self.inner.prepare()

    def enqueue(self, i: int) -> None:
        self.inner.enqueue(i)

    def close(self) -> None:
        self.inner.close()


class _Inputs:
    """The shape's buffers: rotating logits sets (written in place by cutile and Triton), the
    pristine logits of set 0, targets as i32 (cutile, Triton) and i64 (torch)."""

    def __init__(self, ctx: Context, case: Case) -> None:
        torch = ctx.torch
        m, n = case.params["m"], case.params["n"]
        g = torch.Generator(device="cuda").manual_seed(13)
        sets = n_sets_for(ctx, case, case.bytes)
        self.xs = [torch.randn(m, n, device="cuda", generator=g).mul_(3) for _ in range(sets)]
        self.x0 = self.xs[0].clone()
        self.t64 = torch.randint(0, n, (m,), device="cuda", generator=g)
        self.t64[0] = n - 1  # a target in the row's last, overhanging tile
        self.t32 = self.t64.to(torch.int32)
        self.loss = torch.empty(m, device="cuda")  # per-row loss of the in-place kernels

    def restore(self) -> None:
        self.xs[0].copy_(self.x0)
        poison(self.loss)

    def in_place_outputs(self) -> tuple[Any, Any]:
        return self.loss.sum().reshape(1), self.xs[0]


def reference(torch: Any, x: Any, t: Any) -> tuple[Any, Any]:
    """(mean loss, gradient of the mean loss) in float64, CHUNK rows at a time."""
    m = x.shape[0]
    total = torch.zeros((), device="cuda", dtype=torch.float64)
    grad = torch.empty_like(x)
    for r in range(0, m, CHUNK):
        xc, tc = x[r:r + CHUNK].double(), t[r:r + CHUNK]
        lse = torch.logsumexp(xc, 1, keepdim=True)
        rows = torch.arange(xc.shape[0], device="cuda")
        total += (lse[:, 0] - xc[rows, tc]).sum()
        g = torch.exp(xc - lse)
        g[rows, tc] -= 1.0
        grad[r:r + CHUNK] = g / m
    return (total / m).reshape(1), grad


def _cutile(ctx: Context, v: Variant, inp: _Inputs) -> _Checked:
    from ..peers.cutile_native import CutileRunner

    glue = ctx.need_cutile()
    kernel = glue.kernel_of(v)
    m = inp.x0.shape[0]
    targets = glue.wrap(inp.t32)

    def args(i: int) -> tuple[Any, ...]:
        loss = glue.wrap(inp.loss.view(m, 1)).partition((1, 1))
        return (glue.partition(inp.xs[i], v), loss, targets, 1.0 / m)

    runner = CutileRunner(v.label, kernel, args, lambda i: inp.xs[i], v.consts, len(inp.xs))
    return _Checked(runner, inp.restore, inp.in_place_outputs)


def _triton(ctx: Context, cfg: tuple[int, int], inp: _Inputs) -> _Checked:
    tk = ctx.need_triton()

    def fn(i: int) -> None:
        tk.cross_entropy(inp.xs[i], inp.t32, inp.loss, cfg)

    runner = FnRunner("triton", _triton_label(cfg), fn, len(inp.xs))
    return _Checked(runner, inp.restore, inp.in_place_outputs)


def _torch(ctx: Context, inp: _Inputs, compiled: bool) -> _Checked:
    torch = ctx.torch

    def ce(x: Any, t: Any) -> Any:
        return torch.nn.functional.cross_entropy(x, t)

    f = torch.compile(ce, dynamic=False) if compiled else ce
    leaves = [x.detach().requires_grad_() for x in inp.xs]
    got: list[Any] = []

    def fn(i: int) -> None:
        loss = f(leaves[i], inp.t64)
        got[:] = [loss.detach().reshape(1), *torch.autograd.grad(loss, leaves[i])]

    impl, variant = ("torch.compile", "inductor fwd + bwd") if compiled else (
        "torch", "F.cross_entropy + backward")
    runner = FnRunner(impl, variant, fn, len(inp.xs))
    return _Checked(runner, inp.restore, lambda: tuple(got))


def run(ctx: Context, case: Case) -> list[Record]:
    torch = ctx.torch
    inp = _Inputs(ctx, case)
    ref = reference(torch, inp.x0, inp.t64)
    impls = [Impl("cutile", v.label, lambda v=v: _cutile(ctx, v, inp))
             for v in cutile_variants(case)]
    impls.append(Impl("torch", "F.cross_entropy + backward", lambda: _torch(ctx, inp, False)))
    impls.append(Impl("torch.compile", "inductor fwd + bwd", lambda: _torch(ctx, inp, True)))
    impls += [Impl("triton", _triton_label(c), lambda c=c: _triton(ctx, c, inp))
              for c in TRITON_CONFIGS]
    recs = run_case(ctx, case, impls, ref, TOL)
    for r in recs:
        if r.impl == "torch.compile" and r.status == "failed":
            r.reason = "torch.compile failed (offline?): " + short(Exception(r.reason), 200)
    del inp, ref
    torch.cuda.empty_cache()
    return recs
