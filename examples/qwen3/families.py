"""The model families the engine runs, as data: what tells them apart in a Hugging Face
checkpoint and what their layers hold. Everything else (the layer graph, the kernels, the
buffers, the graph capture, the sampling) is shared by every family.

A family is found from config.json's `model_type`, else its `architectures`; both families
here are pre-norm grouped-query transformers with a SwiGLU MLP and rotate-half RoPE:

- **qwen3**: an RMSNorm of each query and key head before RoPE (`q_norm`, `k_norm`); plain RoPE;
  `head_dim` defaults to 128 when absent.
- **llama** (Llama 3.x): no q/k norm; plain RoPE or the `llama3` scaled RoPE; `head_dim`
  defaults to hidden_size / num_attention_heads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# the tensors of layer i, under `model.layers.{i}.` (Hugging Face's names for both families)
LAYER_TENSORS = {
    "input_norm": "input_layernorm.weight", "q": "self_attn.q_proj.weight",
    "k": "self_attn.k_proj.weight", "v": "self_attn.v_proj.weight",
    "o": "self_attn.o_proj.weight", "post_norm": "post_attention_layernorm.weight",
    "gate": "mlp.gate_proj.weight", "up": "mlp.up_proj.weight", "down": "mlp.down_proj.weight",
}
QK_NORM_TENSORS = {"q_norm": "self_attn.q_norm.weight", "k_norm": "self_attn.k_norm.weight"}
EMBED, FINAL_NORM, LM_HEAD = "model.embed_tokens.weight", "model.norm.weight", "lm_head.weight"


@dataclass(frozen=True)
class Family:
    name: str
    model_types: tuple[str, ...]  # config.json `model_type` values
    architectures: tuple[str, ...]  # config.json `architectures` entries
    defaults: dict[str, Any]  # the transformers config class's defaults for absent keys
    qk_norm: bool  # an RMSNorm per query and key head before RoPE
    rope_types: tuple[str, ...]  # the `rope_type`s of rope_scaling / rope_parameters it reads
    head_dim_from_heads: bool  # an absent head_dim is hidden_size / num_attention_heads

    @property
    def layer_tensors(self) -> dict[str, str]:
        """Role -> name (under `model.layers.{i}.`) of every tensor of a layer."""
        return LAYER_TENSORS | (QK_NORM_TENSORS if self.qk_norm else {})


_COMMON = {"rms_norm_eps": 1e-6, "rope_theta": 10000.0, "tie_word_embeddings": False,
           "hidden_act": "silu", "attention_bias": False, "torch_dtype": "float32"}
QWEN3 = Family("qwen3", ("qwen3",), ("Qwen3ForCausalLM",),
               {**_COMMON, "head_dim": 128, "use_sliding_window": False,
                "max_position_embeddings": 32768}, qk_norm=True,
               rope_types=("default",), head_dim_from_heads=False)
LLAMA = Family("llama", ("llama",), ("LlamaForCausalLM",),
               {**_COMMON, "mlp_bias": False, "max_position_embeddings": 2048}, qk_norm=False,
               rope_types=("default", "llama3"), head_dim_from_heads=True)
FAMILIES = {f.name: f for f in (QWEN3, LLAMA)}


class UnknownFamily(ValueError):
    """config.json names a model family this engine does not run."""


def supported() -> str:
    """The families in words, for an error message."""
    return ", ".join(f"{f.name} ({'/'.join(f.architectures)})" for f in FAMILIES.values())


def family_of(raw: dict[str, Any]) -> Family:
    """The family of a config.json: its model_type, else the first of its architectures that
    names one; neither key given reads as Qwen3 (the engine's first family)."""
    kind = raw.get("model_type")
    if kind is not None:
        for f in FAMILIES.values():
            if kind in f.model_types:
                return f
        raise UnknownFamily(f"'model_type' is {kind!r}: this engine runs {supported()}")
    archs = raw.get("architectures") or []
    if not isinstance(archs, list):
        raise UnknownFamily(f"'architectures' must be a list of class names, not {archs!r}")
    for arch in archs:
        for f in FAMILIES.values():
            if arch in f.architectures:
                return f
    if archs:
        raise UnknownFamily(f"'architectures' is {archs!r}: this engine runs {supported()}")
    return QWEN3
