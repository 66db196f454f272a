"""A Hugging Face Qwen3 `config.json`, read as transformers' `Qwen3Config` reads it.

Keys that `Qwen3Config` gives defaults to take the same defaults here (for example `head_dim`
defaults to 128, not hidden_size / heads). Both spellings transformers writes are accepted:
`rope_theta` (v4) or `rope_parameters.rope_theta` (v5), `torch_dtype` (v4) or `dtype` (v5).
Anything this engine cannot run (biases, sliding windows, scaled RoPE, another activation) is
an error that names the key, rather than a silently different model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class ConfigError(ValueError):
    """A config.json this engine cannot read: the message names the file and the key."""


DTYPES = ("float32", "bfloat16", "float16")
_DEFAULTS: dict[str, Any] = {"head_dim": 128, "rms_norm_eps": 1e-6, "rope_theta": 10000.0,
                             "tie_word_embeddings": False, "hidden_act": "silu",
                             "attention_bias": False, "use_sliding_window": False,
                             "torch_dtype": "float32"}
_REQUIRED = ("hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
             "vocab_size")


@dataclass(frozen=True)
class Qwen3Config:
    hidden_size: int
    intermediate_size: int
    num_hidden_layers: int
    num_attention_heads: int
    num_key_value_heads: int
    head_dim: int
    vocab_size: int
    rms_norm_eps: float
    rope_theta: float
    tie_word_embeddings: bool
    torch_dtype: str

    @property
    def group(self) -> int:
        """Query heads per key/value head (grouped-query attention)."""
        return self.num_attention_heads // self.num_key_value_heads


def read_json_object(path: Path, error: type[Exception]) -> dict[str, Any]:
    """A checkpoint's JSON file as a dict; `error` names the file when it is not one."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise error(f"{path}: not valid JSON ({e})") from None
    if not isinstance(raw, dict):
        raise error(f"{path}: expected a JSON object, got {type(raw).__name__}")
    return raw


def load_config(model_dir: str | Path) -> Qwen3Config:
    path = Path(model_dir) / "config.json"
    if not path.is_file():
        raise ConfigError(f"{path}: no config.json in the model directory")
    return parse_config(read_json_object(path, ConfigError), str(path))


def parse_config(raw: dict[str, Any], where: str = "config.json") -> Qwen3Config:
    def bad(key: str, why: str) -> ConfigError:
        return ConfigError(f"{where}: '{key}' {why}")

    for key in _REQUIRED:
        if key not in raw:
            raise bad(key, "is missing (every Qwen3 config.json has it)")
    get = Reader(raw, bad)
    heads = get.positive_int("num_attention_heads")
    kv = raw.get("num_key_value_heads")
    kv_heads = heads if kv is None else get.positive_int("num_key_value_heads")
    if heads % kv_heads:
        raise bad("num_key_value_heads", f"= {kv_heads} does not divide num_attention_heads = "
                  f"{heads}")
    _unsupported(raw, bad)
    return Qwen3Config(
        hidden_size=get.positive_int("hidden_size"),
        intermediate_size=get.positive_int("intermediate_size"),
        num_hidden_layers=get.positive_int("num_hidden_layers"),
        num_attention_heads=heads, num_key_value_heads=kv_heads,
        head_dim=_head_dim(get, bad), vocab_size=get.positive_int("vocab_size"),
        rms_norm_eps=get.positive_float("rms_norm_eps"), rope_theta=_rope_theta(raw, get, bad),
        tie_word_embeddings=get.boolean("tie_word_embeddings"), torch_dtype=_dtype(raw, bad))


class Reader:
    """Typed reads of one key each, with HF's default (from `defaults`) when the key is absent
    or null; `bad(key, why)` makes the error (it names the file)."""

    def __init__(self, raw: dict[str, Any], bad: Any,
                 defaults: dict[str, Any] | None = None) -> None:
        self.raw, self.bad = raw, bad
        self.defaults = _DEFAULTS if defaults is None else defaults

    def value(self, key: str) -> Any:
        v = self.raw.get(key)
        return self.defaults.get(key) if v is None else v

    def positive_int(self, key: str) -> int:
        v = self.value(key)
        if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
            raise self.bad(key, f"must be a positive integer, not {v!r}")
        return v

    def positive_float(self, key: str) -> float:
        v = self.value(key)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0:
            raise self.bad(key, f"must be a positive number, not {v!r}")
        return float(v)

    def boolean(self, key: str) -> bool:
        v = self.value(key)
        if not isinstance(v, bool):
            raise self.bad(key, f"must be true or false, not {v!r}")
        return v


def _head_dim(get: Reader, bad: Any) -> int:
    d = get.positive_int("head_dim")
    if d & (d - 1) or d < 2:
        raise bad("head_dim", f"= {d}: this engine needs a power of two (every Qwen3 uses 128)")
    return d


def _rope_theta(raw: dict[str, Any], get: Reader, bad: Any) -> float:
    params = raw.get("rope_parameters") or raw.get("rope_scaling")
    if params is not None:
        kind = params.get("rope_type", params.get("type", "default")) if isinstance(
            params, dict) else params
        if kind != "default":
            raise bad("rope_parameters", f"rope_type {kind!r} is not supported (only 'default')")
        if raw.get("rope_theta") is None and "rope_theta" in params:
            return Reader(params, bad).positive_float("rope_theta")
    return get.positive_float("rope_theta")


def _unsupported(raw: dict[str, Any], bad: Any) -> None:
    if raw.get("model_type", "qwen3") != "qwen3":
        raise bad("model_type", f"is {raw['model_type']!r}, not 'qwen3'")
    if raw.get("hidden_act", "silu") != "silu":
        raise bad("hidden_act", f"is {raw['hidden_act']!r}; Qwen3 uses 'silu'")
    if raw.get("attention_bias"):
        raise bad("attention_bias", "is true: projections with biases are not supported")
    if raw.get("use_sliding_window"):
        raise bad("use_sliding_window", "is true: sliding-window attention is not supported")


def _dtype(raw: dict[str, Any], bad: Any) -> str:
    key = "torch_dtype" if raw.get("torch_dtype") is not None else "dtype"
    v = raw.get(key) or _DEFAULTS["torch_dtype"]
    if v not in DTYPES:
        raise bad(key, f"is {v!r}; expected one of {', '.join(DTYPES)}")
    return str(v)
