"""Each launch of the engine's decode step (examples/qwen3), one at a time: its kernel and Consts
printed before it runs, then its synced time. A launch that has not finished after --hang-s
seconds (the first step's compiles included) ends the process with exit status 1 and the host's
stack, its kernel the last name printed, so a hung kernel costs no more device time than that.
A seeded random checkpoint of a
small Qwen3 shape; a prompt of 150 tokens makes the decode attention split each head's cache
(A > 1), whose first positions leave some blocks an empty range.

    python benchmarks/decode_trace.py [--prompt 150] [--steps 150] [--dtype float32|bfloat16]
        [--slow-ms 50] [--hang-s 60]

Only launches slower than --slow-ms are printed after the first step (every one of the first).
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
    opts = ap.parse_args(argv)
    try:
        trace(opts)
    finally:
        faulthandler.cancel_dump_traceback_later()


def trace(opts: argparse.Namespace) -> None:
    sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "qwen3")]  # run as a script too
    import checkpoint

    from benchmarks.qwen3_decode import load_engine

    root = Path(tempfile.mkdtemp())
    cfg = {**checkpoint.TINY, **SMALL}
    checkpoint.write(root, cfg, checkpoint.random_tensors(cfg, 9),
                     "F32" if opts.dtype == "float32" else "BF16")
    model = load_engine(root, opts.dtype)
    import links as lk  # the engine's, on the path now

    model.reset([(31 * i + 7) % SMALL["vocab_size"] for i in range(opts.prompt)], 24)
    for step in range(opts.steps):
        start = time.perf_counter()
        for ln in model.links:
            if not isinstance(ln, lk.Link):  # a host link (tensor parallel): not here
                continue
            name = getattr(ln.kernel, "__name__", str(ln.kernel))
            if step == 0:
                print(f"step {step} {name} {ln.consts}", end=" ", flush=True)
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


if __name__ == "__main__":
    main()
