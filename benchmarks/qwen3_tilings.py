"""Tiling sweep of the Qwen3 engine inside its decode step (how `Matrix.on_device`'s table was
chosen): each variant changes one role's tiling from the table, and the kernel time of one
graph-replayed step at a 1k context is compared with the table's (torch.profiler).

    python benchmarks/qwen3_tilings.py [--size 4B] [--variants '[{"down": {"latency": 6}}]']
        [--fuse-norms]

A variant maps roles to Matrix fields (qkv, o, gate_up, down, head: bn, bk, splits, hints,
latency) or "attn" to decode attention's cache `tile`. Kernel times are read
inside the step because a kernel timed alone reads its weights from a warm L2. Needs a GPU,
torch and transformers (the checkpoint is a seeded random one, as in qwen3_decode.py).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks import qwen3_decode as qd

DEFAULT = [{"gate_up": {"latency": 6}}, {"gate_up": {"hints": {"occupancy": 2}}},
           {"down": {"bk": 256}}, {"o": {"splits": 2}}, {"qkv": {"latency": 0}},
           {"head": {"latency": 0}}, {"attn": {"tile": 64}}]


def _targets(model: Any, role: str) -> list[Any]:
    """What a role's fields are set on: its Matrix in every layer, or the model ("attn")."""
    if role == "attn":
        return [model]
    if role == "head":
        return [model.lm_head]
    if role == "gate_up":
        return [m for layer in model.layers for m in (layer.gate, layer.up)]
    return [getattr(layer, role) for layer in model.layers]


def step_us(model: Any, variant: dict[str, dict[str, Any]]) -> dict[str, float]:
    """Per-kernel microseconds of one step with `variant` applied (and undone after)."""
    undo: list[tuple[Any, dict[str, Any]]] = []
    for role, fields in variant.items():
        renamed = {"cache_tile" if f == "tile" else f: v for f, v in fields.items()}
        for t in _targets(model, role):
            undo.append((t, {f: getattr(t, f) for f in renamed}))
            for f, v in renamed.items():
                setattr(t, f, v)
    try:
        return {r["kernel"]: r["us_per_step"] for r in qd.kernel_profile(model, 1024)}
    finally:
        for t, old in reversed(undo):
            for f, v in old.items():
                setattr(t, f, v)


def main() -> int:
    import torch
    import transformers

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--size", default="4B", choices=sorted(qd.SHAPES))
    p.add_argument("--variants", default=json.dumps(DEFAULT), help="a JSON list of variants")
    p.add_argument("--fuse-norms", action="store_true",
                   help="sweep the step with each norm inside its projection (the qkv "
                        "role's tiling is then norm_gemv's; norm_gate_up's is tuning.json's)")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        qd.make_checkpoint(torch, transformers, args.size, Path(tmp))
        model = qd.load_engine(tmp, fuse_norms=args.fuse_norms)
    base = step_us(model, {})
    print(f"{args.size} table: {sum(base.values()):.1f} us of kernel time a step", flush=True)
    for variant in json.loads(args.variants):
        try:
            us = step_us(model, variant)
        except Exception as exc:  # a tiling tileiras rejects is a row, not the end of the sweep
            print(f"{json.dumps(variant)}: failed: {exc}"[:300], flush=True)
            continue
        moved = {k: round(v - base.get(k, 0.0), 1) for k, v in us.items()
                 if abs(v - base.get(k, 0.0)) > 3}
        print(f"{json.dumps(variant):60s} {sum(us.values()) - sum(base.values()):+8.1f} us "
              f"{moved}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
