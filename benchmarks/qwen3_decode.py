"""Qwen3 batch-1 decode on the device (BENCHMARKS row 10): tokens/s of the engine's graph path
(one CUDA graph replay per step), its eager path (one synced launch at a time) and HF
transformers (static cache; with --hf-compile also torch.compile), and the fraction of the HBM
roofline: (weight + KV bytes read per token) / time against a measured copy bandwidth.

    python benchmarks/qwen3_decode.py [--sizes 0.6B,1.7B,4B] [--context 1024] [--tokens 64]
        [--hf-compile] [--json out.json]

Each size is a seeded random `Qwen3ForCausalLM` (bf16) saved with `save_pretrained` to a
temporary directory, then loaded by the engine with `--dtype bfloat16` (bf16 matrices, f32
activations and KV cache). Decode is timed from position `context` on: the engine skips its
prefill (the cache rows before it are zeros: the work per token is the same), transformers
prefills `context` random tokens and is timed on the tokens after the first. Needs a GPU, torch
and transformers; nothing is downloaded.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples" / "qwen3"))

from config import load_config  # noqa: E402
from model import Qwen3  # noqa: E402
from weights import load_weights  # noqa: E402

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


def make_checkpoint(torch: Any, transformers: Any, size: str, path: Path) -> Any:
    torch.manual_seed(0)
    cfg = transformers.Qwen3Config(**SHAPES[size], **COMMON, torch_dtype="bfloat16")
    with torch.device("cuda"):
        hf = transformers.Qwen3ForCausalLM(cfg).to(torch.bfloat16).eval()
    hf.save_pretrained(path)
    return hf


def bytes_per_token(cfg: Any, context: int) -> int:
    """The bf16 matrices (and the tied LM head) plus the f32 K and V rows read at `context`."""
    h, d, i = cfg.hidden_size, cfg.head_dim, cfg.intermediate_size
    nh, nkv = cfg.num_attention_heads, cfg.num_key_value_heads
    layer = (nh + 2 * nkv) * d * h + nh * d * h + 3 * h * i
    weights = 2 * (cfg.num_hidden_layers * layer + cfg.vocab_size * h)
    kv = cfg.num_hidden_layers * 2 * nkv * context * d * 4
    return weights + kv


def engine_rate(model: Qwen3, context: int, tokens: int, eager: bool) -> tuple[float, list[int]]:
    model.reset([1] * context, tokens + 2)
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


def hf_rate(torch: Any, hf: Any, context: int, tokens: int, compiled: bool) -> float:
    if compiled:
        hf.forward = torch.compile(hf.forward, mode="reduce-overhead", fullgraph=True)
    hf.generation_config.eos_token_id = None
    ids = torch.randint(0, hf.config.vocab_size, (1, context), device="cuda",
                        generator=torch.Generator("cuda").manual_seed(1))
    kw = {"do_sample": False, "cache_implementation": "static",
          "attention_mask": torch.ones_like(ids)}

    def run(n: int) -> float:
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        with torch.no_grad():
            hf.generate(ids, max_new_tokens=n, min_new_tokens=n, **kw)
        torch.cuda.synchronize()
        return time.perf_counter() - t0

    run(tokens)  # warm-up (and compile)
    one, many = run(1), run(tokens + 1)
    return tokens / (many - one)


def main(argv: list[str] | None = None) -> int:
    import torch
    import transformers

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sizes", default="0.6B,1.7B,4B")
    p.add_argument("--context", type=int, default=1024)
    p.add_argument("--tokens", type=int, default=64)
    p.add_argument("--hf-compile", action="store_true", help="also HF with torch.compile")
    p.add_argument("--json", help="write the rows here too")
    args = p.parse_args(argv)
    bw = copy_bandwidth(torch)
    print(f"BW* (2 GiB copy): {bw / 1e12:.2f} TB/s")
    rows = []
    for size in args.sizes.split(","):
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            hf = make_checkpoint(torch, transformers, size, Path(tmp))
            cfg = load_config(tmp)
            model = Qwen3(cfg, load_weights(tmp, cfg), "bfloat16")
            setup = time.perf_counter() - t0
        row: dict[str, Any] = {"size": size, "context": args.context, "setup_s": round(setup, 1)}
        row["graph_tok_s"], graph_tokens = engine_rate(model, args.context, args.tokens, False)
        row["eager_tok_s"], eager_tokens = engine_rate(model, args.context, args.tokens, True)
        row["graph_equals_eager"] = graph_tokens == eager_tokens
        row["hf_static_tok_s"] = hf_rate(torch, hf, args.context, args.tokens, False)
        if args.hf_compile:
            row["hf_compile_tok_s"] = hf_rate(torch, hf, args.context, args.tokens, True)
        roof = bw / bytes_per_token(cfg, args.context)
        row["roofline_tok_s"] = roof
        row["graph_frac_roofline"] = row["graph_tok_s"] / roof
        rows.append(row)
        print(json.dumps({k: round(v, 3) if isinstance(v, float) else v
                          for k, v in row.items()}), flush=True)
        del hf, model
        torch.cuda.empty_cache()
    if args.json:
        Path(args.json).write_text(json.dumps({"bw": bw, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
