"""The model described once, for any number of rows: the ops of the forward pass over named
activations, from the embedding through every layer to the LM head and the pick of the next
token. The decode step (step.py: one row, the position read on the device) and the batched
prefill (prefill.py: the prompt's P rows) are two lowerings of this one list onto kernels;
neither writes the layer graph itself.

Activations (float32, one row per token): h and h2 the residual stream, x a norm's output
(the next projection's input), qkv the stacked projection, q the rotated query heads, attn the
attention's output, act the MLP's SwiGLU. A layer:

    x    = RMSNorm(h) * input_norm
    qkv  = x @ [Wq; Wk; Wv]^T
    q, cache[i] += rope(q/k norm(qkv))     (the norm only where the family has one)
    attn = causal GQA attention(q, cache[i])
    h2   = h + attn @ Wo^T
    x    = RMSNorm(h2) * post_norm
    act  = silu(x @ Wg^T) * (x @ Wu^T)
    h    = h2 + act @ Wd^T

After the last layer: x = RMSNorm(h) * norm on the last row, then the LM head and the pick.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from config import ModelConfig
from numpy.typing import NDArray
from tuning import DEFAULT, Tuning

import cutile as ct

F32 = NDArray[np.float32]
DTYPES = {"float32": ct.f32, "bfloat16": ct.bf16}


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
    def on_device(w: ct.HostTensor, role: str = "qkv", tuning: Tuning = DEFAULT) -> Matrix:
        """The tiling of a role (qkv, o, gate_up, down, head) from the GPU's tuning entry."""
        n, k = w.shape
        t = tuning.gemv(n, k, role)
        return Matrix(w, n, t.bn, t.bk, t.splits, t.hints, t.latency)

    @staticmethod
    def of(a: F32, dtype: str, role: str = "qkv", tuning: Tuning = DEFAULT) -> Matrix:
        return Matrix.on_device(ct.from_numpy(a, dtype=DTYPES[dtype]), role, tuning)


@dataclass
class DeviceLayer:
    input_norm: ct.HostTensor
    qkv: Matrix  # q, k and v projections stacked: one GEMV
    q_norm: ct.HostTensor | None  # None: the family has no q/k norm
    k_norm: ct.HostTensor | None
    o: Matrix
    post_norm: ct.HostTensor
    gate: Matrix
    up: Matrix
    down: Matrix


# -- the ops ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Embed:
    """out = the embedding rows of the tokens."""
    out: str


@dataclass(frozen=True)
class Norm:
    """out = RMSNorm(src) * weight; `last_row`: of the last row only (into a one-row out)."""
    out: str
    src: str
    weight: ct.HostTensor
    last_row: bool = False


@dataclass(frozen=True)
class Project:
    """out = src @ W^T, plus the `residual` activation when there is one."""
    out: str
    src: str
    w: Matrix
    residual: str | None = None


@dataclass(frozen=True)
class SwiGLU:
    """out = silu(src @ gate^T) * (src @ up^T)."""
    out: str
    src: str
    gate: Matrix
    up: Matrix


@dataclass(frozen=True)
class Rope:
    """From the stacked projection `src`: the query heads, normed (when q_norm is given) and
    rotated, into `q`; the key heads (likewise) and the value heads into layer `layer`'s KV
    cache at the rows' positions."""
    q: str
    src: str
    layer: int
    q_norm: ct.HostTensor | None
    k_norm: ct.HostTensor | None


@dataclass(frozen=True)
class Attend:
    """out = causal attention of the rows' queries over layer `layer`'s KV cache."""
    out: str
    q: str
    layer: int


@dataclass(frozen=True)
class Head:
    """The LM head on `src` (one row) and the pick of the next token."""
    src: str


Op = Embed | Norm | Project | SwiGLU | Rope | Attend | Head


def layer_ops(i: int, w: DeviceLayer) -> list[Op]:
    """Layer i (the module docstring's eight lines)."""
    return [Norm("x", "h", w.input_norm),
            Project("qkv", "x", w.qkv),
            Rope("q", "qkv", i, w.q_norm, w.k_norm),
            Attend("attn", "q", i),
            Project("h2", "attn", w.o, residual="h"),
            Norm("x", "h2", w.post_norm),
            SwiGLU("act", "x", w.gate, w.up),
            Project("h", "act", w.down, residual="h2")]


def model_ops(layers: list[DeviceLayer], norm: ct.HostTensor) -> list[Op]:
    """The whole forward pass and the pick."""
    ops: list[Op] = [Embed("h")]
    for i, w in enumerate(layers):
        ops += layer_ops(i, w)
    return [*ops, Norm("x", "h", norm, last_row=True), Head("x")]


def widths(cfg: ModelConfig) -> dict[str, int]:
    """Each activation's width (its columns per row)."""
    c, d = cfg, cfg.head_dim
    nh, nkv = c.num_attention_heads, c.num_key_value_heads
    return {"h": c.hidden_size, "h2": c.hidden_size, "x": c.hidden_size,
            "qkv": (nh + 2 * nkv) * d, "q": nh * d, "attn": nh * d,
            "act": c.intermediate_size}
