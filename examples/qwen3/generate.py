"""Generation with the Qwen3 engine: greedy, or sampled with temperature, top-k and top-p.

    python examples/qwen3/generate.py --model DIR --prompt-ids 1,2,3 --max-new-tokens N \
        [--dtype float32|bfloat16] [--kv-dtype float32|bfloat16] \
        [--temperature T --top-k K --top-p P --seed S] [--eager] \
        [--step-prefill] [--json]

DIR is a Hugging Face checkpoint directory (config.json and *.safetensors). Runs on the GPU when
there is one, otherwise on the interpreter (tiny configs); CUTILE_BACKEND forces one. Each step
is one replay of a captured graph; --eager launches the kernels one by one instead (debugging).
The prompt is prefilled in one batched pass (GEMMs and causal attention over all its rows);
--step-prefill runs one decode step per prompt token instead (the older path, for comparison).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass

from config import ConfigError, load_config
from model import DTYPES, Qwen3, Sampling
from weights import WeightsError, load_weights

import cutile as ct

GREEDY = Sampling()


@dataclass
class Result:
    tokens: list[int]
    prefill_s: float
    decode_tokens_per_s: float | None  # None when no token came from a decode step


def generate(model: Qwen3, prompt: list[int], max_new_tokens: int,
             sampling: Sampling = GREEDY, eager: bool = False,
             step_prefill: bool = False) -> Result:
    """The prompt in one batched prefill (GEMMs and attention over its rows; `step_prefill`:
    one decode step per prompt token instead), which picks the first new token; then
    max_new_tokens - 1 decode steps. The decode rate is timed over the steps after the first
    (that one captures the graph). The tokens are read back once, at the end."""
    model.reset(prompt, max_new_tokens, sampling)
    n, steps = len(prompt), max_new_tokens - 1
    t0 = time.perf_counter()
    graph = None
    if not step_prefill:
        model.prefill(eager)
    elif eager:
        model.run_eager(n)
    else:
        graph = model.capture()  # runs the step at position 0
        for _ in range(n - 1):
            graph.replay()
    model.tokens(n, 1)  # waits for the first new token
    prefill_s = time.perf_counter() - t0
    if steps and graph is None:  # the first decode step (with the capture): not timed
        if eager:
            model.run_eager(1)
        else:
            graph = model.capture()
        steps -= 1
    model.tokens(n, 1)
    t1 = time.perf_counter()
    if eager:
        model.run_eager(steps)
    else:
        for _ in range(steps):
            assert graph is not None
            graph.replay()
    model.tokens(n, 1)  # waits
    decode_s = time.perf_counter() - t1
    if graph is not None:
        graph.sync()
    tokens = model.tokens(n, max_new_tokens)
    return Result(tokens, prefill_s, steps / decode_s if steps else None)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    p.add_argument("--model", required=True, help="checkpoint directory")
    p.add_argument("--prompt-ids", required=True, help="comma-separated token ids")
    p.add_argument("--max-new-tokens", type=int, default=32)
    p.add_argument("--dtype", choices=sorted(DTYPES), default="float32")
    p.add_argument("--kv-dtype", choices=sorted(DTYPES),
                   help="the KV cache's dtype (default: --dtype's)")
    p.add_argument("--temperature", type=float, default=0.0, help="0: greedy (the default)")
    p.add_argument("--top-k", type=int, default=0, help="sample from the K largest (0: all)")
    p.add_argument("--top-p", type=float, default=1.0, help="then from mass P of those")
    p.add_argument("--seed", type=int, default=0, help="the Philox key of the draws")
    p.add_argument("--eager", action="store_true", help="launch one by one, no graph")
    p.add_argument("--step-prefill", action="store_true",
                   help="prefill with one decode step per prompt token (not batched)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args(argv)
    try:
        prompt = [int(t) for t in args.prompt_ids.split(",")]
    except ValueError:
        p.error(f"--prompt-ids: expected integers separated by commas, got {args.prompt_ids!r}")
    if args.temperature < 0 or not 0 < args.top_p <= 1 or args.top_k < 0:
        p.error("need --temperature >= 0, 0 < --top-p <= 1 and --top-k >= 0")
    sampling = Sampling(args.temperature, args.top_k, args.top_p, args.seed)
    try:
        cfg = load_config(args.model)
        model = Qwen3(cfg, load_weights(args.model, cfg), args.dtype, kv_dtype=args.kv_dtype)
        for t in prompt:  # a bad id is an error before the warm-up, not inside it
            if not 0 <= t < cfg.vocab_size:
                raise ValueError(f"token id {t} is outside the vocabulary "
                                 f"(0..{cfg.vocab_size - 1})")
        # compiles every kernel, so the timings below exclude the JIT
        generate(model, prompt, 2, sampling, args.eager, args.step_prefill)
        result = generate(model, prompt, args.max_new_tokens, sampling, args.eager,
                          args.step_prefill)
    except (ConfigError, WeightsError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    out = {"tokens": result.tokens, "prefill_s": result.prefill_s,
           "decode_tokens_per_s": result.decode_tokens_per_s, "backend": ct.backend_name()}
    if args.json:
        print(json.dumps(out))
    else:
        rate = result.decode_tokens_per_s
        print(f"tokens: {' '.join(map(str, result.tokens))}")
        print(f"prefill {result.prefill_s:.3f} s, decode "
              f"{'n/a' if rate is None else f'{rate:.1f} tokens/s'} on {out['backend']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
