"""The engine: Qwen3 weights as cutile tensors, and a decode step made of kernel launches.

A step reads the position from a (1,) i32 device tensor and its token from a token history at
that position, runs the forward pass into the (1, vocab) logits, picks the next token (greedy or
sampled), writes it to the history and advances the position: every argument of every launch
is the same from one step to the next. So the step is a fixed list of launches (`Link`s over
named device buffers) that runs either eagerly, one synced launch at a time (`run_eager`, for
debugging), or as one CUDA graph captured from a `.then` chain and replayed once per step
(`capture`). Prefill is the same step over the prompt's positions (the pick keeps the prompt's
own next token there). Every computation is a cutile kernel; the host only replays.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import kernels as k
import links as lk
import numpy as np
import prefill as pf
from config import Qwen3Config
from links import Link, pow2
from numpy.typing import NDArray
from weights import Layer, Weights

import cutile as ct

F32 = NDArray[np.float32]
DTYPES = {"float32": ct.f32, "bfloat16": ct.bf16}
CACHE_TILE = 128  # cache rows per tile, in the append and attention kernels


@dataclass(frozen=True)
class Sampling:
    """temperature 0: greedy; else softmax(logits / temperature) restricted to the top_k
    logits (0: all) and then to the smallest set of those with mass >= top_p."""
    temperature: float = 0.0
    top_k: int = 0
    top_p: float = 1.0
    seed: int = 0


SMS = 132  # H200 SMs: a launch should bring a few blocks per SM


@dataclass
class Matrix:
    """A weight matrix (N, K) on the device, with the GEMV tiling that suits it: BN outputs by
    BK inputs per tile, `splits` partial sums over K (when N / BN blocks are too few to keep
    the GPU's memory busy), the kernel's hints and its loads' `latency` hint (0: none)."""
    w: ct.HostTensor
    n: int
    bn: int
    bk: int
    splits: int = 1
    hints: dict[str, int] = field(default_factory=dict)
    latency: int = 0

    @staticmethod
    def on_device(w: ct.HostTensor, role: str = "qkv") -> Matrix:
        """The tiling of a role (qkv, o, gate_up, down, head), from sweeps of (BN, BK, splits,
        occupancy, latency) inside the step on the H200 at the 0.6B and 4B shapes (bf16 weights,
        f32 x; examples/qwen3/README.md). o and down have N = hidden, too few rows of tiles to
        keep the memory busy: they split K into partial sums."""
        n, kk = w.shape
        bn = min(pow2(n), 32)
        bk = min(pow2(kk), 256 if role in ("qkv", "head") else 128)
        k_tiles, hints, s, lat = -(-kk // bk), {"occupancy": 3}, 1, 6
        if role in ("o", "down"):
            most = min(4, k_tiles // 2) if role == "down" else k_tiles // 2
            while 2 * s <= most and -(-n // bn) * s < 2 * SMS:
                s *= 2
        elif role == "gate_up":
            lat = 2
        elif role == "qkv":  # the larger sizes' wider K took occupancy 2 and a shorter hint
            hints, lat = ({"occupancy": 2}, 4) if kk >= 2048 else ({}, 6)
        return Matrix(w, n, bn, bk, s, hints, lat)

    @staticmethod
    def of(a: F32, dtype: str, role: str = "qkv") -> Matrix:
        return Matrix.on_device(ct.from_numpy(a, dtype=DTYPES[dtype]), role)


@dataclass
class DeviceLayer:
    input_norm: ct.HostTensor
    qkv: Matrix  # q, k and v projections stacked: one GEMV
    q_norm: ct.HostTensor
    k_norm: ct.HostTensor
    o: Matrix
    post_norm: ct.HostTensor
    gate: Matrix
    up: Matrix
    down: Matrix


def _device_layer(w: Layer, dtype: str) -> DeviceLayer:
    def vec(a: F32) -> ct.HostTensor:
        return ct.from_numpy(np.ascontiguousarray(a, dtype=np.float32))

    return DeviceLayer(vec(w.input_norm), Matrix.of(np.concatenate([w.q, w.k, w.v]), dtype),
                       vec(w.q_norm), vec(w.k_norm), Matrix.of(w.o, dtype, "o"),
                       vec(w.post_norm), Matrix.of(w.gate, dtype, "gate_up"),
                       Matrix.of(w.up, dtype, "gate_up"), Matrix.of(w.down, dtype, "down"))


class Qwen3:
    """A Qwen3 model on the device; `reset` makes the KV cache and the step's buffers.

    `dtype` is the matrices' (and embedding's) dtype; `kv_dtype` the KV cache's, by default
    the same (a bfloat16 model keeps bfloat16 K and V, as transformers does: half the bytes the
    attention reads). Activations and norms are float32 either way. `progress` is called with
    1 as each layer's weights reach the device."""

    def __init__(self, cfg: Qwen3Config, weights: Weights, dtype: str = "float32",
                 cache_tile: int = CACHE_TILE, kv_dtype: str | None = None,
                 progress: Callable[[int], None] | None = None) -> None:
        kv_dtype = dtype if kv_dtype is None else kv_dtype
        for name, value in (("dtype", dtype), ("kv_dtype", kv_dtype)):
            if value not in DTYPES:
                raise ValueError(f"{name} {value!r}: expected one of {', '.join(DTYPES)}")
        self.cfg, self.dtype, self.kv_dtype, self.cache_tile = cfg, dtype, kv_dtype, cache_tile
        # kernel names: "_f32"/"_bf16" by the matrices' dtype, "_kvbf16" for a bfloat16 cache
        self.suffix = "_bf16" if dtype == "bfloat16" else "_f32"
        self.kv_suffix = "_kvbf16" if kv_dtype == "bfloat16" else ""
        self.kern = {name: getattr(k, name + self.suffix)
                     for name in ("embed", "gemv", "lm_head", "gate_up")}
        self.kern |= {name: getattr(k, name + self.kv_suffix)
                      for name in ("qk_rope_append", "decode_attention")}
        self.embed = ct.from_numpy(weights.embed, dtype=DTYPES[dtype])
        self.lm_head = (Matrix.on_device(self.embed, "head") if cfg.tie_word_embeddings
                        else Matrix.of(weights.lm_head, dtype, "head"))
        self.layers = []
        for w in weights.layers:  # `progress` hears of each layer copied to the device
            self.layers.append(_device_layer(w, dtype))
            if progress is not None:
                progress(1)
        self.norm = ct.from_numpy(weights.norm.astype(np.float32))
        self.inv_freq = ct.from_numpy(rope_inv_freq(cfg.rope_theta, cfg.head_dim))
        self.buf: dict[str, ct.HostTensor] = {}
        self.links: list[Link] = []
        self.cache_rows = self.splits = 0
        self.head_blocks = -(-cfg.vocab_size // self.lm_head.bn)  # the greedy pick's candidates

    def reset(self, prompt: list[int], max_new_tokens: int,
              sampling: Sampling | None = None) -> None:
        """Fresh buffers for `prompt` and `max_new_tokens` more tokens: the KV cache, the token
        history (the prompt, then the picks), the position (0) and the step's activations."""
        c, d, v = self.cfg, self.cfg.head_dim, self.cfg.vocab_size
        if not prompt or max_new_tokens < 1:
            raise ValueError("need at least one prompt token and one new token")
        check_ids(prompt, v)
        seq = len(prompt) + max_new_tokens
        self.cache_rows = -(-seq // self.cache_tile) * self.cache_tile  # whole attention tiles
        cache = (c.num_key_value_heads, self.cache_rows, d)
        nh, nkv = c.num_attention_heads, c.num_key_value_heads
        lay = self.layers[0]
        self.splits = attention_splits(nh, self.cache_rows // self.cache_tile)
        parts = (nh * self.splits, 1)
        f32 = {"h": (1, c.hidden_size), "h2": (1, c.hidden_size), "x": (1, c.hidden_size),
               "qkv": (1, (nh + 2 * nkv) * d), "q": (nkv, c.group, d), "attn": (1, nh * d),
               "ao": (parts[0], d), "am": parts, "al": parts,
               "po": (lay.o.splits, c.hidden_size), "pd": (lay.down.splits, c.hidden_size),
               "act": (1, c.intermediate_size), "logits": (1, v), "top": (1, self.head_blocks)}
        self.buf = {name: ct.zeros(shape, ct.f32) for name, shape in f32.items()}
        self.buf |= {f"{kv}{i}": ct.zeros(cache, DTYPES[self.kv_dtype])
                     for i in range(len(self.layers)) for kv in "kv"}
        history = np.zeros(seq, dtype=np.int32)
        history[:len(prompt)] = prompt
        self.buf |= {"history": ct.from_numpy(history), "pos": ct.zeros((1,), ct.i32),
                     "top_at": ct.zeros((1, self.head_blocks), ct.i32),
                     "n_prompt": ct.from_numpy(np.array([len(prompt)], dtype=np.int32))}
        self.links = self._links(sampling or Sampling())

    def skip_to(self, pos: int) -> None:
        """Starts the next step at `pos` as if positions 0..pos-1 were done (their cache rows
        stay zeros): for timing decode at a long context without its prefill. Before capture."""
        if not 0 <= pos < self.buf["history"].shape[0]:
            raise ValueError(f"position {pos} is outside the token history")
        self.buf["pos"] = ct.from_numpy(np.array([pos], dtype=np.int32))

    def prefill(self, eager: bool = False) -> None:
        """The whole prompt in one batched forward pass (prefill.py: GEMMs and causal attention
        over its P rows) instead of P steps: KV-cache rows 0..P-1, the first new token in
        history[P], pos = P. Right after `reset`, before `capture`."""
        pf.run(self, eager)

    # -- running the step ---------------------------------------------------------------------
    def run_eager(self, steps: int = 1) -> None:
        """`steps` steps, each launch synced before the next: the debugging path."""
        for _ in range(steps):
            lk.run_each(self.buf, self.links)

    def capture(self) -> Any:
        """The step as one `.then` chain captured into a CUDA graph, which runs it once; each
        `replay()` runs one more step. `sync()` ends it (the buffers stay usable)."""
        return lk.chain(self.buf, self.links).graph()

    def tokens(self, start: int, n: int) -> list[int]:
        """history[start:start + n], read back (waits for the steps enqueued so far)."""
        return [int(t) for t in self.buf["history"].numpy()[start:start + n]]

    def logits(self) -> NDArray[np.float32]:
        """The last step's logits (waits for it)."""
        out: NDArray[np.float32] = self.buf["logits"].numpy()[0]
        return out

    # -- the launches of one step -------------------------------------------------------------
    # h is the residual stream; a split projection leaves partial sums (po, pd) that the next
    # add_rms_norm adds to the residual (into h2 or h) as it normalizes into x.
    def _links(self, s: Sampling) -> list[Link]:
        c, hp = self.cfg, (1, pow2(self.cfg.hidden_size))
        out = [Link(self.kern["embed"], ("h",), (hp,), (self.embed, "history", "pos")),
               Link(k.rms_norm, ("x",), (hp,), ("h", self.layers[0].input_norm, c.rms_norm_eps),
                    {"H": c.hidden_size})]
        for i, layer in enumerate(self.layers):
            after = self.layers[i + 1].input_norm if i + 1 < len(self.layers) else self.norm
            out += self._attention_links(i, layer) + self._mlp_links(layer, after)
        v, hist = c.vocab_size, (self.buf["history"].shape[0],)
        m = self.lm_head
        if s.temperature <= 0:
            head = Link(self._hinted("lm_head", m), ("logits", "top", "top_at"),
                        ((1, m.bn), (1, 1), (1, 1)), ("x", m.w),
                        {"V": v, "BK": m.bk, "LAT": m.latency})
            nb = self.head_blocks
            return [*out, head, Link(k.greedy_next, ("history", "pos"), (hist, (1,)),
                                     ("n_prompt", "top", "top_at"),
                                     {"NB": nb, "V": v, "BV": min(pow2(nb), 1024)})]
        top_k = v if s.top_k <= 0 else min(s.top_k, v)
        scalars = (s.seed, 1.0 / s.temperature, top_k, s.top_p)
        return [*out, self._gemv("logits", m, "x"),
                Link(k.sample_next, ("history", "pos"), (hist, (1,)),
                     ("n_prompt", "logits", *scalars), {"V": v, "BV": min(pow2(v), 1024)})]

    def _gemv(self, y: str, m: Matrix, x: str) -> Link:
        return Link(self._hinted("gemv", m), (y,), ((1, m.bn),), (x, m.w),
                    {"S": m.splits, "BK": m.bk, "LAT": m.latency})

    def _hinted(self, name: str, m: Matrix) -> Any:
        kernel = self.kern[name]
        return kernel.with_hints(**m.hints) if m.hints else kernel

    def _add_norm(self, h: str, res: str, parts: str, w: ct.HostTensor) -> Link:
        c, hp = self.cfg, (1, pow2(self.cfg.hidden_size))
        return Link(k.add_rms_norm, (h, "x"), (hp, hp), (res, parts, w, c.rms_norm_eps),
                    {"H": c.hidden_size, "S": self.buf[parts].shape[0]})

    def _attention_links(self, i: int, layer: DeviceLayer) -> list[Link]:
        c, d = self.cfg, self.cfg.head_dim
        nh, nkv = c.num_attention_heads, c.num_key_value_heads
        kc, vc, slab = f"k{i}", f"v{i}", (1, self.cache_rows, d)
        return [
            self._gemv("qkv", layer.qkv, "x"),
            Link(self.kern["qk_rope_append"], ("q", kc, vc), ((1, c.group, d), slab, slab),
                 ("qkv", layer.q_norm, layer.k_norm, self.inv_freq, "pos", c.rms_norm_eps),
                 {"NH": nh, "NKV": nkv}),
            Link(self.kern["decode_attention"], ("ao", "am", "al"), ((1, d), (1, 1), (1, 1)),
                 ("q", kc, vc, "pos", d ** -0.5),
                 {"G": c.group, "A": self.splits, "BN": self.cache_tile}),
            Link(k.attention_merge, ("attn",), ((1, d),), ("ao", "am", "al"), {"A": self.splits}),
            self._gemv("po", layer.o, "attn"),
            self._add_norm("h2", "h", "po", layer.post_norm),
        ]

    def _mlp_links(self, layer: DeviceLayer, after: ct.HostTensor) -> list[Link]:
        m = layer.gate
        return [
            Link(self._hinted("gate_up", m), ("act",), ((1, m.bn),), ("x", m.w, layer.up.w),
                 {"BK": m.bk, "LAT": m.latency}),
            self._gemv("pd", layer.down, "act"),
            self._add_norm("h", "h2", "pd", after),
        ]


def check_ids(ids: list[int], vocab_size: int) -> None:
    """ValueError naming the first id outside the vocabulary."""
    for t in ids:
        if not 0 <= t < vocab_size:
            raise ValueError(f"token id {t} is outside the vocabulary (0..{vocab_size - 1})")


def attention_splits(heads: int, tiles: int) -> int:
    """Parts of the cache per head in decode attention: a power of two (the merge loads them as
    one tile), at most one block per SM (more were slower on the H200: 32 heads at a 1k
    context took 9.3 us in 4 parts, 12.4 in 8, 13.6 in 16, 25.1 in 1) and cache tile."""
    s = 1
    while heads * 2 * s <= SMS and 2 * s <= tiles:
        s *= 2
    return s


def rope_inv_freq(theta: float, d: int) -> F32:
    """RoPE's inverse frequencies, computed in float32 as transformers does."""
    exponents = np.arange(0, d, 2, dtype=np.int64).astype(np.float32) / np.float32(d)
    out: F32 = (np.float32(1.0) / (np.float32(theta) ** exponents)).astype(np.float32)
    return out
