"""Row 6: attention forward, (B, H, S, D) = (4, 32, S, 128) bf16, causal and not.

torch runs every SDPA backend it has (flash, memory-efficient, cuDNN) as variants; the target is
against the best of them. cutile's example takes (B*H, S, D) views of the same tensors.
"""

from __future__ import annotations

import math
from typing import Any

from ..plan import Case
from ..records import Record
from ..tuning import Variant, cutile_variants
from .common import Context, FnRunner, Impl, run_case

TOL = 2e-2
BACKENDS = ("FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION")
CTP = ((128, 64),)  # cuTile Python (BM, BN)


def variants(case: Case) -> list[tuple[str, str]]:
    out = [("cutile", v.label) for v in cutile_variants(case)]
    out += [("torch", f"sdpa {b.lower()}") for b in BACKENDS]
    out += [("cuda.tile", f"BM={bm} BN={bn}") for bm, bn in CTP]
    return out


def _cutile(ctx: Context, v: Variant, q: Any, k: Any, vv: Any, scale: float) -> Any:
    from ..peers.cutile_native import CutileRunner

    glue = ctx.need_cutile()
    kernel = glue.kernel_of(v)
    b, h, s, d = q.shape
    o = ctx.torch.empty_like(q)
    flat = [t.view(b * h, s, d) for t in (o, q, k, vv)]
    return CutileRunner(v.label, kernel,
                        lambda i: (glue.partition(flat[0], v), glue.wrap(flat[1]),
                                   glue.wrap(flat[2]), glue.wrap(flat[3]), scale),
                        lambda i: o, v.consts, 1)


def _sdpa(torch: Any, backend: str, q: Any, k: Any, v: Any, causal: bool) -> FnRunner:
    from torch.nn.attention import SDPBackend, sdpa_kernel

    be = getattr(SDPBackend, backend)
    f = torch.nn.functional.scaled_dot_product_attention

    def fn(i: int) -> Any:
        with sdpa_kernel(be):
            return f(q, k, v, is_causal=causal)

    return FnRunner("torch", f"sdpa {backend.lower()}", fn, 1)


def _ctp(ctx: Context, bm: int, bn: int, q: Any, k: Any, v: Any, scale: float,
         causal: bool) -> FnRunner:
    ctp = ctx.need_ctp()
    b, h, s, d = q.shape
    o = ctx.torch.empty_like(q)
    grid = ((s + bm - 1) // bm, b * h, 1)
    return FnRunner("cuda.tile", f"BM={bm} BN={bn}",
                    lambda i: ctp.launch(ctx.ctp_stream(), grid, ctp.attention_fwd,
                                         (q, k, v, o, scale, h, d, bm, bn, causal)), 1,
                    lambda i: o)


def run(ctx: Context, case: Case) -> list[Record]:
    torch = ctx.torch
    p = case.params
    b, h, s, d, causal = p["b"], p["h"], p["s"], p["d"], bool(p["causal"])
    g = torch.Generator(device="cuda").manual_seed(5)
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16, generator=g)
               for _ in range(3))
    scale = 1.0 / math.sqrt(d)
    ref = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(),
                                                           is_causal=causal)
    impls = [Impl("cutile", vt.label, lambda vt=vt: _cutile(ctx, vt, q, k, v, scale))
             for vt in cutile_variants(case)]
    impls += [Impl("torch", f"sdpa {be.lower()}", lambda be=be: _sdpa(torch, be, q, k, v, causal))
              for be in BACKENDS]
    impls += [Impl("cuda.tile", f"BM={bm} BN={bn}",
                   lambda bm=bm, bn=bn: _ctp(ctx, bm, bn, q, k, v, scale, causal))
              for bm, bn in CTP]
    recs = run_case(ctx, case, impls, ref, TOL)
    del q, k, v, ref
    torch.cuda.empty_cache()
    return recs
