"""Tiny Qwen3 and Llama checkpoints with seeded random weights, written as Hugging Face writes
them: the writer is the engine's public helper `examples/qwen3/tiny.py` (also a CLI for demos);
the tests import it under this name."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

_TINY = Path(__file__).resolve().parents[2] / "examples" / "qwen3" / "tiny.py"
if "tiny" not in sys.modules:  # by path: the engine's folder need not be on sys.path
    _spec = importlib.util.spec_from_file_location("tiny", _TINY)
    assert _spec is not None and _spec.loader is not None
    sys.modules["tiny"] = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(sys.modules["tiny"])

from tiny import TINY, TINY_LLAMA, bf16_round, random_tensors, write  # noqa: E402

__all__ = ["TINY", "TINY_LLAMA", "bf16_round", "compiled_links", "random_tensors", "write"]


def compiled_links(buf: dict[str, Any], links: Iterable[Any]) -> Iterator[tuple[Any, Any]]:
    """Each link compiled for sm_90 (`kernel.compile`) on metadata stand-ins of its Mut
    buffers, with the engine's own arguments and Consts: (link, compiled), a real cubin each."""
    import cutile as ct

    for ln in links:
        mut = (ct.meta(buf[o].shape, buf[o].dtype).partition(t)
               for o, t in zip(ln.outs, ln.tiles, strict=True))
        args = (buf[a] if isinstance(a, str) else a for a in ln.args)
        compiled = ln.kernel.compile(*mut, *args, arch="sm_90", **ln.consts)
        assert compiled.cubin[:4] == b"\x7fELF"
        yield ln, compiled
