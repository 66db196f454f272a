"""The engine: a model's weights as cutile tensors, and a decode step made of kernel launches.
Generic over the families of families.py (Qwen3, Llama 3.x): what differs between them is in
the config (config.py), the tensor names (weights.py) and whether the layer description has a
q/k norm (layers.py); this module holds what they share.

A step reads the position from a (1,) i32 device tensor and its token from a token history at
that position, runs the forward pass into the (1, vocab) logits, picks the next token (greedy or
sampled), writes it to the history and advances the position: every argument of every launch
is the same from one step to the next. So the step is a fixed list of launches (`Link`s over
named device buffers) that runs either eagerly, one synced launch at a time (`run_eager`, for
debugging), or as one CUDA graph captured from a `.then` chain and replayed once per step
(`capture`). The launches come from the model's one description (`layers.model_ops`) lowered
for one row (step.py); the batched prefill lowers the same description for the prompt's rows
(prefill.py). Every computation is a cutile kernel; the host only replays.

Tensor parallel (`tp`, tp.py): each rank holds its shard of every weight (layers.SHARDS: its
query and key/value heads, its slice of the MLP and of the vocabulary), a KV cache for its kv
heads, and runs the same step with the collectives between its links (layers.AllReduce,
Head.vocab_split). One rank (the default) is the single-process engine, unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import links as lk
import numpy as np
import prefill as pf
import tuning as tn
from config import ModelConfig
from kernel_table import PDL_MODES, Kernels
from layers import DTYPES, SHARDS, DeviceLayer, Matrix, Op, check_split, model_ops, widths
from links import Links
from numpy.typing import NDArray
from rope import inv_freq, rope_inv_freq
from step import Step
from tp import SINGLE, TensorParallel
from weights import Layer, Weights

import cutile as ct

F32 = NDArray[np.float32]
CACHE_TILE = tn.DEFAULT.cache_tile  # cache rows per tile, in the append and attention kernels

__all__ = ["CACHE_TILE", "DTYPES", "Engine", "Matrix", "Qwen3", "Sampling", "attention_splits",
           "check_ids", "rope_inv_freq"]


@dataclass(frozen=True)
class Sampling:
    """temperature 0: greedy; else softmax(logits / temperature) restricted to the top_k
    logits (0: all) and then to the smallest set of those with mass >= top_p."""
    temperature: float = 0.0
    top_k: int = 0
    top_p: float = 1.0
    seed: int = 0


def shard(name: str, a: F32, cfg: ModelConfig, tp: TensorParallel) -> F32:
    """Rank tp.rank's piece of weight `name` (layers.SHARDS; the whole of it with one rank)."""
    spec = SHARDS[name]
    unit = getattr(cfg, spec.unit) if spec.unit else 1
    return spec.take(a, tp.rank, tp.world, unit, name)


def _device_layer(w: Layer, dtype: str, t: tn.Tuning, cfg: ModelConfig,
                  tp: TensorParallel) -> DeviceLayer:
    def vec(a: F32 | None) -> ct.HostTensor | None:
        return None if a is None else ct.from_numpy(np.ascontiguousarray(a, dtype=np.float32))

    def mat(name: str, role: str) -> Matrix:
        return Matrix.of(shard(name, getattr(w, name), cfg, tp), dtype, role, t)

    input_norm, post_norm = vec(w.input_norm), vec(w.post_norm)
    assert input_norm is not None and post_norm is not None
    qkv = np.concatenate([shard(n, getattr(w, n), cfg, tp) for n in "qkv"])
    return DeviceLayer(input_norm, Matrix.of(qkv, dtype, "qkv", t), vec(w.q_norm),
                       vec(w.k_norm), mat("o", "o"), post_norm, mat("gate", "gate_up"),
                       mat("up", "gate_up"), mat("down", "down"))


class Engine:
    """A model on the device; `reset` makes the KV cache and the step's buffers.

    `dtype` is the matrices' (and embedding's) dtype; `kv_dtype` the KV cache's, by default
    the same (a bfloat16 model keeps bfloat16 K and V, as transformers does: half the bytes the
    attention reads). Activations and norms are float32 either way. `tuning`: the tilings
    (tuning.json's entry for the current GPU unless given); `cache_tile` overrides its cache
    tile. `progress` is called with 1 as each layer's weights reach the device. `tp`: this
    process's rank in a tensor-parallel group (tp.py; default: one rank, nothing split).
    `pdl` ("entry" or "prefetch", kernel_table.Kernels): every kernel launched as a
    programmatic dependent launch (the same results; sm_90+ overlaps the kernel boundaries).
    `fuse_norms`: each RMSNorm inside the projection that reads it, the residual stream kept
    as partial sums (step.py's fused_links: 6 launches a layer instead of 8)."""

    def __init__(self, cfg: ModelConfig, weights: Weights, dtype: str = "float32",
                 cache_tile: int | None = None, kv_dtype: str | None = None,
                 progress: Callable[[int], None] | None = None,
                 tuning: tn.Tuning | None = None, tp: TensorParallel = SINGLE,
                 pdl: str | None = None, fuse_norms: bool = False) -> None:
        kv_dtype = dtype if kv_dtype is None else kv_dtype
        if pdl is not None and pdl not in PDL_MODES:
            raise ValueError(f"pdl {pdl!r}: expected one of {', '.join(PDL_MODES)}")
        for name, value in (("dtype", dtype), ("kv_dtype", kv_dtype)):
            if value not in DTYPES:
                raise ValueError(f"{name} {value!r}: expected one of {', '.join(DTYPES)}")
        self.tuning = tn.load(tn.device_name()) if tuning is None else tuning
        self.cfg, self.dtype, self.kv_dtype = cfg, dtype, kv_dtype
        self.cache_tile = self.tuning.cache_tile if cache_tile is None else cache_tile
        self.kernels = Kernels(dtype, kv_dtype, pdl)
        self.fuse_norms = fuse_norms
        check_split(cfg, tp.world)
        self.tp = tp
        self.widths = widths(cfg, tp.world)
        # this rank's query and kv heads, and its rows of the LM head (the whole vocabulary
        # with one rank; else ceil(V / world), the last rank's padded)
        self.heads = (cfg.num_attention_heads // tp.world, cfg.num_key_value_heads // tp.world)
        self.vocab_rows = SHARDS["lm_head"].size(cfg.vocab_size, tp.world)
        self.embed = ct.from_numpy(weights.embed, dtype=DTYPES[dtype])
        if cfg.tie_word_embeddings and tp.world == 1:
            self.lm_head = Matrix.on_device(self.embed, "head", self.tuning)
        else:  # tied and split: this rank's rows of the embedding, a copy of them
            head = shard("lm_head", weights.lm_head, cfg, tp)
            self.lm_head = Matrix.of(head, dtype, "head", self.tuning)
        self.layers = []
        for w in weights.layers:  # `progress` hears of each layer copied to the device
            self.layers.append(_device_layer(w, dtype, self.tuning, cfg, tp))
            if progress is not None:
                progress(1)
        self.norm = ct.from_numpy(weights.norm.astype(np.float32))
        self.inv_freq = ct.from_numpy(inv_freq(cfg))
        self.buf: dict[str, ct.HostTensor] = {}
        self.links: Links = []
        self.sampling = Sampling()
        self.graph_collectives = False  # capture(): see there
        self.cache_rows = self.cache_seq = self.splits = 0
        self.head_blocks = -(-self.vocab_rows // self.lm_head.bn)  # the greedy pick's candidates

    def ops(self) -> list[Op]:
        """The model's forward pass and pick, described once (layers.py)."""
        return model_ops(self.layers, self.norm, self.tp.world)

    def reset(self, prompt: list[int], max_new_tokens: int,
              sampling: Sampling | None = None) -> None:
        """Fresh buffers for `prompt` and `max_new_tokens` more tokens: the KV cache, the token
        history (the prompt, then the picks), the position (0) and the step's activations."""
        c = self.cfg
        if not prompt or max_new_tokens < 1:
            raise ValueError("need at least one prompt token and one new token")
        check_ids(prompt, c.vocab_size)
        self.cache_seq = seq = len(prompt) + max_new_tokens
        self.cache_rows = -(-seq // self.cache_tile) * self.cache_tile  # whole attention tiles
        self.splits = self.tuning.attention_splits(self.heads[0],
                                                   self.cache_rows // self.cache_tile)
        self.sampling = sampling or Sampling()
        step = Step(self)
        self.links = step.links(self.ops(), self.sampling)
        cache = (self.heads[1], self.cache_rows, c.head_dim)  # this rank's kv heads
        self.buf = {name: ct.zeros(shape, dtype) for name, (shape, dtype) in step.shapes.items()}
        self.buf |= {f"{kv}{i}": ct.zeros(cache, DTYPES[self.kv_dtype])
                     for i in range(len(self.layers)) for kv in "kv"}
        history = np.zeros(seq, dtype=np.int32)
        history[:len(prompt)] = prompt
        self.buf |= {"history": ct.from_numpy(history), "pos": ct.zeros((1,), ct.i32),
                     "n_prompt": ct.from_numpy(np.array([len(prompt)], dtype=np.int32))}

    def skip_to(self, pos: int) -> None:
        """Starts the next step at `pos` as if positions 0..pos-1 were done (their cache rows
        stay zeros): for timing decode at a long context without its prefill. Before capture."""
        if not 0 <= pos < self.buf["history"].shape[0]:
            raise ValueError(f"position {pos} is outside the token history")
        self.buf["pos"] = ct.from_numpy(np.array([pos], dtype=np.int32))

    def prefill(self, eager: bool = False) -> None:
        """The whole prompt in one batched forward pass (prefill.py: the same description on
        GEMMs and causal attention over its P rows) instead of P steps: KV-cache rows 0..P-1,
        the first new token in history[P], pos = P. Right after `reset`, before `capture`."""
        pf.run(self, eager)

    # -- running the step ---------------------------------------------------------------------
    def run_eager(self, steps: int = 1) -> None:
        """`steps` steps, each launch synced before the next: the debugging path."""
        for _ in range(steps):
            lk.run_each(self.buf, self.links)

    def capture(self, graph_collectives: bool | None = None) -> Any:
        """The step as one `.then` chain captured into a CUDA graph, which runs it once; each
        `replay()` runs one more step. `sync()` ends it (the buffers stay usable).

        A tensor-parallel step has collectives between its launches (host links): a graph
        would replay the launches without them (the interpreter records launches only; gloo
        works on the host), so then each replay runs the step as one `.then` chain instead,
        synced. `graph_collectives` captures them anyway: NCCL on CUDA enqueues its
        collectives on the captured stream (NCCL supports graph capture). UNTESTED: no
        machine with two GPUs was lent yet."""
        if graph_collectives is None:
            graph_collectives = self.graph_collectives
        if not lk.has_host_links(self.links):
            return lk.chain(self.buf, self.links).graph()
        if not graph_collectives:
            return ChainSteps(self.buf, self.links)
        if self.tp.comm is None or not self.tp.comm.capturable():
            raise ValueError("collectives in a CUDA graph (--tp-graph) need NCCL on the CUDA "
                             "backend: gloo and the interpreter run them on the host")
        return lk.chain(self.buf, self.links).graph()

    def tokens(self, start: int, n: int) -> list[int]:
        """history[start:start + n], read back (waits for the steps enqueued so far): only
        those n ids cross to the host."""
        return [int(t) for t in self.buf["history"][start:start + n].numpy()]

    def logits(self) -> NDArray[np.float32]:
        """The last step's logits (waits for it)."""
        out: NDArray[np.float32] = self.buf["logits"].numpy()[0]
        return out


class ChainSteps:
    """A step with host links, run as a graph is used (`replay`, `sync`): each replay is one
    `.then` chain of the step, synced; the first runs at once, as `.graph()` does."""

    def __init__(self, buf: lk.Buffers, links: Links) -> None:
        self.buf, self.links = buf, links
        self.replay()

    def replay(self) -> None:
        lk.chain(self.buf, self.links).sync()

    def sync(self) -> None:
        """Every step has been waited for already."""


Qwen3 = Engine  # the engine's name from before it ran other families


def check_ids(ids: list[int], vocab_size: int) -> None:
    """ValueError naming the first id outside the vocabulary."""
    for t in ids:
        if not 0 <= t < vocab_size:
            raise ValueError(f"token id {t} is outside the vocabulary (0..{vocab_size - 1})")


def attention_splits(heads: int, tiles: int, tuning: tn.Tuning = tn.DEFAULT) -> int:
    """Parts of the cache per head in decode attention (tuning.Tuning.attention_splits)."""
    return tuning.attention_splits(heads, tiles)
