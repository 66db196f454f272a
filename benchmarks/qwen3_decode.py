"""Batch-1 decode of the engine (examples/qwen3: Qwen3, Llama 3.x) on the device: row 10.

Tokens/s of the engine's graph path (one CUDA graph replay per step; greedy, and sampled as
Qwen3's generation_config.json samples: temperature 0.6, top-k 20, top-p 0.95, which draws over
the LM head's top blocks, and with top-k 0, which walks the whole row), its eager path
(one synced launch at a time; with --pdl the graph of dependent launches in each mode too) and
HF transformers (a static KV cache, one forward per token; with
--hf-compile that forward is `torch.compile(mode="reduce-overhead", fullgraph=True)`), the
fraction of the HBM roofline ((weight + KV bytes read per token) / time against a measured copy
bandwidth), the engine's batched prefill of the context, and with --profile the kernels of one
decode step.

    python benchmarks/qwen3_decode.py [--family qwen3|llama] [--sizes 0.6B,1.7B,4B]
        [--context 1024] [--tokens 64] [--hf-compile] [--profile] [--pdl] [--fuse-norms]
        [--json out.json]

--family picks the published config.json shapes: qwen3 (sizes 0.6B, 1.7B, 4B; the default) or
llama (Llama-3.2 sizes 1B, 3B: no q/k norm, llama3-scaled RoPE, tied head); --sizes (or
--size) defaults to every size of the family, case-insensitive (`--family llama --size 1b`).
Each size is a seeded random `Qwen3ForCausalLM` / `LlamaForCausalLM` (bf16) saved with
`save_pretrained` to a temporary directory, then loaded by the engine with `--dtype bfloat16`
(bf16 matrices and KV cache, f32 activations; runs before 2026-12-03 16:10 UTC had a float32
cache). Decode is timed from position `context` on: the engine skips its prefill (the cache
rows before it are zeros: the work per token is the same); transformers prefills `context`
random tokens into its static cache (not timed), then runs a warm-up and is timed over
`tokens` single-token forwards with the greedy pick on the device (one sync at the end). A
torch.compile failure is recorded in the row (`hf_compile_error`), not raised. Needs a GPU,
torch and transformers; nothing is downloaded.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "examples" / "qwen3"  # on sys.path only once an engine is loaded

if TYPE_CHECKING:
    from model import Engine

SHAPES: dict[str, dict[str, Any]] = {  # the published Qwen3 config.json shapes
    "0.6B": {"hidden_size": 1024, "intermediate_size": 3072, "num_hidden_layers": 28,
             "num_attention_heads": 16},
    "1.7B": {"hidden_size": 2048, "intermediate_size": 6144, "num_hidden_layers": 28,
             "num_attention_heads": 16},
    "4B": {"hidden_size": 2560, "intermediate_size": 9728, "num_hidden_layers": 36,
           "num_attention_heads": 32},
}
COMMON = {"num_key_value_heads": 8, "head_dim": 128, "vocab_size": 151936, "rope_theta": 1e6,
          "rms_norm_eps": 1e-6, "tie_word_embeddings": True, "max_position_embeddings": 40960}
LLAMA_SHAPES: dict[str, dict[str, Any]] = {  # meta-llama/Llama-3.2-{1B,3B} config.json shapes
    "1B": {"hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 16,
           "num_attention_heads": 32, "head_dim": 64},
    "3B": {"hidden_size": 3072, "intermediate_size": 8192, "num_hidden_layers": 28,
           "num_attention_heads": 24, "head_dim": 128},
}
LLAMA_COMMON = {"num_key_value_heads": 8, "vocab_size": 128256, "rope_theta": 500000.0,
                "rms_norm_eps": 1e-5, "tie_word_embeddings": True,
                "max_position_embeddings": 131072,
                "rope_scaling": {"rope_type": "llama3", "factor": 32.0, "low_freq_factor": 1.0,
                                 "high_freq_factor": 4.0,
                                 "original_max_position_embeddings": 8192}}
FAMILIES: dict[str, tuple[dict[str, dict[str, Any]], dict[str, Any], str]] = {
    "qwen3": (SHAPES, COMMON, "Qwen3"),  # shapes, common keys, transformers' class prefix
    "llama": (LLAMA_SHAPES, LLAMA_COMMON, "Llama"),
}


def size_name(family: str, size: str) -> str:
    """`size` as the family's table spells it (case-insensitive); ValueError if it has none."""
    shapes = FAMILIES[family][0]
    for name in shapes:
        if name.lower() == size.lower():
            return name
    raise ValueError(f"{family} has no size {size!r} (it has {', '.join(shapes)})")


def copy_bandwidth(torch: Any) -> float:
    """Bytes read + written per second by a 2 GiB device-to-device copy (BW*)."""
    src = torch.empty(2**29, dtype=torch.float32, device="cuda")
    dst = torch.empty_like(src)
    for _ in range(3):
        dst.copy_(src)
    torch.cuda.synchronize()
    t0, n = time.perf_counter(), 20
    for _ in range(n):
        dst.copy_(src)
    torch.cuda.synchronize()
    return 2 * src.numel() * 4 * n / (time.perf_counter() - t0)


def make_checkpoint(torch: Any, transformers: Any, size: str, path: Path,
                    family: str = "qwen3") -> Any:
    shapes, common, prefix = FAMILIES[family]
    torch.manual_seed(0)
    cfg = getattr(transformers, prefix + "Config")(**shapes[size], **common,
                                                   torch_dtype="bfloat16")
    with torch.device("cuda"):
        hf = getattr(transformers, prefix + "ForCausalLM")(cfg).to(torch.bfloat16).eval()
    hf.save_pretrained(path)
    return hf


def shape_config(size: str, family: str = "qwen3") -> SimpleNamespace:
    """The config.json numbers of a size, as attributes (what bytes_per_token reads)."""
    shapes, common, _ = FAMILIES[family]
    return SimpleNamespace(**shapes[size], **common)


ENGINE_MODULES = tuple(sorted(p.stem for p in ENGINE.glob("*.py")))
# the sampled rate's settings: Qwen3's generation_config.json (temperature, top-k, top-p)
CHAT_SAMPLING_ARGS = (0.6, 20, 0.95)


def load_engine(path: str | Path, dtype: str = "bfloat16", pdl: str | None = None,
                fuse_norms: bool = False) -> Engine:
    # the engine's modules import each other by bare name: a module of the same name imported
    # from elsewhere first (this script's folder is on sys.path) must not stand in for one
    if str(ENGINE) in sys.path:
        sys.path.remove(str(ENGINE))
    sys.path.insert(0, str(ENGINE))
    for name in ENGINE_MODULES:
        mod = sys.modules.get(name)
        if mod is not None and Path(getattr(mod, "__file__", "") or "").parent != ENGINE:
            del sys.modules[name]
    from config import load_config
    from model import Engine
    from weights import load_weights

    cfg = load_config(path)
    return Engine(cfg, load_weights(path, cfg), dtype, pdl=pdl, fuse_norms=fuse_norms)


def bytes_per_token(cfg: Any, context: int, kv_bytes: int = 2) -> int:
    """The bf16 matrices (and the tied LM head) plus the K and V rows read at `context`
    (`kv_bytes` per value: the bfloat16 engine keeps a bfloat16 cache)."""
    h, d, i = cfg.hidden_size, cfg.head_dim, cfg.intermediate_size
    nh, nkv = cfg.num_attention_heads, cfg.num_key_value_heads
    layer = (nh + 2 * nkv) * d * h + nh * d * h + 3 * h * i
    weights = 2 * (cfg.num_hidden_layers * layer + cfg.vocab_size * h)
    kv = cfg.num_hidden_layers * 2 * nkv * context * d * kv_bytes
    return weights + kv


def engine_rate(model: Engine, context: int, tokens: int, eager: bool,
                sampling: Any = None) -> tuple[float, list[int]]:
    """Tokens per second decoding from position `context` (the prefix skipped), and the tokens;
    greedy unless `sampling` (model.Sampling) is given."""
    model.reset([1] * context, tokens + 2, sampling)
    model.skip_to(context - 1)
    if eager:
        model.run_eager(1)
        model.tokens(context, 1)
        t0 = time.perf_counter()
        model.run_eager(tokens)
        model.tokens(context, 1)  # waits
        dt = time.perf_counter() - t0
        return tokens / dt, model.tokens(context, tokens + 1)
    graph = model.capture()  # compiles (first time) and runs the step at context - 1
    graph.replay()
    model.tokens(context, 1)
    t0 = time.perf_counter()
    for _ in range(tokens - 1):
        graph.replay()
    model.tokens(context, 1)
    dt = time.perf_counter() - t0
    graph.sync()
    return (tokens - 1) / dt, model.tokens(context, tokens + 1)


def variant_rates(row: dict[str, Any], engines: dict[str, Engine], context: int,
                  tokens: int, want: list[int], exact: bool) -> None:
    """`row[name + "_tok_s"]`: the graph rate of each engine, by its row name. `exact`: tokens
    other than the plain graph's `want` are an error entry (dependent launches change no
    arithmetic); else `name + "_same_tokens"` says whether they match (fusing rounds otherwise,
    which may flip a near tie)."""
    for name, engine in engines.items():

        def rate(e: Engine = engine, name: str = name) -> float:
            r, got = engine_rate(e, context, tokens, False)
            if exact and got != want:
                raise ValueError(f"other tokens than the plain graph's: {got[:8]}... against "
                                 f"{want[:8]}...")
            if not exact:
                row[f"{name}_same_tokens"] = got == want
            return r

        guarded(row, f"{name}_tok_s", rate)


def engine_prefill_s(model: Engine, context: int) -> float:
    """Seconds of the engine's batched prefill of a `context`-token prompt, up to its first
    token read back (the second of two runs: the first compiles)."""
    prompt = [(7919 * i + 1) % model.cfg.vocab_size for i in range(context)]
    times = []
    for _ in range(2):
        model.reset(prompt, 2)
        t0 = time.perf_counter()
        model.prefill()
        model.tokens(context, 1)
        times.append(time.perf_counter() - t0)
    return times[-1]


def static_cache(torch: Any, transformers: Any, hf: Any, length: int) -> Any:
    """A transformers StaticCache of `length` positions (the constructor's keywords changed
    across versions: max_batch_size/device/dtype are gone in the newer ones)."""
    try:
        return transformers.StaticCache(config=hf.config, max_batch_size=1, max_cache_len=length,
                                        device="cuda", dtype=torch.bfloat16)
    except TypeError:
        return transformers.StaticCache(config=hf.config, max_cache_len=length)


def hf_rate(torch: Any, transformers: Any, hf: Any, context: int, tokens: int,
            compiled: bool) -> float:
    """transformers' decode tokens/s: a static cache prefilled with `context` random tokens,
    then one forward per token (`compiled`: torch.compile reduce-overhead, fullgraph), the
    greedy pick and the position kept on the device; timed after a warm-up."""
    warm = 4 if compiled else 2
    cache = static_cache(torch, transformers, hf, context + warm + tokens + 4)
    ids = torch.randint(0, hf.config.vocab_size, (1, context), device="cuda",
                        generator=torch.Generator("cuda").manual_seed(1))

    def forward(tok: Any, position: Any) -> Any:
        logits = hf(tok, past_key_values=cache, use_cache=True, cache_position=position,
                    return_dict=False)[0]
        return logits[:, -1:].argmax(-1)

    step = torch.compile(forward, mode="reduce-overhead", fullgraph=True) if compiled \
        else forward
    mark = getattr(getattr(torch, "compiler", None), "cudagraph_mark_step_begin", None)

    def one(tok: Any, position: Any) -> Any:
        if compiled and mark is not None:
            mark()  # a new step: the last replay's outputs may be overwritten
        return step(tok, position).clone()  # cloned: cudagraph outputs are reused

    with torch.no_grad():
        position = torch.arange(context, device="cuda")
        tok = forward(ids, position)  # the prefill, eager, not timed
        position = position[-1:] + 1
        for _ in range(warm):  # warm-up (and compile)
            tok, position = one(tok, position), position + 1
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(tokens):
            tok, position = one(tok, position), position + 1
        torch.cuda.synchronize()
    return tokens / (time.perf_counter() - t0)


def kernel_profile(model: Engine, context: int, steps: int = 5) -> list[dict[str, Any]]:
    """Per kernel of one graph-replayed decode step at `context` (torch.profiler, CUDA
    activity): its name, launches per step and microseconds per step, slowest first."""
    from torch.profiler import ProfilerActivity, profile

    model.reset([1] * context, steps + 4)
    model.skip_to(context - 1)
    graph = model.capture()
    graph.replay()
    model.tokens(context, 1)
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(steps):
            graph.replay()
        model.tokens(context, 1)
    graph.sync()
    return per_kernel(prof, steps)


def per_kernel(prof: Any, steps: int) -> list[dict[str, Any]]:
    """A torch.profiler run's CUDA work per kernel name: launches and microseconds per step
    (`steps` of them profiled), slowest first."""
    agg: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for e in prof.events():
        if e.device_type.name == "CUDA":
            us = getattr(e, "device_time_total", None)
            agg[e.name][0] += float(e.cuda_time_total if us is None else us)
            agg[e.name][1] += 1
    rows = [{"kernel": name, "calls_per_step": round(n / steps, 2), "us_per_step": t / steps}
            for name, (t, n) in agg.items()]
    return sorted(rows, key=lambda r: -float(r["us_per_step"]))


def print_profile(size: str, prof: list[dict[str, Any]]) -> None:
    total = sum(float(r["us_per_step"]) for r in prof)
    print(f"{size}: kernel time of one decode step {total:.1f} us")
    print(f"  {'us/step':>9}  {'calls':>6}  kernel")
    for r in prof:
        print(f"  {r['us_per_step']:9.1f}  {r['calls_per_step']:6g}  {r['kernel'][:80]}")


def guarded(row: dict[str, Any], key: str, fn: Any) -> None:
    """row[key] = fn(); an exception is recorded as row[key + '_error'] instead."""
    try:
        row[key] = fn()
    except Exception as exc:  # a peer that fails here is a row entry, not a crash
        row[key] = None
        row[f"{key}_error"] = f"{exc.__class__.__name__}: {exc}"[:400]
    if not key.startswith("profile"):  # as it comes: a run cut short still shows what it measured
        print(f"  {row['size']} {key}: {row[key]}", flush=True)


def measure(torch: Any, transformers: Any, size: str, context: int, tokens: int,
            hf_compile: bool, profile: bool, bw: float, prefill: bool = True,
            family: str = "qwen3", pdl: bool = False, fuse: bool = False) -> dict[str, Any]:
    """One size's row: every number of the table (and the profile when asked; with `pdl` the
    graph rates of engines whose kernels are dependent launches too, per PDL mode; with `fuse`
    those of Engine(fuse_norms=True), plain and per PDL mode)."""
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        hf = make_checkpoint(torch, transformers, size, Path(tmp), family)
        model = load_engine(tmp)
        from kernel_table import PDL_MODES  # the engine's, on the path now

        modes = PDL_MODES if pdl else ()
        dependent = {f"graph_pdl_{mode}": load_engine(tmp, pdl=mode) for mode in modes}
        fused = {"graph_fused" + (f"_pdl_{mode}" if mode else ""):
                 load_engine(tmp, pdl=mode, fuse_norms=True) for mode in (None, *modes)} \
            if fuse else {}
        variants = [*dependent, *fused]
        setup = time.perf_counter() - t0
    row: dict[str, Any] = {"family": family, "size": size, "context": context,
                           "setup_s": round(setup, 1)}
    row["graph_tok_s"], graph_tokens = engine_rate(model, context, tokens, False)
    print(f"  {size} graph_tok_s: {row['graph_tok_s']:.1f} (setup {setup:.0f} s)", flush=True)
    row["eager_tok_s"], eager_tokens = engine_rate(model, context, tokens, True)
    row["graph_equals_eager"] = graph_tokens == eager_tokens
    from model import Sampling  # the engine's, on the path now

    t, k, p = CHAT_SAMPLING_ARGS  # top-k 20: the draw over the head's top blocks; top-k 0
    for key, sampling in (("graph_sampled_tok_s", Sampling(t, k, p)),  # (all): over the row
                          ("graph_sampled_all_tok_s", Sampling(t, 0, p))):
        row[key], _ = engine_rate(model, context, tokens, False, sampling)
        print(f"  {size} {key}: {row[key]:.1f}", flush=True)
    variant_rates(row, dependent, context, tokens, graph_tokens, exact=True)
    variant_rates(row, fused, context, tokens, graph_tokens, exact=False)
    if profile and "graph_pdl_prefetch" in dependent:
        guarded(row, "profile_pdl_prefetch",
                lambda: kernel_profile(dependent["graph_pdl_prefetch"], context))
    del dependent, fused
    if prefill:
        guarded(row, "prefill_s", lambda: engine_prefill_s(model, context))
    guarded(row, "hf_eager_tok_s", lambda: hf_rate(torch, transformers, hf, context, tokens,
                                                    False))
    if hf_compile:
        guarded(row, "hf_compile_tok_s", lambda: hf_rate(torch, transformers, hf, context,
                                                          tokens, True))
    roof = bw / bytes_per_token(model.cfg, context, 2 if model.kv_dtype == "bfloat16" else 4)
    row["roofline_tok_s"] = roof
    row["graph_frac_roofline"] = row["graph_tok_s"] / roof
    for name in variants:
        if row.get(f"{name}_tok_s"):
            row[f"{name}_frac_roofline"] = row[f"{name}_tok_s"] / roof
    for peer in ("hf_eager", "hf_compile"):
        if row.get(f"{peer}_tok_s"):
            row[f"graph_over_{peer}"] = row["graph_tok_s"] / row[f"{peer}_tok_s"]
    if profile:
        guarded(row, "profile", lambda: kernel_profile(model, context))
    del hf, model
    torch.cuda.empty_cache()
    return row


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--family", choices=sorted(FAMILIES), default="qwen3",
                   help="the model family whose published shapes to run (default qwen3)")
    p.add_argument("--sizes", "--size", dest="sizes",
                   help="comma-separated sizes (default: all of the family's: qwen3 "
                        f"{','.join(SHAPES)}; llama {','.join(LLAMA_SHAPES)})")
    p.add_argument("--context", type=int, default=1024)
    p.add_argument("--tokens", type=int, default=64)
    p.add_argument("--hf-compile", action="store_true", help="also HF with torch.compile")
    p.add_argument("--profile", action="store_true", help="per-kernel times of one step")
    p.add_argument("--no-prefill", action="store_true", help="skip timing the batched prefill")
    p.add_argument("--pdl", action="store_true",
                   help="also the graph rates with every kernel a dependent launch (each mode "
                        "of the engine's pdl option)")
    p.add_argument("--fuse-norms", action="store_true",
                   help="also the graph rates with each norm inside the projection that reads "
                        "it (Engine(fuse_norms=True); per PDL mode too with --pdl)")
    p.add_argument("--json", help="write the rows here too")
    args = p.parse_args(argv)
    try:
        sizes = [size_name(args.family, s) for s in (args.sizes or ",".join(
            FAMILIES[args.family][0])).split(",")]
    except ValueError as e:
        p.error(str(e))
    import torch
    import transformers

    bw = copy_bandwidth(torch)
    print(f"BW* (2 GiB copy): {bw / 1e12:.2f} TB/s")
    rows = []
    for size in sizes:
        row = measure(torch, transformers, size, args.context, args.tokens, args.hf_compile,
                      args.profile, bw, not args.no_prefill, args.family, args.pdl,
                      args.fuse_norms)
        rows.append(row)
        for key in ("profile", "profile_pdl_prefetch"):
            if isinstance(row.get(key), list):
                print_profile(f"{size} {key}", row[key])
        print(json.dumps({k: round(v, 4) if isinstance(v, float) else v
                          for k, v in row.items() if not k.startswith("profile")}), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps({"bw": bw, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
