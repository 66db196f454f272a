"""The engine's `kernels.py` (examples/qwen3, put on sys.path by these tests) has the name of
Hugging Face's `kernels` package, which transformers 5 requires and imports when torch is
installed (transformers.integrations.hub_kernels): once the engine's module is in
sys.modules, that import fails. So, where torch and transformers are installed, transformers'
integration is imported first, with the real package, and the name is then freed for the
engine's module (transformers keeps the objects it took)."""

from __future__ import annotations

import importlib.util
import sys


def _bind_hub_kernels_first() -> None:
    if any(importlib.util.find_spec(m) is None for m in ("torch", "transformers")):
        return
    try:
        import transformers.integrations.hub_kernels  # noqa: F401
    except ImportError:
        return
    for name in [n for n in sys.modules if n == "kernels" or n.startswith("kernels.")]:
        del sys.modules[name]


_bind_hub_kernels_first()
