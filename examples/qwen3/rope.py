"""RoPE's inverse frequencies, computed on the host in float32 as transformers computes them:
plain (theta^(-2i/d)) or with Llama 3's scaling. The kernels rotate by pos * inv_freq."""

from __future__ import annotations

import math

import numpy as np
from config import ModelConfig, RopeScaling
from numpy.typing import NDArray

F32 = NDArray[np.float32]


def rope_inv_freq(theta: float, d: int) -> F32:
    """RoPE's inverse frequencies, computed in float32 as transformers does."""
    exponents = np.arange(0, d, 2, dtype=np.int64).astype(np.float32) / np.float32(d)
    out: F32 = (np.float32(1.0) / (np.float32(theta) ** exponents)).astype(np.float32)
    return out


def llama3_scaled(inv_freq: F32, s: RopeScaling) -> F32:
    """Llama 3's scaling of `inv_freq`: a wavelength longer than original / low_freq_factor is
    stretched by `factor`, one shorter than original / high_freq_factor kept, and the ones
    between blended by how far they are between the two (float32 throughout, as transformers)."""
    f32 = np.float32
    low_wavelen = s.original_max_position_embeddings / s.low_freq_factor
    high_wavelen = s.original_max_position_embeddings / s.high_freq_factor
    wavelen = f32(2 * math.pi) / inv_freq
    scaled = np.where(wavelen > f32(low_wavelen), inv_freq / f32(s.factor), inv_freq)
    smooth = (f32(s.original_max_position_embeddings) / wavelen - f32(s.low_freq_factor)) / \
        f32(s.high_freq_factor - s.low_freq_factor)
    blended = (f32(1) - smooth) * scaled / f32(s.factor) + smooth * scaled
    medium = ~(wavelen < f32(high_wavelen)) & ~(wavelen > f32(low_wavelen))
    out: F32 = np.where(medium, blended, scaled).astype(np.float32)
    return out


def inv_freq(cfg: ModelConfig) -> F32:
    """The config's inverse frequencies: plain, or scaled when it has a rope_scaling."""
    base = rope_inv_freq(cfg.rope_theta, cfg.head_dim)
    return base if cfg.rope_scaling is None else llama3_scaled(base, cfg.rope_scaling)
