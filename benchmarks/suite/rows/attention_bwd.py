"""Row 12: attention backward, (B, H, S, D) = (4, 32, S, 128) bf16, causal: dQ, dK, dV from dO.

Only the backward is timed. torch runs the forward once per SDPA backend (flash,
memory-efficient, cuDNN: each backend's backward kernel is the one its forward recorded), then
each launch is `torch.autograd.grad(out, (q, k, v), dO, retain_graph=True)`. cutile runs its
forward with LSE (`attention_lse` of examples/attention_backward.py) once per shape, then times
the chain of its three backward kernels as one graph: Delta, dK/dV, dQ (the example's form, no
atomics), or, for the fused variants, Delta with a zeroed float32 dQ, one kernel for dK, dV and
dQ (atomic adds into the float32 dQ), then dQ cast to bf16. The checked output is
dQ, dK and dV flattened one after another, against float32 gradients (SDPA in float32, the
backend torch picks: memory-efficient on sm_90).
"""

from __future__ import annotations

import math
from typing import Any

from ..plan import Case
from ..records import Record
from ..tuning import Variant, cutile_variants
from .common import Context, FnRunner, Impl, run_case

TOL = 3e-2  # bf16 gradients (dS rounded to bf16 before its products) against float32 ones
BACKENDS = ("FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION")
FWD_TILE = (128, 64)  # the forward with LSE that feeds cutile's backward (not timed)
EXAMPLE = "examples/attention_backward.py"
FUSED = "benchmarks/kernels/attention_bwd.py"  # `attention_backward_fused`, its chain


def _variants(case: Case) -> list[Variant]:
    return [v for v in cutile_variants(case) if not v.tuned]


def variants(case: Case) -> list[tuple[str, str]]:
    out = [("cutile", v.label) for v in _variants(case)]
    return out + [("torch", f"sdpa {b.lower()} backward") for b in BACKENDS]


class _Forward:
    """cutile's O and LSE for one shape, computed at the first cutile variant that needs them."""

    def __init__(self, ctx: Context, q: Any, k: Any, v: Any, scale: float, causal: bool) -> None:
        self.ctx, self.qkv, self.scale, self.causal = ctx, (q, k, v), scale, causal
        self.o_lse: tuple[Any, Any] | None = None

    def get(self) -> tuple[Any, Any]:
        if self.o_lse is None:
            glue = self.ctx.need_cutile()
            q, k, v = self.qkv
            b, h, s, d = q.shape
            bm, bn = FWD_TILE
            o = self.ctx.torch.empty_like(q).view(b * h, s, d)
            lse = self.ctx.torch.empty(b * h, s, device="cuda", dtype=self.ctx.torch.float32)
            flat = [glue.wrap(t.view(b * h, s, d)) for t in (q, k, v)]
            glue.kernel("attention_lse")(glue.wrap(o).partition((1, bm, d)),
                                         glue.wrap(lse).partition((1, bm)), *flat, self.scale,
                                         BN=bn, CAUSAL=self.causal).sync()
            self.o_lse = (o, lse)
        return self.o_lse


def _cutile(ctx: Context, v: Variant, fwd: _Forward, q: Any, k: Any, vv: Any, do: Any
            ) -> Any:
    from ..peers.cutile_native import CutileRunner, load_kernel_module

    glue = ctx.need_cutile()
    torch = ctx.torch
    b, h, s, d = q.shape
    bm, bn, causal = v.consts["BM"], v.all_consts["BN"], bool(v.consts["CAUSAL"])
    fused = v.kernel == "attention_bwd_fused"
    o, lse = fwd.get()
    grads = torch.empty(3, b * h, s, d, device="cuda", dtype=torch.bfloat16)
    delta = torch.empty(b * h, s, device="cuda", dtype=torch.float32)
    dq_acc = torch.empty(b * h, s, d, device="cuda", dtype=torch.float32) if fused else None
    ins = [t.view(b * h, s, d) for t in (q, k, vv)] + [o, do.view(b * h, s, d), lse]
    dkdv = glue.kernel(v.kernel, v.hints)

    def args(i: int) -> tuple[Any, ...]:  # fresh views each time, as the other rows make them
        dq, dk, dv = (glue.wrap(grads[j]) for j in range(3))
        out = (dq.partition((1, bm, d)), v.partition(glue.ct, dk), v.partition(glue.ct, dv),
               glue.wrap(delta).partition((1, bm)))
        scratch = (glue.wrap(dq_acc).partition((1, bm, d)),) if fused else ()
        return (*out, *scratch, *(glue.wrap(t) for t in ins), 1.0 / math.sqrt(d))

    if fused:
        backward = load_kernel_module(ctx.root, FUSED).attention_backward_fused

        def launch(*a: Any) -> Any:
            return backward(*a, BM=bm, BN=bn, CAUSAL=causal, kernel=dkdv,
                            by_element=bool(v.consts.get("DQ_BY_ELEMENT")))
    else:
        kernels = (glue.kernel("attention_bwd_preprocess"), dkdv,
                   glue.kernel("attention_bwd_dq", v.hints))
        example = load_kernel_module(ctx.root, EXAMPLE).attention_backward

        def launch(*a: Any) -> Any:
            return example(*a, BM=bm, BN=bn, CAUSAL=causal, kernels=kernels)

    return CutileRunner(v.label, dkdv, args, lambda i: grads.view(-1), {}, 1, launcher=launch)


def _sdpa(torch: Any, backend: str, q: Any, k: Any, v: Any, do: Any, causal: bool
          ) -> FnRunner:
    from torch.nn.attention import SDPBackend, sdpa_kernel

    leaves = [t.detach().requires_grad_() for t in (q, k, v)]
    with sdpa_kernel(getattr(SDPBackend, backend)):
        out = torch.nn.functional.scaled_dot_product_attention(*leaves, is_causal=causal)
    got: list[Any] = []

    def fn(i: int) -> None:
        got[:] = torch.autograd.grad(out, leaves, do, retain_graph=True)

    def out_of(i: int) -> Any:  # empty before the first call (run_case poisons it first)
        return torch.cat([g.reshape(-1) for g in got]) if got else torch.empty(0)

    return FnRunner("torch", f"sdpa {backend.lower()} backward", fn, 1, out_of)


def _reference(torch: Any, q: Any, k: Any, v: Any, do: Any, causal: bool) -> Any:
    leaves = [t.detach().float().requires_grad_() for t in (q, k, v)]
    out = torch.nn.functional.scaled_dot_product_attention(*leaves, is_causal=causal)
    grads = torch.autograd.grad(out, leaves, do.float())
    return torch.cat([g.reshape(-1) for g in grads])


def run(ctx: Context, case: Case) -> list[Record]:
    torch = ctx.torch
    p = case.params
    b, h, s, d, causal = p["b"], p["h"], p["s"], p["d"], bool(p["causal"])
    g = torch.Generator(device="cuda").manual_seed(7)
    q, k, v, do = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16, generator=g)
                   for _ in range(4))
    ref = _reference(torch, q, k, v, do, causal)
    fwd = _Forward(ctx, q, k, v, 1.0 / math.sqrt(d), causal)
    impls = [Impl("cutile", vt.label, lambda vt=vt: _cutile(ctx, vt, fwd, q, k, v, do))
             for vt in _variants(case)]
    impls += [Impl("torch", f"sdpa {be.lower()} backward",
                   lambda be=be: _sdpa(torch, be, q, k, v, do, causal)) for be in BACKENDS]
    recs = run_case(ctx, case, impls, ref, TOL)
    del q, k, v, do, ref, fwd
    torch.cuda.empty_cache()
    return recs
