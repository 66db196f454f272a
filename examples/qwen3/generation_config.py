"""The checkpoint's generation defaults, read as transformers' `generate` reads them.

`generation_config.json` (when the checkpoint has one) gives the end-of-sequence ids and the
sampling settings; a key it does not set takes transformers' `GenerationConfig` default
(do_sample false, temperature 1.0, top_k 50, top_p 1.0), and the end-of-sequence ids fall back
to config.json's `eos_token_id`. Qwen3 ships do_sample true, temperature 0.6, top_k 20,
top_p 0.95 and eos [<|im_end|>, <|endoftext|>]. Settings this engine does not implement
(a repetition penalty, min_p, beams, ...) are reported, not silently dropped.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from config import Reader, read_json_object

# transformers' defaults for the keys this engine uses
DEFAULTS: dict[str, Any] = {"do_sample": False, "temperature": 1.0, "top_k": 50, "top_p": 1.0}
# keys whose value changes the output unless it is the neutral one given here
UNSUPPORTED: dict[str, Any] = {
    "repetition_penalty": 1.0, "encoder_repetition_penalty": 1.0, "min_p": None,
    "typical_p": 1.0, "epsilon_cutoff": 0.0, "eta_cutoff": 0.0, "no_repeat_ngram_size": 0,
    "num_beams": 1, "num_beam_groups": 1, "penalty_alpha": None, "min_new_tokens": None,
    "min_length": 0, "bad_words_ids": None, "suppress_tokens": None,
    "begin_suppress_tokens": None, "forced_bos_token_id": None, "forced_eos_token_id": None,
    "sequence_bias": None,
}


class GenerationConfigError(ValueError):
    """generation_config.json (or config.json's eos_token_id) cannot be read: names the key."""


@dataclass(frozen=True)
class Defaults:
    eos: tuple[int, ...]  # generation stops after emitting any of these
    do_sample: bool
    temperature: float
    top_k: int  # 0: no top-k filter
    top_p: float
    max_new_tokens: int | None  # None: not set
    max_length: int | None  # prompt + new tokens, when set instead of max_new_tokens
    ignored: tuple[str, ...]  # the unsupported settings found, as "key = value"

    def new_tokens(self, prompt_len: int, fallback: int) -> int:
        """The number of new tokens these defaults ask for after a prompt of `prompt_len`."""
        if self.max_new_tokens is not None:
            return self.max_new_tokens
        if self.max_length is not None:
            return max(1, self.max_length - prompt_len)
        return fallback


def load_defaults(model_dir: Path) -> Defaults:
    gen_path = model_dir / "generation_config.json"
    gen = _read(gen_path) if gen_path.exists() else {}
    where = str(gen_path)
    get = Reader(gen, lambda key, why: GenerationConfigError(f"{where}: '{key}' {why}"), DEFAULTS)
    eos = _ids(gen.get("eos_token_id"), f"{where}: 'eos_token_id'")
    if gen.get("eos_token_id") is None:
        cfg_path = model_dir / "config.json"
        raw = _read(cfg_path) if cfg_path.exists() else {}
        eos = _ids(raw.get("eos_token_id"), f"{cfg_path}: 'eos_token_id'")
    return Defaults(
        eos=eos, do_sample=get.boolean("do_sample"),
        temperature=_number(get, "temperature", 0.0),
        top_k=int(_number(get, "top_k", 0, integer=True)),
        top_p=_number(get, "top_p", 0.0, 1.0),
        max_new_tokens=None if gen.get("max_new_tokens") is None else get.positive_int(
            "max_new_tokens"),
        max_length=None if gen.get("max_length") is None else get.positive_int("max_length"),
        ignored=tuple(f"{k} = {json.dumps(gen[k])}" for k, neutral in UNSUPPORTED.items()
                      if gen.get(k, neutral) not in (neutral, None)),
    )


def _read(path: Path) -> dict[str, Any]:
    return read_json_object(path, GenerationConfigError)


def _ids(v: Any, what: str) -> tuple[int, ...]:
    """An id or a list of ids (None: none)."""
    items = [] if v is None else v if isinstance(v, list) else [v]
    for i in items:
        if isinstance(i, bool) or not isinstance(i, int) or i < 0:
            raise GenerationConfigError(f"{what} must be a token id or a list of them, not "
                                        f"{v!r}")
    return tuple(items)


def _number(get: Reader, key: str, lo: float, hi: float | None = None,
            integer: bool = False) -> float:
    v = get.value(key)
    number = not isinstance(v, bool) and isinstance(v, int if integer else (int, float))
    if not number or not math.isfinite(v) or v < lo or (hi is not None and v > hi):
        want = "an integer" if integer else "a number"
        bounds = f">= {lo}" if hi is None else f"in [{lo}, {hi}]"
        raise get.bad(key, f"must be {want} {bounds}, not {v!r}")
    return float(v)
