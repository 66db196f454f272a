"""Batched prefill: the forward pass over all P prompt tokens at once, on GEMM and attention
kernels (prefill_kernels.py) instead of P decode steps.

After `Qwen3.reset(prompt, ...)`, `run(model)` embeds the P prompt rows, runs every layer on
(P, width) row blocks (norms, the stacked QKV GEMM, q/k norms and RoPE per row and position,
K and V written straight into rows 0..P-1 of the KV cache, causal GQA attention over the
prompt, the o-projection, the SwiGLU MLP), then the final norm and the LM head on the last
row only, into the step's `x`; the step's own LM head and pick (greedy or sampled) then choose
the first new token at position P - 1, write it to history[P] and set pos to P: the decode
graph carries on from there exactly as after P decode steps.

The launches are `Link`s over named buffers, as in the decode step: the prefill's activations
live in `model.buf` under `pf_*` names while it runs (shapes depend on P) and are dropped after.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import links as lk
import numpy as np
import prefill_kernels as pk
from links import Link, pow2

import cutile as ct

if TYPE_CHECKING:
    from model import DeviceLayer, Qwen3

CHUNK = 48  # launches per `.then` chain; one sync per chain keeps the chains' recursion short


class Plan:
    """The tile shapes of a prefill of `rows` tokens and the launches that do it."""

    def __init__(self, model: Qwen3, rows: int, bm: int | None = None) -> None:
        self.m, self.rows = model, rows
        # rows per tile of the GEMMs and the attention (a multiple of 16 for the MMAs)
        self.bm = bm or min(64, max(16, pow2(rows)))
        self.kern = {name: getattr(pk, name + model.suffix)
                     for name in ("embed_rows", "gemm", "gemm_residual", "gate_up_rows")}
        self.kern |= {name: getattr(pk, name + model.kv_suffix)
                      for name in ("kv_fill", "prefill_attention")}

    def buffers(self) -> dict[str, ct.HostTensor]:
        c, p, d = self.m.cfg, self.rows, self.m.cfg.head_dim
        nh, nkv = c.num_attention_heads, c.num_key_value_heads
        shapes = {"pf_h": (p, c.hidden_size), "pf_h2": (p, c.hidden_size),
                  "pf_x": (p, c.hidden_size), "pf_qkv": (p, (nh + 2 * nkv) * d),
                  "pf_q": (p, nh * d), "pf_attn": (p, nh * d),
                  "pf_act": (p, c.intermediate_size)}
        return {name: ct.zeros(shape, ct.f32) for name, shape in shapes.items()}

    def links(self) -> list[Link]:
        c, m = self.m.cfg, self.m
        hp = pow2(c.hidden_size)
        out = [Link(self.kern["embed_rows"], ("pf_h",), ((16, min(hp, 256)),),
                    (m.embed, "history"))]
        for i, layer in enumerate(m.layers):
            out += self._attention(i, layer) + self._mlp(layer)
        head, pick = m.links[-2:]
        if pick.outs != ("history", "pos") or head.args[0] != "x":
            raise RuntimeError("prefill: the step does not end with the LM head on 'x' and the "
                               "pick of the next token (which writes history and pos)")
        return [*out,
                Link(pk.rms_norm_row_at, ("x",), ((1, hp),),
                     ("pf_h", m.norm, self.rows - 1, c.rms_norm_eps), {"H": c.hidden_size}),
                head, pick]  # the step's own LM head and pick, at pos = rows - 1

    def _gemm(self, y: str, w: ct.HostTensor, x: str, res: str | None = None) -> Link:
        n, k = w.shape
        tiles = ((self.bm, min(pow2(n), 64)),)
        consts = {"BK": min(pow2(k), 64)}
        if res is None:
            return Link(self.kern["gemm"], (y,), tiles, (x, w), consts)
        return Link(self.kern["gemm_residual"], (y,), tiles, (res, x, w), consts)

    def _norm(self, h: str, w: ct.HostTensor) -> Link:
        c = self.m.cfg
        return Link(pk.rms_norm_rows, ("pf_x",), ((1, pow2(c.hidden_size)),),
                    (h, w, c.rms_norm_eps), {"H": c.hidden_size})

    def _attention(self, i: int, layer: DeviceLayer) -> list[Link]:
        c, d, bm, m = self.m.cfg, self.m.cfg.head_dim, self.bm, self.m
        nh, nkv, eps = c.num_attention_heads, c.num_key_value_heads, c.rms_norm_eps
        kc, vc = f"k{i}", f"v{i}"
        return [
            self._norm("pf_h", layer.input_norm),
            self._gemm("pf_qkv", layer.qkv.w, "pf_x"),
            Link(pk.q_norm_rope_rows, ("pf_q",), ((bm, d),),
                 ("pf_qkv", layer.q_norm, m.inv_freq, eps)),
            Link(self.kern["kv_fill"], (kc, vc), ((1, m.cache_rows, d),) * 2,
                 ("pf_qkv", layer.k_norm, m.inv_freq, self.rows, eps),
                 {"NH": nh, "NKV": nkv, "BM": bm}),
            Link(self.kern["prefill_attention"], ("pf_attn",), ((bm, d),),
                 ("pf_q", kc, vc, d ** -0.5), {"G": c.group, "BN": bm}),
            self._gemm("pf_h2", layer.o.w, "pf_attn", res="pf_h"),
        ]

    def _mlp(self, layer: DeviceLayer) -> list[Link]:
        n, k = layer.gate.w.shape
        gate_up = Link(self.kern["gate_up_rows"], ("pf_act",), ((self.bm, min(pow2(n), 64)),),
                       ("pf_x", layer.gate.w, layer.up.w), {"BK": min(pow2(k), 64)})
        return [self._norm("pf_h2", layer.post_norm), gate_up,
                self._gemm("pf_h", layer.down.w, "pf_act", res="pf_h2")]


def run_links(buf: lk.Buffers, links: list[Link], eager: bool) -> None:
    """Runs `links` on `buf`: each synced (eager), or as `.then` chains of CHUNK launches."""
    if eager:
        lk.run_each(buf, links)
        return
    for start in range(0, len(links), CHUNK):
        lk.chain(buf, links[start:start + CHUNK]).sync()


def run(model: Qwen3, eager: bool = False, bm: int | None = None) -> None:
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
