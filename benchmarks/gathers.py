"""Timings of the gather examples next to torch peers (issue 16), on the GPU.

    python benchmarks/gathers.py [--quick] [--iters 50]

- embedding: examples/embedding.py's kernel ((32, 128) tiles, `d * BD + arange(BD)` columns:
  one bf16 element per load) and benchmarks/kernels/embedding.py's whole-row form (BT whole
  rows per block, `arange(D)` columns: 16-byte loads) at BT = 1, 2, 4, vs
  `torch.nn.functional.embedding`, a (50257, 4096) bf16 table and 8192 token ids;
- paged decode: examples/paged_attention.py's kernel vs torch gathering the pages
  (`k_cache[block_table]`) and running SDPA on them with a length mask, 32 sequences of up to
  4096 tokens, 32 query / 8 KV heads, D = 128, pages of 16.

Each timing is wall time per call with a device sync after each (the same for both sides), so
small kernels include launch overhead. With torch on a GPU each line also gives the kernel time
("dev"): CUDA events around `iters` back-to-back launches on one stream (cutile replays a graph
of its launch, torch calls its op), the number to compare kernels by. Every cutile form's output
is checked against the example's before it is timed. Without torch (or a GPU) only cutile runs:
`--quick` with CUTILE_BACKEND=interpreter is a smoke test of this script.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import cutile as ct
from cutile import bf16

ROOT = Path(__file__).resolve().parents[1]


def _example(name: str, folder: str = "examples") -> Any:
    spec = importlib.util.spec_from_file_location(f"cutile_bench_{folder}_{name}",
                                                  ROOT / folder / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _per_call_us(fn: Callable[[], None], iters: int) -> float:
    for _ in range(3):
        fn()
    t0 = time.perf_counter()
    for _ in range(iters):
        fn()
    return (time.perf_counter() - t0) / iters * 1e6


class Launcher:
    """Relaunches a kernel on the arguments its last `.sync()` handed back."""

    def __init__(self, kernel: Any, args: list[Any], **kw: Any) -> None:
        self.kernel, self.args, self.kw = kernel, args, kw

    def __call__(self) -> None:
        self.args = list(self.kernel(*self.args, **self.kw).sync())

    def device_us(self, torch: Any, iters: int) -> float:
        """Kernel time per launch: a graph of one launch on a torch stream of its own, replayed
        `iters` times between CUDA events (after 3 replays of warm-up)."""
        from cutile.runtime import context

        torch.cuda.synchronize()
        stream = torch.cuda.Stream()
        old = context.set_current_stream(int(stream.cuda_stream))
        try:
            graph = self.kernel(*self.args, **self.kw).graph()
            for _ in range(3):
                graph.replay()
            start, end = (torch.cuda.Event(enable_timing=True) for _ in range(2))
            start.record(stream)
            for _ in range(iters):
                graph.replay()
            end.record(stream)
            self.args = list(graph.sync())
        finally:
            context.set_current_stream(old)
        end.synchronize()
        return float(start.elapsed_time(end)) * 1e3 / iters


def _device(run: Launcher, torch: Any, iters: int, times: dict[str, float], key: str) -> None:
    """times[key] = run's kernel time; a failure is printed, and the wall times still count."""
    try:
        times[key] = run.device_us(torch, iters)
    except Exception as exc:
        print(f"  {key}: no kernel time ({exc.__class__.__name__}: {str(exc)[:200]})")


def _torch_device_us(torch: Any, fn: Callable[[], None], iters: int) -> float:
    for _ in range(3):
        fn()
    start, end = (torch.cuda.Event(enable_timing=True) for _ in range(2))
    start.record()
    for _ in range(iters):
        fn()
    end.record()
    end.synchronize()
    return float(start.elapsed_time(end)) * 1e3 / iters


def _torch() -> Any:
    if ct.backend_name() != "cuda":
        return None
    try:
        import torch  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return None
    return torch


def embedding(quick: bool, iters: int) -> dict[str, float]:
    mod = _example("embedding")
    rows = _example("embedding", "benchmarks/kernels").embedding_rows
    vocab, dim, tokens = (1000, 256, 100) if quick else (50257, 4096, 8192)
    ids = np.random.default_rng(0).integers(0, vocab, tokens).astype(np.int32)
    ids[:2] = [-1, vocab]  # ids outside the table read zero rows
    table = ct.randn((vocab, dim), bf16, seed=0)
    t_ids = ct.from_numpy(ids)
    forms = {"cutile": (mod.embedding, (32, 128))}
    forms.update({f"cutile rows BT={bt}": (rows, (bt, dim)) for bt in (1, 2, 4)})
    torch = _torch()
    times: dict[str, float] = {}
    want = None
    for name, (kernel, tile) in forms.items():
        out = ct.zeros((tokens, dim), bf16).partition(tile)
        run = Launcher(kernel, [out, table, t_ids])
        run()
        whole = run.args[0].unpartition()
        got = whole.numpy()
        run.args[0] = whole.partition(tile)
        if want is None:
            want = got
        elif not np.array_equal(got, want):
            raise AssertionError(f"embedding: {name} differs from the example's output")
        times[name] = _per_call_us(run, iters)
        if torch is not None:
            _device(run, torch, iters, times, f"{name} dev")
        table, t_ids = run.args[1], run.args[2]
    if torch is not None:
        t_table = torch.randn(vocab, dim, device="cuda", dtype=torch.bfloat16)
        t_ids64 = torch.from_numpy(ids.clip(0, vocab - 1).astype(np.int64)).cuda()

        def peer() -> None:
            torch.nn.functional.embedding(t_ids64, t_table)
            torch.cuda.synchronize()
        times["torch"] = _per_call_us(peer, iters)
        times["torch dev"] = _torch_device_us(
            torch, lambda: torch.nn.functional.embedding(t_ids64, t_table), iters)
    return times


def paged_decode(quick: bool, iters: int) -> dict[str, float]:
    mod = _example("paged_attention")
    batch, max_len, hq, hkv, d, page = (2, 64, 8, 2, 64, 16) if quick else \
        (32, 4096, 32, 8, 128, 16)
    rng = np.random.default_rng(1)
    lens = rng.integers(max_len // 2, max_len + 1, batch).astype(np.int32)
    width = -(-max_len // page)
    pool = batch * width
    table = rng.permutation(pool).reshape(batch, width).astype(np.int32)
    q = ct.randn((batch, hq, d), bf16, seed=2)
    k = ct.randn((pool, page, hkv, d), bf16, seed=3)
    v = ct.randn((pool, page, hkv, d), bf16, seed=4)
    out = ct.zeros((batch, hq, d), bf16).partition((1, hq // hkv, d))
    run = Launcher(mod.paged_decode, [out, q, k, v, ct.from_numpy(table), ct.from_numpy(lens),
                                      1 / math.sqrt(d)])
    times = {"cutile": _per_call_us(run, iters)}
    torch = _torch()
    if torch is not None:
        _device(run, torch, iters, times, "cutile dev")
        dev = "cuda"
        tq = torch.randn(batch, hq, 1, d, device=dev, dtype=torch.bfloat16)
        tk = torch.randn(pool, page, hkv, d, device=dev, dtype=torch.bfloat16)
        tv = torch.randn(pool, page, hkv, d, device=dev, dtype=torch.bfloat16)
        tt = torch.from_numpy(table.astype(np.int64)).to(dev)
        pos = torch.arange(width * page, device=dev)
        mask = (pos[None, :] < torch.from_numpy(lens).to(dev)[:, None])[:, None, None, :]

        def gathered(cache: Any) -> Any:  # (B, W, PAGE, Hkv, D) -> (B, Hq, S, D)
            x = cache[tt].reshape(batch, width * page, hkv, d).transpose(1, 2)
            return x.repeat_interleave(hq // hkv, dim=1)

        def sdpa() -> None:
            torch.nn.functional.scaled_dot_product_attention(tq, gathered(tk), gathered(tv),
                                                             attn_mask=mask)

        def peer() -> None:
            sdpa()
            torch.cuda.synchronize()
        times["torch"] = _per_call_us(peer, iters)
        times["torch dev"] = _torch_device_us(torch, sdpa, iters)
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke test)")
    ap.add_argument("--iters", type=int, default=50)
    a = ap.parse_args()
    for name, fn in (("embedding", embedding), ("paged decode", paged_decode)):
        times = fn(a.quick, a.iters)
        shown = ", ".join(f"{k} {t:.1f} us" for k, t in times.items())
        print(f"{name} on {ct.backend_name()}: {shown}")
        for key in (k for k in times if k.startswith("cutile")):
            peer = "torch dev" if key.endswith(" dev") else "torch"
            if peer in times:
                print(f"  {name}: torch/{key} {times[peer] / times[key]:.2f}x")


if __name__ == "__main__":
    main()
