"""A NumPy Qwen3 forward pass (float64), written from the model's definition and independent
of the engine: the oracle the engine's greedy tokens are compared with."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from checkpoint import bf16_round
from numpy.typing import NDArray

A = NDArray[np.float64]


def rms(x: A, w: A, eps: float) -> A:
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * w


def rope(x: A, pos: int, theta: float) -> A:
    """HF's rotate_half convention: element i pairs with element i + d/2."""
    d = x.shape[-1]
    freq = 1.0 / theta ** (np.arange(0, d, 2) / d)
    ang = pos * np.concatenate([freq, freq])
    half = np.concatenate([-x[..., d // 2:], x[..., :d // 2]], axis=-1)
    return x * np.cos(ang) + half * np.sin(ang)


class Reference:
    """`kv_bf16`: the cached keys and values are rounded to bfloat16, as an engine with a
    bfloat16 KV cache stores them."""

    def __init__(self, cfg: dict[str, Any], t: dict[str, A], kv_bf16: bool = False) -> None:
        self.c, self.t, self.kv_bf16 = cfg, t, kv_bf16
        self.keys: list[list[A]] = [[] for _ in range(cfg["num_hidden_layers"])]
        self.values: list[list[A]] = [[] for _ in range(cfg["num_hidden_layers"])]

    def w(self, name: str) -> A:
        return self.t[name]

    def forward(self, token: int) -> A:
        """Appends one token; returns the logits for the next position."""
        c = self.c
        pos = len(self.keys[0])
        x = self.w("model.embed_tokens.weight")[token]
        for i in range(c["num_hidden_layers"]):
            p = f"model.layers.{i}."
            x = x + self.attention(i, p, rms(x, self.w(p + "input_layernorm.weight"),
                                             c["rms_norm_eps"]), pos)
            y = rms(x, self.w(p + "post_attention_layernorm.weight"), c["rms_norm_eps"])
            gate = self.w(p + "mlp.gate_proj.weight") @ y
            up = self.w(p + "mlp.up_proj.weight") @ y
            x = x + self.w(p + "mlp.down_proj.weight") @ (gate / (1 + np.exp(-gate)) * up)
        x = rms(x, self.w("model.norm.weight"), c["rms_norm_eps"])
        head = "model.embed_tokens.weight" if c.get("tie_word_embeddings") else "lm_head.weight"
        out: A = self.w(head) @ x
        return out

    def attention(self, i: int, p: str, x: A, pos: int) -> A:
        c = self.c
        d, nh, nkv = c["head_dim"], c["num_attention_heads"], c["num_key_value_heads"]
        eps, theta = c["rms_norm_eps"], c["rope_theta"]
        q = (self.w(p + "self_attn.q_proj.weight") @ x).reshape(nh, d)
        k = (self.w(p + "self_attn.k_proj.weight") @ x).reshape(nkv, d)
        v = (self.w(p + "self_attn.v_proj.weight") @ x).reshape(nkv, d)
        q = rope(rms(q, self.w(p + "self_attn.q_norm.weight"), eps), pos, theta)
        k = rope(rms(k, self.w(p + "self_attn.k_norm.weight"), eps), pos, theta)
        if self.kv_bf16:
            k, v = bf16_round(k), bf16_round(v)
        self.keys[i].append(k)
        self.values[i].append(v)
        keys, values = np.stack(self.keys[i], 1), np.stack(self.values[i], 1)  # (nkv, t, d)
        out = np.empty((nh, d))
        for h in range(nh):
            g = h // (nh // nkv)
            s = keys[g] @ q[h] / np.sqrt(d)  # every cached position is <= pos: causal
            e = np.exp(s - s.max())
            out[h] = (e / e.sum()) @ values[g]
        o: A = self.w(p + "self_attn.o_proj.weight") @ out.reshape(-1)
        return o


def greedy(cfg: dict[str, Any], tensors: dict[str, A], prompt: list[int], n: int,
           kv_bf16: bool = False) -> list[int]:
    ref = Reference(cfg, tensors, kv_bf16)
    for tok in prompt:
        logits = ref.forward(tok)
    out: list[int] = []
    for _ in range(n):
        out.append(int(np.argmax(logits)))
        if len(out) < n:
            logits = ref.forward(out[-1])
    return out


def load_config(model_dir: Path) -> dict[str, Any]:
    cfg: dict[str, Any] = json.loads((model_dir / "config.json").read_text())
    return cfg
