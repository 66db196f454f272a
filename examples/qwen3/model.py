"""The engine: Qwen3 weights as cutile tensors, and a decode step that launches the kernels.

One step takes a token id and its position and returns the logits of the next token, on the
device; `next_token` picks the greedy token there too, so only its id comes back to the host.
Every computation is a cutile kernel; the host only orders the launches. Each launch is synced
before the next one reads its output; capturing the step as one graph is the next slice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import kernels as k
import numpy as np
from config import Qwen3Config
from numpy.typing import NDArray
from weights import Layer, Weights

import cutile as ct

F32 = NDArray[np.float32]
DTYPES = {"float32": ct.f32, "bfloat16": ct.bf16}
CACHE_TILE = 64  # cache rows per tile, in the append and attention kernels


def pow2(n: int) -> int:
    return 1 << (n - 1).bit_length()


def launch_all(kernel: Any, outs: tuple[ct.HostTensor, ...], tile: tuple[int, ...],
               *args: Any, **consts: Any) -> tuple[ct.HostTensor, ...]:
    """Runs `kernel` with each output split into `tile` slabs (its `Mut` arguments, first);
    returns the outputs, written."""
    done = kernel(*(o.partition(tile) for o in outs), *args, **consts).sync()
    return tuple(p.unpartition() for p in done[:len(outs)])


def launch(kernel: Any, out: ct.HostTensor, tile: tuple[int, ...], *args: Any,
           **consts: Any) -> ct.HostTensor:
    """`launch_all` with one output."""
    return launch_all(kernel, (out,), tile, *args, **consts)[0]


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
    """A Qwen3 model on the device, with a KV cache of `max_seq` positions."""

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
        self.cache: list[tuple[ct.HostTensor, ct.HostTensor]] = []
        self.cache_rows = 0

    def reset(self, max_seq: int) -> None:
        """An empty KV cache for positions 0..max_seq-1."""
        self.cache_rows = -(-max_seq // self.cache_tile) * self.cache_tile
        shape = (self.cfg.num_key_value_heads, self.cache_rows, self.cfg.head_dim)
        self.cache = [(ct.zeros(shape, ct.f32), ct.zeros(shape, ct.f32)) for _ in self.layers]

    def step(self, token: int | ct.HostTensor, pos: int) -> ct.HostTensor:
        """Appends `token` (an id, or a (1,) i32 device tensor from `next_token`) at `pos` to
        the cache; returns the (1, vocab) logits for position pos + 1, on the device."""
        if isinstance(token, int):
            if not 0 <= token < self.cfg.vocab_size:
                raise ValueError(f"token id {token} is outside the vocabulary "
                                 f"(0..{self.cfg.vocab_size - 1})")
            token = ct.from_numpy(np.array([token], dtype=np.int32))
        if not 0 <= pos < self.cache_rows:  # the append would match no row: say so instead
            raise ValueError(f"position {pos} is outside the KV cache (0..{self.cache_rows - 1})"
                             "; call reset(max_seq) with room for it")
        pos_t = ct.from_numpy(np.array([pos], dtype=np.int32))
        hidden = self.cfg.hidden_size
        h = launch(self.kern["embed"], ct.zeros((1, hidden), ct.f32), (1, pow2(hidden)),
                   self.embed, token)
        for i, layer in enumerate(self.layers):
            h = self._attention_block(i, layer, h, pos_t)
            h = self._mlp_block(layer, h)
        return self._gemv(self.lm_head, self._norm(h, self.norm))

    def next_token(self, logits: ct.HostTensor) -> ct.HostTensor:
        """The greedy choice, as a (1,) i32 device tensor that `step` takes as its token."""
        v = self.cfg.vocab_size
        return launch(k.argmax_row, ct.zeros((1,), ct.i32), (1,), logits, V=v,
                      BV=min(pow2(v), 1024))

    def _gemv(self, m: Matrix, x: ct.HostTensor, res: ct.HostTensor | None = None) -> ct.HostTensor:
        y = ct.zeros((1, m.n), ct.f32)
        if res is None:
            return launch(self.kern["gemv"], y, (1, m.bn), x, m.w, BK=m.bk)
        return launch(self.kern["gemv_residual"], y, (1, m.bn), res, x, m.w, BK=m.bk)

    def _norm(self, h: ct.HostTensor, w: ct.HostTensor) -> ct.HostTensor:
        c = self.cfg
        return launch(k.rms_norm, ct.zeros((1, c.hidden_size), ct.f32),
                      (1, pow2(c.hidden_size)), h, w, c.rms_norm_eps, H=c.hidden_size)

    def _attention_block(self, i: int, layer: DeviceLayer, h: ct.HostTensor,
                         pos: ct.HostTensor) -> ct.HostTensor:
        c, d = self.cfg, self.cfg.head_dim
        nh, nkv = c.num_attention_heads, c.num_key_value_heads
        qkv = self._gemv(layer.qkv, self._norm(h, layer.input_norm)).reshape((nh + 2 * nkv, d))
        qk = launch(k.qk_norm_rope, ct.zeros((nh + nkv, d), ct.f32), (1, d), qkv, layer.q_norm,
                    layer.k_norm, self.inv_freq, pos, c.rms_norm_eps, NH=nh)
        kc, vc = launch_all(k.kv_append, self.cache[i], (1, self.cache_tile, d), qk, qkv, pos,
                            NH=nh, NKV=nkv)
        self.cache[i] = (kc, vc)
        attn = launch(k.decode_attention, ct.zeros((nh, d), ct.f32), (1, d), qk, kc, vc, pos,
                      d ** -0.5, G=c.group, BN=self.cache_tile)
        return self._gemv(layer.o, attn.reshape((1, nh * d)), res=h)

    def _mlp_block(self, layer: DeviceLayer, h: ct.HostTensor) -> ct.HostTensor:
        x = self._norm(h, layer.post_norm)
        m = layer.gate
        act = launch(self.kern["gate_up"], ct.zeros((1, m.n), ct.f32), (1, m.bn), x, m.w,
                     layer.up.w, BK=m.bk)
        return self._gemv(layer.down, act, res=h)


def rope_inv_freq(theta: float, d: int) -> F32:
    """RoPE's inverse frequencies, computed in float32 as transformers does."""
    exponents = np.arange(0, d, 2, dtype=np.int64).astype(np.float32) / np.float32(d)
    out: F32 = (np.float32(1.0) / (np.float32(theta) ** exponents)).astype(np.float32)
    return out
