"""Batched prefill: the model's one description (layers.py) lowered onto P-row kernels
(prefill_kernels.py), the forward pass over all P prompt tokens at once instead of P decode
steps.

After `Engine.reset(prompt, ...)`, `run(model)` embeds the P prompt rows, runs every layer on
(P, width) row blocks (norms, the stacked QKV GEMM, the q/k norms where the family has them and
RoPE per row and position, K and V written straight into rows 0..P-1 of the KV cache, causal
GQA attention over the prompt, the o-projection adding the residual, the SwiGLU MLP), then the
final norm on the last row only, into the step's `x`; the step's own LM head and pick (step.py,
greedy or sampled) then choose the first new token at position P - 1, write it to history[P]
and set pos to P: the decode graph carries on from there exactly as after P decode steps.

The launches are `Link`s over named buffers, as in the decode step: the prefill's activations
live in `model.buf` under `pf_*` names while it runs (shapes depend on P) and are dropped after.

Split over ranks (tensor parallel), each rank runs its heads and MLP slice; a residual
projection followed by an `AllReduce` adds its residual on rank 0 only (the others store the
plain product), and the all-reduce of the (P, H) result then counts it once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import links as lk
import numpy as np
from layers import AllReduce, Attend, Embed, Head, Norm, Op, Project, Rope, SwiGLU
from links import Link, Links
from step import Step
from tuning import pow2

import cutile as ct

if TYPE_CHECKING:
    from model import Engine

CHUNK = 48  # launches per `.then` chain; one sync per chain keeps the chains' recursion short


class Plan:
    """The tile shapes of a prefill of `rows` tokens and the launches that do it."""

    def __init__(self, model: Engine, rows: int, bm: int | None = None) -> None:
        self.m, self.rows, self.k = model, rows, model.kernels
        # rows per tile of the GEMMs and the attention (a multiple of 16 for the MMAs)
        self.bm = bm or model.tuning.gemm_rows(rows)
        self.gemm = model.tuning.gemm
        self.hp = (1, pow2(model.cfg.hidden_size))

    @staticmethod
    def name(activation: str) -> str:
        return "pf_" + activation

    def buffers(self) -> dict[str, ct.HostTensor]:
        return {self.name(a): ct.zeros((self.rows, w), ct.f32)
                for a, w in self.m.widths.items()}

    def links(self) -> Links:
        out: Links = []
        ops = self.m.ops()
        for i, op in enumerate(ops):
            if isinstance(op, Project):
                out.append(self.project(op, ops[i + 1:i + 2] == [AllReduce(op.out)]))
            else:
                out += self.lower(op)
        return out

    def lower(self, op: Op) -> Links:
        c, m, pf = self.m.cfg, self.m, self.name
        if isinstance(op, AllReduce):
            return [Step(m).all_reduce(pf(op.out))]
        if isinstance(op, Embed):
            e = m.tuning.embed_rows
            return [Link(self.k.matmul("embed_rows"), (pf(op.out),),
                         ((e["rows"], min(self.hp[1], e["cols"])),), (m.embed, "history"))]
        if isinstance(op, Norm) and op.last_row:  # into the step's own one-row buffer
            return [Link(self.k.norm("rms_row_at"), (op.out,), (self.hp,),
                         (pf(op.src), op.weight, self.rows - 1, c.rms_norm_eps),
                         {"H": c.hidden_size})]
        if isinstance(op, Norm):
            return [Link(self.k.norm("rms_rows"), (pf(op.out),), (self.hp,),
                         (pf(op.src), op.weight, c.rms_norm_eps), {"H": c.hidden_size})]
        if isinstance(op, SwiGLU):
            n, k = op.gate.w.shape
            return [Link(self.k.matmul("gate_up_rows"), (pf(op.out),),
                         ((self.bm, min(pow2(n), self.gemm["bn"])),),
                         (pf(op.src), op.gate.w, op.up.w), {"BK": min(pow2(k), self.gemm["bk"])})]
        if isinstance(op, Rope):
            return self.rope(op)
        if isinstance(op, Attend):
            d = c.head_dim
            return [Link(self.k.attention("prefill"), (pf(op.out),), ((self.bm, d),),
                         (pf(op.q), f"k{op.layer}", f"v{op.layer}", d ** -0.5),
                         {"G": c.group, "BN": self.bm})]
        if isinstance(op, Head):  # the step's own LM head and pick, at pos = rows - 1
            return Step(m).head(op, m.sampling)
        raise TypeError(f"prefill: no lowering of {op!r}")

    def project(self, op: Project, reduced: bool = False) -> Link:
        """A GEMM, adding the residual in its store; `reduced` (an all-reduce follows): only
        rank 0 adds it, so the sum over the ranks holds it once."""
        n, k = op.w.w.shape
        tiles = ((self.bm, min(pow2(n), self.gemm["bn"])),)
        consts = {"BK": min(pow2(k), self.gemm["bk"])}
        y, x = self.name(op.out), self.name(op.src)
        if op.residual is None or (reduced and self.m.tp.rank > 0):
            return Link(self.k.matmul("gemm"), (y,), tiles, (x, op.w.w), consts)
        return Link(self.k.matmul("gemm_residual"), (y,), tiles,
                    (self.name(op.residual), x, op.w.w), consts)

    def rope(self, op: Rope) -> Links:
        c, m, d, bm = self.m.cfg, self.m, self.m.cfg.head_dim, self.bm
        (nh, nkv), eps = m.heads, c.rms_norm_eps
        caches, slab = (f"k{op.layer}", f"v{op.layer}"), ((1, m.cache_rows, d),) * 2
        q, src, consts = self.name(op.q), self.name(op.src), {"NH": nh, "NKV": nkv, "BM": bm}
        if op.q_norm is None or op.k_norm is None:
            return [Link(self.k.attention("q_rope_rows"), (q,), ((bm, d),), (src, m.inv_freq)),
                    Link(self.k.attention("kv_rope_fill"), caches, slab,
                         (src, m.inv_freq, self.rows), consts)]
        return [Link(self.k.attention("q_norm_rope_rows"), (q,), ((bm, d),),
                     (src, op.q_norm, m.inv_freq, eps)),
                Link(self.k.attention("kv_norm_rope_fill"), caches, slab,
                     (src, op.k_norm, m.inv_freq, self.rows, eps), consts)]


def run_links(buf: lk.Buffers, links: Links, eager: bool) -> None:
    """Runs `links` on `buf`: each synced (eager), or as `.then` chains of CHUNK launches."""
    if eager:
        lk.run_each(buf, links)
        return
    for start in range(0, len(links), CHUNK):
        lk.chain(buf, links[start:start + CHUNK]).sync()


def run(model: Engine, eager: bool = False, bm: int | None = None) -> None:
    """The prefill of the prompt given to `model.reset`: KV-cache rows 0..P-1, history[P] = the
    first new token, pos = P. Call it right after `reset` (pos 0), before `capture`. `bm`: rows
    per tile (default: the prompt's length rounded up to a power of two, 16 to 64)."""
    rows = int(model.buf["n_prompt"].numpy()[0])
    plan = Plan(model, rows, bm)
    model.buf |= plan.buffers()
    model.buf["pos"] = ct.from_numpy(np.array([rows - 1], dtype=np.int32))  # the pick's position
    try:
        run_links(model.buf, plan.links(), eager)
    finally:
        for name in [n for n in model.buf if n.startswith("pf_")]:
            del model.buf[name]
