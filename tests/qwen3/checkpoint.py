"""Tiny Qwen3 and Llama checkpoints with seeded random weights, written as Hugging Face writes
them: the writer is the engine's public helper `examples/qwen3/tiny.py` (also a CLI for demos);
the tests import it under this name."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_TINY = Path(__file__).resolve().parents[2] / "examples" / "qwen3" / "tiny.py"
if "tiny" not in sys.modules:  # by path: the engine's folder need not be on sys.path
    _spec = importlib.util.spec_from_file_location("tiny", _TINY)
    assert _spec is not None and _spec.loader is not None
    sys.modules["tiny"] = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(sys.modules["tiny"])

from tiny import TINY, TINY_LLAMA, bf16_round, random_tensors, write  # noqa: E402

__all__ = ["TINY", "TINY_LLAMA", "bf16_round", "random_tensors", "write"]
