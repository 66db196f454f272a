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

__all__ = ["TINY", "TINY_LLAMA", "bf16_round", "check_footprint", "compiled_links",
           "random_tensors", "write"]


def check_footprint(model: Any, est: Any) -> None:
    """footprint.py's estimate `est` against the engine `model` (reset here to a 5-token prompt
    and 300 new tokens, as the estimate was asked): its weights are exactly the tensors the
    engine holds on the device, each rounded as the allocator rounds it, its cache the KV
    cache's, and its buffers cover every other buffer of the step."""
    import footprint as fp

    size = {"f32": 4, "bf16": 2}
    tensors = [model.embed, model.lm_head.w, model.norm, model.inv_freq]
    for lay in model.layers:
        tensors += [lay.input_norm, lay.qkv.w, lay.q_norm, lay.k_norm, lay.o.w, lay.post_norm,
                    lay.gate.w, lay.up.w, lay.down.w]
    assert est.weights == sum(fp._block(t.size * size[t.dtype.name]) for t in tensors)
    model.reset([1, 2, 3, 4, 5], 300)
    cache = [t for n, t in model.buf.items() if n[0] in "kv" and n[1:].isdigit()]
    assert est.cache == sum(fp._block(t.size * size[t.dtype.name]) for t in cache)
    assert est.buffers >= sum(fp._block(t.size * 4) for t in model.buf.values()
                              if t not in cache)


def compiled_links(buf: dict[str, Any], links: Iterable[Any]) -> Iterator[tuple[Any, Any]]:
    """Each link compiled for sm_90 (`kernel.compile`) on metadata stand-ins of its Mut
    buffers, with the engine's own arguments and Consts: (link, compiled), a real cubin each."""
    import cutile as ct

    for ln in links:
        views = [*ln.views, *[None] * len(ln.outs)]
        mut = (ct.meta(buf[o].shape if v is None else v[0], buf[o].dtype).partition(t)
               for o, t, v in zip(ln.outs, ln.tiles, views, strict=False))
        args = (buf[a] if isinstance(a, str) else a for a in ln.args)
        compiled = ln.kernel.compile(*mut, *args, arch="sm_90", **ln.consts)
        assert compiled.cubin[:4] == b"\x7fELF"
        yield ln, compiled
