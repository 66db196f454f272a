"""Tiny Qwen3 checkpoints with seeded random weights, written as Hugging Face writes them:
a config.json and model.safetensors (or shards plus model.safetensors.index.json), F32 or BF16.
BF16 tensors are written in the safetensors format directly (NumPy has no bfloat16 type)."""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from safetensors.numpy import save_file

A = NDArray[np.float64]
TINY: dict[str, Any] = {
    "architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 64,
    "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
    "num_key_value_heads": 2, "head_dim": 32, "vocab_size": 1000, "rms_norm_eps": 1e-6,
    "rope_theta": 10000.0, "tie_word_embeddings": False, "torch_dtype": "float32",
    "hidden_act": "silu", "attention_bias": False, "max_position_embeddings": 512,
}


def random_tensors(cfg: dict[str, Any], seed: int) -> dict[str, A]:
    """Weights whose logits are well separated, so greedy choices are not near-ties."""
    rng = np.random.default_rng(seed)
    h, d, inter = cfg["hidden_size"], cfg["head_dim"], cfg["intermediate_size"]
    nh, nkv, v = cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["vocab_size"]

    def mat(n: int, k: int) -> A:
        return rng.standard_normal((n, k)) / np.sqrt(k)

    def norm(n: int) -> A:
        return 1.0 + 0.1 * rng.standard_normal(n)

    t = {"model.embed_tokens.weight": rng.standard_normal((v, h)), "model.norm.weight": norm(h)}
    for i in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{i}."
        t |= {p + "input_layernorm.weight": norm(h), p + "post_attention_layernorm.weight": norm(h),
              p + "self_attn.q_proj.weight": mat(nh * d, h),
              p + "self_attn.k_proj.weight": mat(nkv * d, h),
              p + "self_attn.v_proj.weight": mat(nkv * d, h),
              p + "self_attn.o_proj.weight": mat(h, nh * d) * 4.0,
              p + "self_attn.q_norm.weight": norm(d), p + "self_attn.k_norm.weight": norm(d),
              p + "mlp.gate_proj.weight": mat(inter, h), p + "mlp.up_proj.weight": mat(inter, h),
              p + "mlp.down_proj.weight": mat(h, inter) * 4.0}
    if not cfg["tie_word_embeddings"]:
        t["lm_head.weight"] = mat(v, h) * 4.0
    return t


def bf16_round(a: A) -> A:
    """The bf16 value nearest to each float32 (ties to even), back in float64."""
    bits = a.astype(np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    return bits.astype(np.uint32).view(np.float32).astype(np.float64)


def write(model_dir: Path, cfg: dict[str, Any], tensors: dict[str, A], dtype: str = "F32",
          shards: int = 1) -> dict[str, A]:
    """Writes the checkpoint; returns the tensors as stored (bf16-rounded for BF16)."""
    model_dir.mkdir(parents=True, exist_ok=True)
    (model_dir / "config.json").write_text(json.dumps(cfg, indent=2))
    names = sorted(tensors)
    stored = {n: bf16_round(tensors[n]) if dtype == "BF16" else
              tensors[n].astype(np.float32).astype(np.float64) for n in names}
    files = [f"model-{i + 1:05d}-of-{shards:05d}.safetensors" for i in range(shards)] \
        if shards > 1 else ["model.safetensors"]
    weight_map = {}
    for i, fname in enumerate(files):
        part = {n: stored[n] for n in names[i::shards]}
        weight_map |= {n: fname for n in part}
        (_write_bf16 if dtype == "BF16" else _write_f32)(model_dir / fname, part)
    if shards > 1:
        index = {"metadata": {"total_size": 0}, "weight_map": weight_map}
        (model_dir / "model.safetensors.index.json").write_text(json.dumps(index))
    return stored


def _write_f32(path: Path, part: dict[str, A]) -> None:
    save_file({n: a.astype(np.float32) for n, a in part.items()}, str(path))


def _write_bf16(path: Path, part: dict[str, A]) -> None:
    header: dict[str, Any] = {}
    blobs, offset = [], 0
    for n, a in part.items():
        raw = (a.astype(np.float32).view(np.uint32) >> 16).astype("<u2").tobytes()
        header[n] = {"dtype": "BF16", "shape": list(a.shape),
                     "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    head = json.dumps(header).encode()
    head += b" " * (-len(head) % 8)
    path.write_bytes(struct.pack("<Q", len(head)) + head + b"".join(blobs))
