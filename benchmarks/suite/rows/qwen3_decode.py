"""Row 10: Qwen3 batch-1 decode (examples/qwen3) in tokens/s at a 1k-token context, through
benchmarks/qwen3_decode.py's functions.

Per size: a seeded random bf16 `Qwen3ForCausalLM` saved with `save_pretrained` and loaded by the
engine (bf16 matrices and KV cache, f32 activations). cutile: the graph path (one CUDA graph
replay per token) and the eager path (one synced launch at a time), timed from position 1024
with the prefill skipped; the graph record also carries the batched prefill's seconds for the
1024-token prompt (`params["prefill_s"]`). Peers: transformers with a static cache, one forward
per token, eager and under `torch.compile(mode="reduce-overhead", fullgraph=True)`. The HBM
roofline (BW* of row 0 over the bytes one token reads) is a record of its own, so the report
shows it next to the measurements and the targets take ratios of records.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from ..plan import Case
from ..records import Record
from .common import Context, Skip, short

GRAPH, EAGER = "graph", "eager"
HF_EAGER, HF_COMPILE = "eager, static cache", "reduce-overhead, static cache"
ROOFLINE = "BW* / bytes per token"


def variants(case: Case) -> list[tuple[str, str]]:
    return [("cutile", GRAPH), ("cutile", EAGER), ("transformers", HF_EAGER),
            ("transformers.compile", HF_COMPILE), ("roofline", ROOFLINE)]


def _rec(case: Case, impl: str, variant: str) -> Record:
    return Record(case.row, case.kernel, case.shape, impl, variant, case.dtype, dict(case.params),
                  metric_name=case.metric_name, bytes=case.bytes)


def _timed(rec: Record, rate: float, tokens: int, mode: str) -> Record:
    rec.metric, rec.time_s = rate, 1.0 / rate
    rec.windows, rec.launches_per_window, rec.launch_mode = 1, tokens, mode
    return rec


def guarded(rec: Record, body: Callable[[], Record]) -> Record:
    try:
        return body()
    except Skip as s:
        rec.status, rec.reason = "skipped", str(s)
    except Exception as exc:  # one failing implementation is a record, not a crashed row
        rec.status, rec.reason = "failed", short(exc)
    return rec


def roofline(ctx: Context, case: Case) -> Record:
    rec = _rec(case, "roofline", ROOFLINE)
    if ctx.bw is None:
        rec.status, rec.reason = "skipped", "no BW* measured (row 0 failed)"
        return rec
    rec.metric = ctx.bw / case.bytes
    rec.launch_mode = "computed"
    return rec


def run(ctx: Context, case: Case) -> list[Record]:
    from ... import qwen3_decode as qd

    torch = ctx.torch
    p = case.params
    context, tokens = p["context"], p["tokens"]
    recs = {(i, v): _rec(case, i, v) for i, v in variants(case)}
    try:
        import transformers
    except Exception as exc:  # the checkpoints are made with transformers: nothing runs
        for rec in recs.values():
            rec.status, rec.reason = "skipped", f"transformers not importable ({short(exc, 120)})"
        return list(recs.values())
    with tempfile.TemporaryDirectory(prefix="qwen3-") as tmp:
        hf = qd.make_checkpoint(torch, transformers, p["size"], Path(tmp))
        model = qd.load_engine(tmp)
    tokens_of: dict[str, list[int]] = {}

    def engine(variant: str) -> Callable[[], Record]:
        def body() -> Record:
            rate, tokens_of[variant] = qd.engine_rate(model, context, tokens, variant == EAGER)
            return _timed(recs["cutile", variant], rate, tokens,
                          "graph replay per token" if variant == GRAPH else "synced launches")
        return body

    def hf_peer(impl: str, variant: str, compiled: bool) -> Callable[[], Record]:
        def body() -> Record:
            rate = qd.hf_rate(torch, transformers, hf, context, tokens, compiled)
            return _timed(recs[impl, variant], rate, tokens, "one forward per token")
        return body

    out = [guarded(recs["cutile", GRAPH], engine(GRAPH)),
           guarded(recs["cutile", EAGER], engine(EAGER))]
    graph = out[0]
    if graph.ok:
        if tokens_of.get(GRAPH) != tokens_of.get(EAGER) and EAGER in tokens_of:
            graph.status, graph.reason = "wrong", "graph and eager paths picked different tokens"
        try:
            graph.params["prefill_s"] = qd.engine_prefill_s(model, context)
        except Exception as exc:
            graph.params["prefill_error"] = short(exc)
    out.append(guarded(recs["transformers", HF_EAGER], hf_peer("transformers", HF_EAGER, False)))
    out.append(guarded(recs["transformers.compile", HF_COMPILE],
                       hf_peer("transformers.compile", HF_COMPILE, True)))
    out.append(roofline(ctx, case))
    del hf, model
    torch.cuda.empty_cache()
    return out

