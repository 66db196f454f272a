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

Tensor parallelism (Megatron's split) is part of the description too: `SHARDS` says how each
weight is split over the ranks of a group, and `model_ops(..., world)` puts an `AllReduce` after
the two projections whose inputs are split (o and down); the LM head's `vocab_split` says its
rows (the vocabulary) are split, so the pick is made over every rank's candidates. With one rank
there is no `AllReduce` and nothing is split: the single-process description.
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


# -- tensor-parallel sharding ------------------------------------------------------------------
class ShardError(ValueError):
    """A model that cannot be split over the asked number of ranks."""


@dataclass(frozen=True)
class Shard:
    """How a weight W (N, K) is split over `world` ranks: `axis` 0 splits its rows (the
    projection's outputs: Megatron's column split), 1 its columns (the inputs: the row split),
    None keeps it whole on every rank. Rows or columns stay together in groups of `unit` (a head
    is head_dim of them), and the groups must divide evenly, except with `pad`: then each rank
    takes ceil(N / world) rows and the last rank's are filled with zero rows (the vocabulary of
    the LM head, 151936 or 997, need not divide)."""
    axis: int | None
    unit: str = ""  # the config's name of the group size ("head_dim"), "" for 1
    pad: bool = False

    def size(self, n: int, world: int) -> int:
        """The rows (or columns) of one rank's piece of an axis of `n`."""
        return -(-n // world) if self.pad else n // world

    def take(self, a: F32, rank: int, world: int, unit: int = 1, what: str = "") -> F32:
        """Rank `rank`'s piece of `a`."""
        if self.axis is None or world == 1:
            return a
        n = a.shape[self.axis]
        if not self.pad and (n // unit) % world:
            raise ShardError(f"{what}: {n // unit} {'heads' if unit > 1 else 'rows'} do not "
                             f"split evenly over {world} ranks")
        step = self.size(n, world)
        piece = np.take(a, range(rank * step, min(n, (rank + 1) * step)), axis=self.axis)
        if piece.shape[self.axis] < step:  # the last rank's padding
            widths = [(0, 0)] * a.ndim
            widths[self.axis] = (0, step - piece.shape[self.axis])
            piece = np.pad(piece, widths)
        return np.ascontiguousarray(piece, dtype=np.float32)


HEADS = Shard(0, "head_dim")  # q, k, v: whole heads per rank (columns of the output)
SHARDS: dict[str, Shard] = {
    "q": HEADS, "k": HEADS, "v": HEADS,
    "o": Shard(1, "head_dim"),  # the attention's heads are this rank's: its columns
    "gate": Shard(0), "up": Shard(0),  # the MLP's intermediate columns
    "down": Shard(1),
    "lm_head": Shard(0, pad=True),  # the vocabulary
    "embed": Shard(None), "input_norm": Shard(None), "post_norm": Shard(None),
    "q_norm": Shard(None), "k_norm": Shard(None), "norm": Shard(None),
}


def check_split(cfg: ModelConfig, world: int) -> None:
    """ShardError unless the heads (query and key/value) and the MLP split evenly."""
    for name, n in (("num_attention_heads", cfg.num_attention_heads),
                    ("num_key_value_heads", cfg.num_key_value_heads),
                    ("intermediate_size", cfg.intermediate_size)):
        if world < 1 or n % world:
            raise ShardError(f"tensor parallel over {world} ranks needs {name} ({n}) to be a "
                             f"multiple of {world}")


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
class AllReduce:
    """The projection into `out` that precedes it had its inputs split over the ranks: each
    rank holds a partial product; after this op every rank holds the sum over the ranks (the
    projection's residual counted once)."""
    out: str


@dataclass(frozen=True)
class Head:
    """The LM head on `src` (one row) and the pick of the next token; `vocab_split`: each rank
    holds a slice of the vocabulary's rows, and the pick is made over all ranks' candidates
    (the same token on every rank)."""
    src: str
    vocab_split: bool = False


Op = Embed | Norm | Project | AllReduce | SwiGLU | Rope | Attend | Head


def layer_ops(i: int, w: DeviceLayer, world: int = 1) -> list[Op]:
    """Layer i (the module docstring's eight lines; with `world` > 1 ranks, each row-split
    projection followed by its all-reduce)."""
    def reduced(p: Project) -> list[Op]:
        return [p, AllReduce(p.out)] if world > 1 else [p]

    return [Norm("x", "h", w.input_norm),
            Project("qkv", "x", w.qkv),
            Rope("q", "qkv", i, w.q_norm, w.k_norm),
            Attend("attn", "q", i),
            *reduced(Project("h2", "attn", w.o, residual="h")),
            Norm("x", "h2", w.post_norm),
            SwiGLU("act", "x", w.gate, w.up),
            *reduced(Project("h", "act", w.down, residual="h2"))]


def model_ops(layers: list[DeviceLayer], norm: ct.HostTensor, world: int = 1) -> list[Op]:
    """The whole forward pass and the pick (split over `world` ranks)."""
    ops: list[Op] = [Embed("h")]
    for i, w in enumerate(layers):
        ops += layer_ops(i, w, world)
    return [*ops, Norm("x", "h", norm, last_row=True), Head("x", vocab_split=world > 1)]


def widths(cfg: ModelConfig, world: int = 1) -> dict[str, int]:
    """Each activation's width on one rank of `world` (its columns per row)."""
    c, d = cfg, cfg.head_dim
    nh, nkv = c.num_attention_heads // world, c.num_key_value_heads // world
    return {"h": c.hidden_size, "h2": c.hidden_size, "x": c.hidden_size,
            "qkv": (nh + 2 * nkv) * d, "q": nh * d, "attn": nh * d,
            "act": c.intermediate_size // world}
