"""The engine's kernels by family, each op with its dtype variants: one table instead of names
built from suffixes. A variant is chosen by the dtype the kernel reads: the matrices' for the
matmul family (the embedding table, the projections, the LM head), the KV cache's for the
attention family; the norms and the picks read float32 only (ANY).

Decode kernels (one row, the position read on the device) live in decode_kernels.py, the prefill's
(P rows) in prefill_kernels.py; the ops named `*_rows` / `*_fill` / `prefill` are those."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import decode_kernels as k
import prefill_kernels as pk

ANY = "any"  # a kernel with one variant: every activation it reads is float32
Variants = dict[str, Any]  # dtype -> kernel

NORM: dict[str, Variants] = {
    "rms": {ANY: k.rms_norm},
    "add_rms": {ANY: k.add_rms_norm},  # the residual's partial sums added, then the norm
    "sum_rms": {ANY: k.sum_rms_norm},  # the norm of a stream kept as partial sums
    "rms_rows": {ANY: pk.rms_norm_rows},
    "rms_row_at": {ANY: pk.rms_norm_row_at},
}
MATMUL: dict[str, Variants] = {  # by the matrices' dtype
    "embed": {"float32": k.embed_f32, "bfloat16": k.embed_bf16},
    "gemv": {"float32": k.gemv_f32, "bfloat16": k.gemv_bf16},
    "lm_head": {"float32": k.lm_head_f32, "bfloat16": k.lm_head_bf16},
    "gate_up": {"float32": k.gate_up_f32, "bfloat16": k.gate_up_bf16},
    # Engine(fuse_norms=True): the norm inside the projection, the stream as partial sums
    "norm_gemv": {"float32": k.norm_gemv_f32, "bfloat16": k.norm_gemv_bf16},
    "norm_gate_up": {"float32": k.norm_gate_up_f32, "bfloat16": k.norm_gate_up_bf16},
    "gemv_residual": {"float32": k.gemv_residual_f32, "bfloat16": k.gemv_residual_bf16},
    "embed_rows": {"float32": pk.embed_rows_f32, "bfloat16": pk.embed_rows_bf16},
    "gemm": {"float32": pk.gemm_f32, "bfloat16": pk.gemm_bf16},
    "gemm_residual": {"float32": pk.gemm_residual_f32, "bfloat16": pk.gemm_residual_bf16},
    "gate_up_rows": {"float32": pk.gate_up_rows_f32, "bfloat16": pk.gate_up_rows_bf16},
}
ATTENTION: dict[str, Variants] = {  # by the KV cache's dtype (the prefill's)
    # decode: the new token inside the attention, the append in the merge (dtype-generic: the
    # cache's dtype is inferred from the cache)
    "decode_new_norm_rope": {ANY: k.decode_attention_new},
    "decode_new_rope": {ANY: k.decode_attention_new_rope},
    "merge_append_norm_rope": {ANY: k.attention_merge_append},
    "merge_append_rope": {ANY: k.attention_merge_append_rope},
    "q_norm_rope_rows": {ANY: pk.q_norm_rope_rows},
    "q_rope_rows": {ANY: pk.q_rope_rows},
    "kv_norm_rope_fill": {"float32": pk.kv_fill, "bfloat16": pk.kv_fill_kvbf16},
    "kv_rope_fill": {"float32": pk.kv_rope_fill, "bfloat16": pk.kv_rope_fill_kvbf16},
    "prefill": {"float32": pk.prefill_attention, "bfloat16": pk.prefill_attention_kvbf16},
}
SAMPLING: dict[str, Variants] = {
    "greedy": {ANY: k.greedy_next},  # the pick over the LM head's block maxima
    "greedy_sharded": {ANY: k.greedy_next_sharded},  # over every rank's (tensor parallel)
    "sample": {ANY: k.sample_next},  # temperature, top-k, top-p, one Philox draw
    "sample_blocks": {ANY: k.sample_next_blocks},  # the same over the head's top blocks
    "argmax": {ANY: k.argmax_row},
}
TABLE: dict[str, dict[str, Variants]] = {"norm": NORM, "matmul": MATMUL,
                                         "attention": ATTENTION, "sampling": SAMPLING}
# Kernels.pdl: "entry" launches every kernel `.dependent()` (the wait first thing); "prefetch"
# takes these explicit pdl=True forms instead where they exist (the first weight tile loaded
# before the wait) and `.dependent()` for the others.
PDL_MODES = ("entry", "prefetch")
PREFETCHING = {k.gemv_f32: k.gemv_f32_pdl, k.gemv_bf16: k.gemv_bf16_pdl,
               k.gate_up_f32: k.gate_up_f32_pdl, k.gate_up_bf16: k.gate_up_bf16_pdl}


def kernel(family: str, op: str, dtype: str = ANY) -> Any:
    """The kernel of `op` in `family` that reads `dtype` (its only variant when it has one)."""
    variants = TABLE[family][op]
    found = variants.get(dtype, variants.get(ANY))
    if found is None:
        raise KeyError(f"{family}.{op} has no {dtype} variant (it has {', '.join(variants)})")
    return found


@dataclass(frozen=True)
class Kernels:
    """The table seen by a model: its matrices' and its cache's dtypes pick the variants.
    `pdl` (one of PDL_MODES, or None): every kernel a programmatic dependent launch (sm_90+):
    in the step's chain and graph a launch's blocks get resident while the one before it
    ends."""
    dtype: str
    kv_dtype: str
    pdl: str | None = None

    def norm(self, op: str) -> Any:
        return self._as_launched(kernel("norm", op))

    def matmul(self, op: str, hints: dict[str, int] | None = None) -> Any:
        found = self._as_launched(kernel("matmul", op, self.dtype))
        return found.with_hints(**hints) if hints else found

    def attention(self, op: str) -> Any:
        return self._as_launched(kernel("attention", op, self.kv_dtype))

    def sampling(self, op: str) -> Any:
        return self._as_launched(kernel("sampling", op))

    def _as_launched(self, kern: Any) -> Any:
        if self.pdl is None:
            return kern
        if self.pdl == "prefetch" and kern in PREFETCHING:
            return PREFETCHING[kern]
        return kern.dependent()
