"""Each launch of the engine's decode step (examples/qwen3), one at a time: its kernel and Consts
printed before it runs, then its synced time. A launch that has not finished after --hang-s
seconds (the first step's compiles included) ends the process with exit status 1 and the host's
stack, its kernel the last name printed, so a hung kernel costs no more device time than that.
A seeded random checkpoint of a
small Qwen3 shape; a prompt of 150 tokens makes the decode attention split each head's cache
(A > 1), whose first positions leave some blocks an empty range.

    python benchmarks/decode_trace.py [--prompt 150] [--steps 150] [--dtype float32|bfloat16]
        [--slow-ms 50] [--hang-s 60] [--model DIR] [--sample T K P] [--new 24]
        [--prefill] [--prompt-ids 1,2,3] [--warm-new N]
    python benchmarks/decode_trace.py [--hang-s 60] --generate GENERATE.PY ARGS...

--model traces a checkpoint of your own (examples/qwen3/tiny.py writes one) instead;
--sample picks with temperature T, top-k K and top-p P (sample_next) instead of greedily;
--new is the reset's max_new_tokens (the cache's length, so the attention split, follows it);
--prefill runs the prompt as one batched prefill (eager, synced) first, as generate.py does,
and traces the decode steps after it; --prompt-ids gives the prompt's ids (default: --prompt
ids of a fixed pattern); --warm-new first resets with N new tokens and runs its steps, eagerly
(generate.py's warm-up run, whose smaller cache gives other buffers and Consts), then traces
after the real reset: with --warm-new 2 and greedy picks, the launches of
`generate.py --chat --eager --step-prefill --greedy` (the same kernels, Consts and shapes).
--generate runs generate.py itself (its arguments follow; --eager is added) with every launch
synced and written to stderr before it runs (its number, kernel and Consts), so the last line
before a hang names the launch.

Only launches slower than --slow-ms are printed after the first step (every one of the first),
unless --each names every launch on stderr before it runs (a hang's kernel is then the last).
Runs on the interpreter too (slowly); meant for the GPU.
"""

from __future__ import annotations

import argparse
import faulthandler
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SMALL = {"hidden_size": 256, "intermediate_size": 768, "num_hidden_layers": 3,
         "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 64,
         "vocab_size": 4099, "tie_word_embeddings": True, "rope_theta": 1e6}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--prompt", type=int, default=150, help="prompt tokens")
    ap.add_argument("--steps", type=int, default=150, help="decode steps from position 0")
    ap.add_argument("--dtype", choices=("float32", "bfloat16"), default="float32")
    ap.add_argument("--slow-ms", type=float, default=50.0)
    ap.add_argument("--hang-s", type=float, default=60.0)
    ap.add_argument("--model", type=Path, help="a checkpoint folder (default: a seeded one)")
    ap.add_argument("--sample", nargs=3, type=float, metavar=("T", "K", "P"))
    ap.add_argument("--new", type=int, default=24, help="max_new_tokens of the reset")
    ap.add_argument("--prefill", action="store_true", help="a batched prefill first")
    ap.add_argument("--prompt-ids", type=lambda v: [int(x) for x in v.split(",")])
    ap.add_argument("--warm-new", type=int, help="a warm-up reset with this many new tokens")
    ap.add_argument("--each", action="store_true",
                    help="every launch after the first step on stderr before it runs")
    ap.add_argument("--generate", nargs=argparse.REMAINDER, help="generate.py's arguments")
    opts = ap.parse_args(argv)
    try:
        if opts.generate is not None:
            trace_generate(opts.generate, opts.hang_s)
        else:
            trace(opts)
    finally:
        faulthandler.cancel_dump_traceback_later()


def trace(opts: argparse.Namespace) -> None:
    sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "qwen3")]  # run as a script too
    import checkpoint

    from benchmarks.qwen3_decode import load_engine

    root = opts.model
    if root is None:
        root = Path(tempfile.mkdtemp())
        cfg = {**checkpoint.TINY, **SMALL}
        checkpoint.write(root, cfg, checkpoint.random_tensors(cfg, 9),
                         "F32" if opts.dtype == "float32" else "BF16")
    model = load_engine(root, opts.dtype)
    import links as lk  # the engine's, on the path now
    from model import Sampling

    t, k, p = opts.sample or (0.0, 0, 1.0)
    sampling = Sampling(t, int(k), p)
    vocab = model.cfg.vocab_size
    prompt = opts.prompt_ids or [(31 * i + 7) % vocab for i in range(opts.prompt)]
    if opts.warm_new:
        model.reset(prompt, opts.warm_new, sampling)
        model.run_eager(len(prompt) + opts.warm_new - 1)  # its prompt, then its new tokens
        print("warm-up done", flush=True)
    model.reset(prompt, opts.new, sampling)
    if opts.prefill:
        faulthandler.dump_traceback_later(opts.hang_s, exit=True, file=sys.__stderr__)
        model.prefill(eager=True)
        faulthandler.cancel_dump_traceback_later()
        print("prefill done", flush=True)
    for step in range(opts.steps):
        start = time.perf_counter()
        for ln in model.links:
            if not isinstance(ln, lk.Link):  # a host link (tensor parallel): not here
                continue
            name = getattr(ln.kernel, "__name__", str(ln.kernel))
            if step == 0:
                print(f"step {step} {name} {ln.consts}", end=" ", flush=True)
            elif opts.each:
                print(f"step {step} {name} {ln.consts}", file=sys.stderr, flush=True)
            t = time.perf_counter()
            faulthandler.dump_traceback_later(opts.hang_s, exit=True, file=sys.__stderr__)
            lk.written(model.buf, ln, lk.launch(model.buf, ln).sync())
            faulthandler.cancel_dump_traceback_later()
            ms = (time.perf_counter() - t) * 1e3
            if step == 0:
                print(f"{ms:.2f} ms", flush=True)
            elif ms > opts.slow_ms:
                print(f"step {step} {name} {ln.consts} {ms:.2f} ms", flush=True)
        if step % 25 == 0:
            print(f"step {step}: {(time.perf_counter() - start) * 1e3:.2f} ms", flush=True)
    print(f"done: {opts.steps} steps", flush=True)


def trace_generate(args: list[str], hang_s: float) -> None:
    """generate.py's own run, eager, each launch announced on stderr and watched."""
    sys.path[:0] = [str(ROOT / "examples" / "qwen3")]
    import generate
    import links as lk

    real = lk.launch
    count = [0]

    def launch(buf: dict[str, object], ln: lk.Link) -> object:
        count[0] += 1
        name = getattr(ln.kernel, "__name__", str(ln.kernel))
        print(f"launch {count[0]} {name} {ln.consts}", file=sys.stderr, flush=True)
        faulthandler.dump_traceback_later(hang_s, exit=True, file=sys.__stderr__)
        return real(buf, ln)

    lk.launch = launch  # run_each syncs each launch; the next launch re-arms the timer
    try:
        code = generate.main([*args, "--eager"])
    finally:
        lk.launch = real
    print(f"done: {count[0]} launches, exit status {code}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
