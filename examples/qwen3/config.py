"""A Hugging Face `config.json` of a family the engine runs (families.py: Qwen3, Llama 3.x),
read as transformers' config class of that family reads it.

Keys that the family's config class gives defaults to take the same defaults here (Qwen3's
`head_dim` defaults to 128, Llama's to hidden_size / heads; `max_position_embeddings`, the
context generate.py holds prompt + new tokens to, to 32768 for Qwen3 and 2048 for Llama).
Both spellings transformers writes are accepted: `rope_theta` and `rope_scaling` (v4) or
`rope_parameters` (v5), `torch_dtype` (v4) or `dtype` (v5). Anything this engine cannot run
(biases, sliding windows, a RoPE scaling other than Llama 3's, another activation, another
family) is an error that names the key, rather than a silently different model.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from families import FAMILIES, Family, UnknownFamily, family_of


class ConfigError(ValueError):
    """A config.json this engine cannot read: the message names the file and the key."""


DTYPES = ("float32", "bfloat16", "float16")
_REQUIRED = ("hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
             "vocab_size")
_LLAMA3_KEYS = ("factor", "low_freq_factor", "high_freq_factor")


@dataclass(frozen=True)
class RopeScaling:
    """Llama 3's scaled RoPE (`rope_type` "llama3"): wavelengths beyond the original context /
    low_freq_factor are stretched by `factor`, those below / high_freq_factor kept, the ones
    between blended."""
    factor: float
    low_freq_factor: float
    high_freq_factor: float
    original_max_position_embeddings: int


@dataclass(frozen=True)
class ModelConfig:
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
    family: str = "qwen3"  # a key of families.FAMILIES
    rope_scaling: RopeScaling | None = None  # None: plain RoPE
    # the context the model was trained for: prompt + new tokens must fit in it (generate.py)
    max_position_embeddings: int = 32768

    @property
    def group(self) -> int:
        """Query heads per key/value head (grouped-query attention)."""
        return self.num_attention_heads // self.num_key_value_heads

    @property
    def kind(self) -> Family:
        return FAMILIES[self.family]


def read_text(path: Path, error: type[Exception]) -> str:
    """A checkpoint's text file; `error` names the file when it cannot be read (a directory in
    its place, no permission, not UTF-8)."""
    try:
        return path.read_text(encoding="utf-8")
    except OSError as e:
        raise error(f"{path}: cannot read it ({e.strerror or e})") from None
    except UnicodeDecodeError as e:
        raise error(f"{path}: not UTF-8 text ({e})") from None


def read_json_object(path: Path, error: type[Exception]) -> dict[str, Any]:
    """A checkpoint's JSON file as a dict; `error` names the file when it is not one."""
    text = read_text(path, error)
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as e:
        raise error(f"{path}: not valid JSON ({e})") from None
    if not isinstance(raw, dict):
        raise error(f"{path}: expected a JSON object, got {type(raw).__name__}")
    return raw


def load_config(model_dir: str | Path) -> ModelConfig:
    path = Path(model_dir) / "config.json"
    if not path.exists():
        raise ConfigError(f"{path}: no config.json in the model directory")
    return parse_config(read_json_object(path, ConfigError), str(path))


def parse_config(raw: dict[str, Any], where: str = "config.json") -> ModelConfig:
    def bad(key: str, why: str) -> ConfigError:
        return ConfigError(f"{where}: '{key}' {why}")

    try:
        fam = family_of(raw)
    except UnknownFamily as e:
        raise ConfigError(f"{where}: {e}") from None
    for key in _REQUIRED:
        if key not in raw:
            raise bad(key, f"is missing (every {fam.name} config.json has it)")
    get = Reader(raw, bad, fam.defaults)
    heads = get.positive_int("num_attention_heads")
    kv = raw.get("num_key_value_heads")
    kv_heads = heads if kv is None else get.positive_int("num_key_value_heads")
    if heads % kv_heads:
        raise bad("num_key_value_heads", f"= {kv_heads} does not divide num_attention_heads = "
                  f"{heads}")
    _unsupported(raw, bad, fam)
    hidden = get.positive_int("hidden_size")
    theta, scaling = _rope(raw, get, bad, fam)
    return ModelConfig(
        hidden_size=hidden, intermediate_size=get.positive_int("intermediate_size"),
        num_hidden_layers=get.positive_int("num_hidden_layers"),
        num_attention_heads=heads, num_key_value_heads=kv_heads,
        head_dim=_head_dim(raw, get, bad, fam, hidden, heads),
        vocab_size=get.positive_int("vocab_size"),
        rms_norm_eps=get.positive_float("rms_norm_eps"), rope_theta=theta,
        tie_word_embeddings=get.boolean("tie_word_embeddings"), torch_dtype=_dtype(raw, bad),
        family=fam.name, rope_scaling=scaling,
        max_position_embeddings=get.positive_int("max_position_embeddings"))


class Reader:
    """Typed reads of one key each, with HF's default (from `defaults`) when the key is absent
    or null; `bad(key, why)` makes the error (it names the file)."""

    def __init__(self, raw: dict[str, Any], bad: Any,
                 defaults: dict[str, Any] | None = None) -> None:
        self.raw, self.bad = raw, bad
        self.defaults = FAMILIES["qwen3"].defaults if defaults is None else defaults

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
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v < math.inf:
            raise self.bad(key, f"must be a positive number, not {v!r}")
        return float(v)

    def boolean(self, key: str) -> bool:
        v = self.value(key)
        if not isinstance(v, bool):
            raise self.bad(key, f"must be true or false, not {v!r}")
        return v


def _head_dim(raw: dict[str, Any], get: Reader, bad: Any, fam: Family, hidden: int,
              heads: int) -> int:
    if raw.get("head_dim") is None and fam.head_dim_from_heads:
        d = hidden // heads
    else:
        d = get.positive_int("head_dim")
    if d & (d - 1) or d < 2:
        raise bad("head_dim", f"= {d}: this engine needs a power of two (Qwen3 uses 128, "
                  "Llama 3.2 64 or 128)")
    return d


def _rope(raw: dict[str, Any], get: Reader, bad: Any,
          fam: Family) -> tuple[float, RopeScaling | None]:
    """rope_theta, and the scaling of `rope_scaling` (v4) or `rope_parameters` (v5)."""
    key = "rope_parameters" if raw.get("rope_parameters") is not None else "rope_scaling"
    params = raw.get(key)
    theta_of = get
    scaling = None
    if params is not None:
        if not isinstance(params, dict):
            raise bad(key, f"must be an object, not {params!r}")
        kind = params.get("rope_type", params.get("type", "default"))
        if kind not in fam.rope_types:
            raise bad(key, f"rope_type {kind!r} is not supported for {fam.name} (only "
                      f"{' and '.join(repr(t) for t in fam.rope_types)})")
        if raw.get("rope_theta") is None and "rope_theta" in params:
            theta_of = Reader(params, bad)
        if kind == "llama3":
            scaling = _llama3(params, raw, bad, key)
    return theta_of.positive_float("rope_theta"), scaling


def _llama3(params: dict[str, Any], raw: dict[str, Any], bad: Any, key: str) -> RopeScaling:
    def number(name: str, value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            raise bad(key, f"needs '{name}', a positive number (rope_type 'llama3'), not "
                      f"{value!r}")
        return float(value)

    low, high = number("low_freq_factor", params.get("low_freq_factor")), \
        number("high_freq_factor", params.get("high_freq_factor"))
    if high <= low:
        raise bad(key, f"high_freq_factor = {high} must be larger than low_freq_factor = {low}")
    # transformers falls back to max_position_embeddings (LlamaConfig's default 2048)
    original = params.get("original_max_position_embeddings",
                          raw.get("max_position_embeddings") or 2048)
    return RopeScaling(number("factor", params.get("factor")), low, high,
                       int(number("original_max_position_embeddings", original)))


def _unsupported(raw: dict[str, Any], bad: Any, fam: Family) -> None:
    if raw.get("hidden_act", "silu") != "silu":
        raise bad("hidden_act", f"is {raw['hidden_act']!r}; {fam.name} uses 'silu'")
    for key, what in (("attention_bias", "projections with biases are"),
                      ("mlp_bias", "MLP projections with biases are"),
                      ("use_sliding_window", "sliding-window attention is")):
        if raw.get(key):
            raise bad(key, f"is true: {what} not supported")


def _dtype(raw: dict[str, Any], bad: Any) -> str:
    key = "torch_dtype" if raw.get("torch_dtype") is not None else "dtype"
    v = raw.get(key) or "float32"
    if v not in DTYPES:
        raise bad(key, f"is {v!r}; expected one of {', '.join(DTYPES)}")
    return str(v)
