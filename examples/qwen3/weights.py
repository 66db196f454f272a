"""A model's weights from `*.safetensors` (one `model.safetensors`, or shards listed in
`model.safetensors.index.json`), under Hugging Face's tensor names (families.py: the same for
Qwen3 and Llama, plus Qwen3's q/k norms), as float32 NumPy arrays.

F32 and F16 tensors are read through `safetensors`' NumPy API. NumPy has no bfloat16, so BF16
tensors are read as their raw 16-bit patterns (offsets from the file's header, which the
library lists but the NumPy API cannot decode) and widened exactly to float32. `safetensors` is
imported when the weights are read (cutile's [models] extra; optional_deps.py says what to
install when it is missing).
"""

from __future__ import annotations

import json
import struct
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from config import ModelConfig, read_json_object
from families import EMBED, FINAL_NORM, LM_HEAD
from numpy.typing import NDArray
from optional_deps import need

F32 = NDArray[np.float32]


class WeightsError(ValueError):
    """A checkpoint that does not hold the tensors its config asks for."""


@dataclass(frozen=True)
class Layer:
    input_norm: F32
    q: F32
    k: F32
    v: F32
    o: F32
    q_norm: F32 | None  # None: the family has no q/k norm (Llama)
    k_norm: F32 | None
    post_norm: F32
    gate: F32
    up: F32
    down: F32


@dataclass(frozen=True)
class Weights:
    embed: F32
    layers: list[Layer]
    norm: F32
    lm_head: F32  # the embedding itself when tie_word_embeddings


Progress = Callable[[int], None]  # called with the bytes of each tensor read


def load_weights(model_dir: str | Path, cfg: ModelConfig,
                 progress: Progress | None = None) -> Weights:
    tensors = read_safetensors(Path(model_dir), progress)
    take = _Taker(tensors)
    embed = take(EMBED, (cfg.vocab_size, cfg.hidden_size))
    layers = [_layer(take, cfg, i) for i in range(cfg.num_hidden_layers)]
    norm = take(FINAL_NORM, (cfg.hidden_size,))
    head = embed if cfg.tie_word_embeddings else take(LM_HEAD, (cfg.vocab_size, cfg.hidden_size))
    return Weights(embed, layers, norm, head)


def layer_shapes(cfg: ModelConfig) -> dict[str, tuple[int, ...]]:
    """The shape of each tensor of a layer, by role (families.LAYER_TENSORS' keys)."""
    h, d, inter = cfg.hidden_size, cfg.head_dim, cfg.intermediate_size
    q_out, kv_out = cfg.num_attention_heads * d, cfg.num_key_value_heads * d
    return {"input_norm": (h,), "q": (q_out, h), "k": (kv_out, h), "v": (kv_out, h),
            "o": (h, q_out), "q_norm": (d,), "k_norm": (d,), "post_norm": (h,),
            "gate": (inter, h), "up": (inter, h), "down": (h, inter)}


def _layer(take: _Taker, cfg: ModelConfig, i: int) -> Layer:
    shapes = layer_shapes(cfg)
    got = {role: take(f"model.layers.{i}.{name}", shapes[role])
           for role, name in cfg.kind.layer_tensors.items()}
    return Layer(got["input_norm"], got["q"], got["k"], got["v"], got["o"], got.get("q_norm"),
                 got.get("k_norm"), got["post_norm"], got["gate"], got["up"], got["down"])


class _Taker:
    """Looks a tensor up by name and checks its shape against the config."""

    def __init__(self, tensors: dict[str, F32]) -> None:
        self.tensors = tensors

    def __call__(self, name: str, shape: tuple[int, ...]) -> F32:
        t = self.tensors.get(name)
        if t is None:
            raise WeightsError(f"the checkpoint has no tensor '{name}'")
        if t.shape != shape:
            raise WeightsError(f"'{name}' has shape {t.shape}; config.json asks for {shape}")
        return t


def checkpoint_bytes(model_dir: str | Path) -> int:
    """The size of the checkpoint's weight files (what `read_safetensors` reads)."""
    return sum(p.stat().st_size for p in _files(Path(model_dir)) if p.exists())


def read_safetensors(model_dir: Path, progress: Progress | None = None) -> dict[str, F32]:
    """Every tensor of the checkpoint by name, as float32; `progress` gets the stored bytes of
    each tensor as it is read."""
    safe_open = need("safetensors").safe_open
    out: dict[str, F32] = {}
    for path in _files(model_dir):
        if not path.exists():
            raise WeightsError(f"{path.name}: listed in model.safetensors.index.json but not in "
                               f"{model_dir}")
        try:  # opened here first: safetensors words a directory as "No such device"
            path.open("rb").close()
        except OSError as e:
            raise WeightsError(f"{path}: cannot read it ({e.strerror or e})") from None
        try:
            out |= _read_file(safe_open, path, progress)
        except WeightsError:
            raise
        except Exception as e:  # OSError, or safetensors' own SafetensorError (not exported)
            if not isinstance(e, (OSError, ValueError)) and type(e).__name__ != "SafetensorError":
                raise
            raise WeightsError(f"{path}: not a readable safetensors file ({e})") from None
    return out


def _read_file(safe_open: Callable[..., Any], path: Path,
               progress: Progress | None) -> dict[str, F32]:
    out: dict[str, F32] = {}
    with safe_open(str(path), framework="np") as f:
        for name in f.keys():  # noqa: SIM118 (a safe_open handle is not iterable)
            dtype = f.get_slice(name).get_dtype()
            if dtype == "BF16":
                out[name] = _bf16(path, name)
            elif dtype in ("F32", "F16"):
                out[name] = np.asarray(f.get_tensor(name), dtype=np.float32)
            else:
                raise WeightsError(f"{path.name}: '{name}' is {dtype}; expected F32, F16 or BF16")
            if progress is not None:
                progress(out[name].size * (2 if dtype in ("BF16", "F16") else 4))
    return out


def _files(model_dir: Path) -> list[Path]:
    index = model_dir / "model.safetensors.index.json"
    if index.exists():
        weight_map = read_json_object(index, WeightsError).get("weight_map")
        if not isinstance(weight_map, dict):
            raise WeightsError(f"{index}: no 'weight_map' object")
        return [model_dir / name for name in sorted(set(weight_map.values()))]
    single = model_dir / "model.safetensors"
    if not single.exists():
        raise WeightsError(f"{model_dir}: neither model.safetensors nor "
                           "model.safetensors.index.json")
    return [single]


def _bf16(path: Path, name: str) -> F32:
    with path.open("rb") as f:
        (size,) = struct.unpack("<Q", f.read(8))
        entry = json.loads(f.read(size))[name]
    lo, hi = entry["data_offsets"]
    bits = np.fromfile(path, dtype="<u2", count=(hi - lo) // 2, offset=8 + size + lo)
    return (bits.astype(np.uint32) << 16).view(np.float32).reshape(entry["shape"])
