"""A NumPy Qwen3 / Llama 3 forward pass (float64), written from the models' definitions and
independent of the engine: the oracle the engine's greedy tokens are compared with. Llama has
no q/k norm and may scale RoPE's frequencies (rope_scaling with rope_type "llama3")."""

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


def frequencies(cfg: dict[str, Any], d: int) -> A:
    """theta^(-2i/d); with Llama 3's scaling, the long wavelengths (beyond the original context
    / low_freq_factor) divided by `factor` and those between that and original /
    high_freq_factor blended linearly in original / wavelength."""
    freq: A = 1.0 / cfg["rope_theta"] ** (np.arange(0, d, 2) / d)
    s = cfg.get("rope_scaling") or {}
    if s.get("rope_type", s.get("type")) != "llama3":
        return freq
    original = s["original_max_position_embeddings"]
    low, high, factor = s["low_freq_factor"], s["high_freq_factor"], s["factor"]
    wavelen = 2 * np.pi / freq
    blend = (original / wavelen - low) / (high - low)
    out: A = np.where(wavelen < original / high, freq,
                      np.where(wavelen > original / low, freq / factor,
                               (1 - blend) * freq / factor + blend * freq))
    return out


def rope(x: A, pos: int, theta: float, freq: A | None = None) -> A:
    """HF's rotate_half convention: element i pairs with element i + d/2."""
    d = x.shape[-1]
    if freq is None:
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
        nh, nkv = c["num_attention_heads"], c["num_key_value_heads"]
        d = c.get("head_dim") or c["hidden_size"] // nh
        eps, theta, freq = c["rms_norm_eps"], c["rope_theta"], frequencies(c, d)
        q = (self.w(p + "self_attn.q_proj.weight") @ x).reshape(nh, d)
        k = (self.w(p + "self_attn.k_proj.weight") @ x).reshape(nkv, d)
        v = (self.w(p + "self_attn.v_proj.weight") @ x).reshape(nkv, d)
        if p + "self_attn.q_norm.weight" in self.t:  # Qwen3's q/k norm (Llama has none)
            q = rms(q, self.w(p + "self_attn.q_norm.weight"), eps)
            k = rms(k, self.w(p + "self_attn.k_norm.weight"), eps)
        q, k = rope(q, pos, theta, freq), rope(k, pos, theta, freq)
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
