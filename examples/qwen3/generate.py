"""Greedy generation with the Qwen3 engine.

    python examples/qwen3/generate.py --model DIR --prompt-ids 1,2,3 --max-new-tokens N \
        [--dtype float32|bfloat16] [--json]

DIR is a Hugging Face checkpoint directory (config.json and *.safetensors). Runs on the GPU when
there is one, otherwise on the interpreter (tiny configs); CUTILE_BACKEND forces one.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass

from config import ConfigError, load_config
from model import DTYPES, Qwen3
from weights import WeightsError, load_weights

import cutile as ct


@dataclass
class Result:
    tokens: list[int]
    prefill_s: float
    decode_tokens_per_s: float | None  # None when no token came from a decode step


def generate(model: Qwen3, prompt: list[int], max_new_tokens: int) -> Result:
    """Prefill runs the prompt through decode steps token by token; then greedy decoding."""
    if not prompt or max_new_tokens < 1:
        raise ValueError("need at least one prompt token and one new token")
    model.reset(len(prompt) + max_new_tokens)
    t0 = time.perf_counter()
    for pos, tok in enumerate(prompt):
        logits = model.step(tok, pos)
    token = model.next_token(logits)  # stays on the device as the next step's input
    tokens = [int(token.numpy()[0])]
    prefill_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    while len(tokens) < max_new_tokens:
        token = model.next_token(model.step(token, len(prompt) + len(tokens) - 1))
        tokens.append(int(token.numpy()[0]))
    steps, decode_s = len(tokens) - 1, time.perf_counter() - t1
    return Result(tokens, prefill_s, steps / decode_s if steps else None)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    p.add_argument("--model", required=True, help="checkpoint directory")
    p.add_argument("--prompt-ids", required=True, help="comma-separated token ids")
    p.add_argument("--max-new-tokens", type=int, default=32)
    p.add_argument("--dtype", choices=sorted(DTYPES), default="float32")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args(argv)
    try:
        prompt = [int(t) for t in args.prompt_ids.split(",")]
    except ValueError:
        p.error(f"--prompt-ids: expected integers separated by commas, got {args.prompt_ids!r}")
    try:
        cfg = load_config(args.model)
        model = Qwen3(cfg, load_weights(args.model, cfg), args.dtype)
        model.reset(1)
        model.step(prompt[0], 0)  # compiles every kernel, so the timings below exclude the JIT
        result = generate(model, prompt, args.max_new_tokens)
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
