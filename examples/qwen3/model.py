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

from dataclasses import dataclass, field
from functools import partial
from typing import Any

import kernels as k
import numpy as np
import prefill as pf
from config import Qwen3Config
from numpy.typing import NDArray
from weights import Layer, Weights

import cutile as ct

F32 = NDArray[np.float32]
DTYPES = {"float32": ct.f32, "bfloat16": ct.bf16}
CACHE_TILE = 64  # cache rows per tile, in the append and attention kernels


def pow2(n: int) -> int:
    return 1 << (n - 1).bit_length()


@dataclass(frozen=True)
class Link:
    """One launch of a step: `kernel` with the buffers `outs` split into `tiles` slabs (its
    `Mut` arguments, first), then `args` (a str names a buffer, anything else is passed as is)
    and the Consts."""
    kernel: Any
    outs: tuple[str, ...]
    tiles: tuple[tuple[int, ...], ...]
    args: tuple[Any, ...]
    consts: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Sampling:
    """temperature 0: greedy; else softmax(logits / temperature) restricted to the top_k
    logits (0: all) and then to the smallest set of those with mass >= top_p."""
    temperature: float = 0.0
    top_k: int = 0
    top_p: float = 1.0
    seed: int = 0


@dataclass
class Matrix:
    """A weight matrix (N, K) on the device, with the GEMV tile shape that suits it."""
    w: ct.HostTensor
    n: int
    bn: int
    bk: int

    @staticmethod
    def on_device(w: ct.HostTensor) -> Matrix:
        n, kk = w.shape
        return Matrix(w, n, min(pow2(n), 64), min(pow2(kk), 128))

    @staticmethod
    def of(a: F32, dtype: str) -> Matrix:
        return Matrix.on_device(ct.from_numpy(a, dtype=DTYPES[dtype]))


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
                       vec(w.q_norm), vec(w.k_norm), Matrix.of(w.o, dtype), vec(w.post_norm),
                       Matrix.of(w.gate, dtype), Matrix.of(w.up, dtype), Matrix.of(w.down, dtype))


class Qwen3:
    """A Qwen3 model on the device; `reset` makes the KV cache and the step's buffers."""

    def __init__(self, cfg: Qwen3Config, weights: Weights, dtype: str = "float32",
                 cache_tile: int = CACHE_TILE) -> None:
        if dtype not in DTYPES:
            raise ValueError(f"dtype {dtype!r}: expected one of {', '.join(DTYPES)}")
        self.cfg, self.dtype, self.cache_tile = cfg, dtype, cache_tile
        suffix = "bf16" if dtype == "bfloat16" else "f32"
        self.kern = {name: getattr(k, f"{name}_{suffix}")
                     for name in ("embed", "gemv", "gemv_residual", "gate_up")}
        self.embed = ct.from_numpy(weights.embed, dtype=DTYPES[dtype])
        self.lm_head = (Matrix.on_device(self.embed) if cfg.tie_word_embeddings
                        else Matrix.of(weights.lm_head, dtype))
        self.layers = [_device_layer(w, dtype) for w in weights.layers]
        self.norm = ct.from_numpy(weights.norm.astype(np.float32))
        self.inv_freq = ct.from_numpy(rope_inv_freq(cfg.rope_theta, cfg.head_dim))
        self.buf: dict[str, ct.HostTensor] = {}
        self.links: list[Link] = []
        self.cache_rows = 0

    def reset(self, prompt: list[int], max_new_tokens: int,
              sampling: Sampling | None = None) -> None:
        """Fresh buffers for `prompt` and `max_new_tokens` more tokens: the KV cache, the token
        history (the prompt, then the picks), the position (0) and the step's activations."""
        c, d, v = self.cfg, self.cfg.head_dim, self.cfg.vocab_size
        if not prompt or max_new_tokens < 1:
            raise ValueError("need at least one prompt token and one new token")
        for t in prompt:
            if not 0 <= t < v:
                raise ValueError(f"token id {t} is outside the vocabulary (0..{v - 1})")
        seq = len(prompt) + max_new_tokens
        self.cache_rows = -(-seq // self.cache_tile) * self.cache_tile  # whole attention tiles
        cache = (c.num_key_value_heads, self.cache_rows, d)
        nh, nkv = c.num_attention_heads, c.num_key_value_heads
        f32 = {"h": (1, c.hidden_size), "h2": (1, c.hidden_size), "x": (1, c.hidden_size),
               "qkv": (1, (nh + 2 * nkv) * d), "qk": (nh + nkv, d), "attn": (1, nh * d),
               "act": (1, c.intermediate_size), "logits": (1, v),
               **{f"{kv}{i}": cache for i in range(len(self.layers)) for kv in "kv"}}
        self.buf = {name: ct.zeros(shape, ct.f32) for name, shape in f32.items()}
        history = np.zeros(seq, dtype=np.int32)
        history[:len(prompt)] = prompt
        self.buf |= {"history": ct.from_numpy(history), "pos": ct.zeros((1,), ct.i32),
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
    def _launch(self, i: int) -> Any:
        ln = self.links[i]
        args = (self.buf[a] if isinstance(a, str) else a for a in ln.args)
        outs = (self.buf.pop(o).partition(t) for o, t in zip(ln.outs, ln.tiles, strict=True))
        return ln.kernel(*outs, *args, **ln.consts)

    def _written(self, i: int, results: tuple[Any, ...]) -> None:
        """Link i's outputs are back: the buffers they were split from, written."""
        for o, p in zip(self.links[i].outs, results, strict=False):
            self.buf[o] = p.unpartition()

    def _next(self, i: int, *results: Any) -> Any:
        """A `.then` link: link i - 1 is done, launch link i (or end the chain)."""
        self._written(i - 1, results)
        return self._launch(i) if i < len(self.links) else ()

    def run_eager(self, steps: int = 1) -> None:
        """`steps` steps, each launch synced before the next: the debugging path."""
        for _ in range(steps):
            for i in range(len(self.links)):
                self._written(i, self._launch(i).sync())

    def capture(self) -> Any:
        """The step as one `.then` chain captured into a CUDA graph, which runs it once; each
        `replay()` runs one more step. `sync()` ends it (the buffers stay usable)."""
        op = self._launch(0)
        for i in range(1, len(self.links) + 1):
            op = op.then(partial(self._next, i))
        return op.graph()

    def tokens(self, start: int, n: int) -> list[int]:
        """history[start:start + n], read back (waits for the steps enqueued so far)."""
        return [int(t) for t in self.buf["history"].numpy()[start:start + n]]

    def logits(self) -> NDArray[np.float32]:
        """The last step's logits (waits for it)."""
        out: NDArray[np.float32] = self.buf["logits"].numpy()[0]
        return out

    # -- the launches of one step -------------------------------------------------------------
    def _links(self, s: Sampling) -> list[Link]:
        c, hp = self.cfg, (1, pow2(self.cfg.hidden_size))
        out = [Link(self.kern["embed"], ("h",), (hp,), (self.embed, "history", "pos"))]
        for i, layer in enumerate(self.layers):
            out += self._attention_links(i, layer) + self._mlp_links(layer)
        out += [self._norm("h", self.norm), self._gemv("logits", self.lm_head, "x")]
        v, hist = c.vocab_size, (self.buf["history"].shape[0],)
        pick = (hist, (1,)), ("n_prompt", "logits")
        consts = {"V": v, "BV": min(pow2(v), 1024)}
        if s.temperature <= 0:
            return [*out, Link(k.greedy_next, ("history", "pos"), *pick, consts)]
        top_k = v if s.top_k <= 0 else min(s.top_k, v)
        scalars = (s.seed, 1.0 / s.temperature, top_k, s.top_p)
        return [*out, Link(k.sample_next, ("history", "pos"), pick[0], pick[1] + scalars,
                           consts)]

    def _gemv(self, y: str, m: Matrix, x: str, res: str | None = None) -> Link:
        if res is None:
            return Link(self.kern["gemv"], (y,), ((1, m.bn),), (x, m.w), {"BK": m.bk})
        return Link(self.kern["gemv_residual"], (y,), ((1, m.bn),), (res, x, m.w), {"BK": m.bk})

    def _norm(self, h: str, w: ct.HostTensor) -> Link:
        c = self.cfg
        return Link(k.rms_norm, ("x",), ((1, pow2(c.hidden_size)),), (h, w, c.rms_norm_eps),
                    {"H": c.hidden_size})

    def _attention_links(self, i: int, layer: DeviceLayer) -> list[Link]:
        c, d = self.cfg, self.cfg.head_dim
        nh, nkv = c.num_attention_heads, c.num_key_value_heads
        kc, vc = f"k{i}", f"v{i}"
        return [
            self._norm("h", layer.input_norm),
            self._gemv("qkv", layer.qkv, "x"),
            Link(k.qk_norm_rope, ("qk",), ((1, d),), ("qkv", layer.q_norm, layer.k_norm,
                 self.inv_freq, "pos", c.rms_norm_eps), {"NH": nh}),
            Link(k.kv_append, (kc, vc), ((1, self.cache_rows, d),) * 2, ("qk", "qkv", "pos"),
                 {"NH": nh, "NKV": nkv}),
            Link(k.decode_attention, ("attn",), ((1, d),), ("qk", kc, vc, "pos", d ** -0.5),
                 {"G": c.group, "BN": self.cache_tile}),
            self._gemv("h2", layer.o, "attn", res="h"),
        ]

    def _mlp_links(self, layer: DeviceLayer) -> list[Link]:
        m = layer.gate
        return [
            self._norm("h2", layer.post_norm),
            Link(self.kern["gate_up"], ("act",), ((1, m.bn),), ("x", m.w, layer.up.w),
                 {"BK": m.bk}),
            self._gemv("h", layer.down, "act", res="h2"),
        ]


def rope_inv_freq(theta: float, d: int) -> F32:
    """RoPE's inverse frequencies, computed in float32 as transformers does."""
    exponents = np.arange(0, d, 2, dtype=np.int64).astype(np.float32) / np.float32(d)
    out: F32 = (np.float32(1.0) / (np.float32(theta) ** exponents)).astype(np.float32)
    return out
