"""What a generation needs in memory, estimated from config.json before anything is read or
allocated, and the check that it fits: a model too large for the GPU's free memory is one clear
error (CT412, the code of an allocation beyond what the backend has) instead of an
out-of-memory failure half-way through loading.

Device: the weights at `--dtype` (the embedding, the LM head unless tied, every layer's matrices;
the norms in float32, Qwen3's q/k norms too), the KV cache at `--kv-dtype` (2 x layers x kv heads x
rows x head_dim, rows = prompt + new tokens rounded up to the cache tile), the decode step's
buffers and the batched prefill's (prompt rows x the layer's widths, float32); each allocation
rounded up to the CUDA allocator's granule. Host: every tensor as float32 while the checkpoint is
read (weights.py widens BF16 on the host), plus the device copies on the interpreter, whose device
is the host.

With tensor parallelism (`world` ranks) the device part is one rank's: its heads' rows of q, k
and v and columns of o, its slice of the MLP, its padded rows of the LM head (a copy of the
embedding's when tied), its kv heads' cache; the embedding and the norms are whole on every
rank. Each rank still reads the whole checkpoint on its host.
"""

from __future__ import annotations

from dataclasses import dataclass

from config import ModelConfig
from layers import SHARDS
from model import CACHE_TILE, attention_splits

BYTES = {"float32": 4, "bfloat16": 2}
MARGIN = 256 << 20  # the kernels' modules, the graph, the driver's own use
CT412 = "CT412"


class DoesNotFit(RuntimeError):
    """The model, its cache and buffers need more memory than is free (CT412)."""


@dataclass(frozen=True)
class Footprint:
    weights: int  # device bytes of the weights
    cache: int  # device bytes of the KV cache
    buffers: int  # device bytes of the step's and the prefill's buffers
    host_weights: int  # host bytes of the float32 weights while reading the checkpoint
    positions: int  # prompt + new tokens (the cache's rows before rounding)

    @property
    def device(self) -> int:
        return self.weights + self.cache + self.buffers


def estimate(cfg: ModelConfig, dtype: str, kv_dtype: str, prompt_len: int,
             new_tokens: int, cache_tile: int = CACHE_TILE, world: int = 1) -> Footprint:
    """The footprint of one rank of `world` (the whole model for 1)."""
    h, d, inter, v = cfg.hidden_size, cfg.head_dim, cfg.intermediate_size, cfg.vocab_size
    nh, nkv, layers = cfg.num_attention_heads, cfg.num_key_value_heads, cfg.num_hidden_layers
    wb, kb = BYTES[dtype], BYTES[kv_dtype]
    whole = [(nh + 2 * nkv) * d * h, h * nh * d, inter * h, inter * h, h * inter] * layers
    whole += [v * h] * (1 if cfg.tie_word_embeddings else 2)
    rh, rkv, ri = nh // world, nkv // world, inter // world  # this rank's
    vocab = SHARDS["lm_head"].size(v, world)
    matrices = [(rh + 2 * rkv) * d * h, h * rh * d, ri * h, ri * h, h * ri] * layers
    matrices += [v * h] + ([] if cfg.tie_word_embeddings and world == 1 else [vocab * h])
    vectors = ([h, h, d, d] if cfg.kind.qk_norm else [h, h]) * layers + [h, d // 2]
    weights = sum(_block(n * wb) for n in matrices) + sum(_block(4 * n) for n in vectors)
    seq = prompt_len + new_tokens
    rows = -(-seq // cache_tile) * cache_tile
    cache = 2 * layers * _block(rkv * rows * d * kb)
    parts = rh * attention_splits(rh, rows // cache_tile)
    step = [h, h, h, (rh + 2 * rkv) * d, rh * d, rh * d, parts * d, parts, parts, 8 * h, 8 * h,
            ri, vocab, 2 * (-(-vocab // 32)), seq, 3]
    step += [2 * world * (-(-vocab // 32))] if world > 1 else []  # every rank's candidates
    prefill = [prompt_len * w for w in (h, h, h, (rh + 2 * rkv) * d, rh * d, rh * d, ri)]
    buffers = sum(_block(4 * n) for n in step + prefill)
    host = 4 * (sum(whole) + sum(vectors))
    return Footprint(weights, cache, buffers, host, seq)


def _block(nbytes: int) -> int:
    """`nbytes` as the CUDA caching allocator hands it out (512-byte granules below 1 MiB,
    2 MiB granules from there)."""
    granule = 512 if nbytes < 1 << 20 else 2 << 20
    return max(granule, -(-nbytes // granule) * granule)


def gib(n: int) -> str:
    return f"{n / (1 << 30):.2f} GiB"


def check(fp: Footprint, dtype: str, kv_dtype: str, device: tuple[int, int, str] | None,
          host_free: int | None, interpreter: bool) -> None:
    """DoesNotFit (CT412) when the device's free memory (`device`: free and total bytes, and
    its name) or the host's (`host_free`) is less than `fp` needs. None: not known, not
    checked."""
    need = fp.device + MARGIN
    what = (f"the model needs {gib(need)} ({gib(fp.weights)} of {dtype} weights, "
            f"{gib(fp.cache)} of {kv_dtype} KV cache for {fp.positions} positions, "
            f"{gib(fp.buffers)} of buffers, {gib(MARGIN)} for kernels and the driver)")
    if device is not None and not interpreter and need > device[0]:
        free, total, name = device
        raise DoesNotFit(f"{CT412} {what}, more than the {gib(free)} free on {name} "
                         f"({gib(total)} in all){_hint(fp, dtype, kv_dtype, False)}")
    host_need = fp.host_weights + (need if interpreter else 0)
    if host_free is not None and host_need > host_free:
        on = " and runs the model there (the interpreter)" if interpreter else ""
        # without the interpreter the device's part is elsewhere: only the model's size counts
        hint = _hint(fp, dtype, kv_dtype, True) if interpreter else "; try a smaller model"
        raise DoesNotFit(f"{CT412} reading the checkpoint widens its weights to float32 on the "
                         f"host ({gib(fp.host_weights)}){on}: {gib(host_need)} in all, more "
                         f"than the {gib(host_free)} of host memory available{hint}")


def _hint(fp: Footprint, dtype: str, kv_dtype: str, sizes: bool) -> str:
    """What to change, the largest part first: the KV cache grows with the positions asked
    for (a huge --max-new-tokens), the weights with the model and --dtype. `sizes`: say the
    cache's (the message has not)."""
    if fp.cache > fp.weights:
        narrower = " or --kv-dtype bfloat16" if kv_dtype == "float32" else ""
        size = f", {gib(fp.cache)} for {fp.positions} positions" if sizes else ""
        return (f"; most of it is the KV cache{size} (prompt + new tokens): try a smaller "
                f"--max-new-tokens or prompt{narrower}")
    first = "--dtype bfloat16, " if dtype == "float32" else ""
    return f"; try {first}a smaller --max-new-tokens or prompt, or a smaller model"


def free_memory() -> tuple[tuple[int, int, str] | None, int | None, bool]:
    """(the device's free and total bytes and its name, or None; the host's available bytes,
    or None; whether the backend is the interpreter). The device's free memory counts the
    blocks cutile's allocator holds for reuse."""
    from cutile.runtime.context import backend
    from cutile.runtime.limits import available_memory

    be = backend()
    device = None
    if be.name == "cuda":
        try:
            from cutile.runtime.cuda import driver

            be.current()  # type: ignore[attr-defined]  # its context, current on this thread
            free, total = driver.mem_info()
            cached = be.allocator.stats.cached  # type: ignore[attr-defined]
            device = (free + cached, total, f"the GPU ({be.device})")
        except Exception:  # unknown: the allocations report their own CT412 if they fail
            device = None
    return device, available_memory(), be.name == "interpreter"
