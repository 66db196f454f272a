"""Kernels and helpers the fuzzed host programs use (kernels must live in a file: the frontend
reads their source)."""

import asyncio
import contextlib
from typing import Any

import numpy as np

import cutile as ct
from cutile import Const, Mut, Tensor, f32, i32


@ct.kernel
def add(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], y: Tensor[f32, (-1,)],
        B: Const[int]) -> None:
    z.store(ct.load_tile_like(x, z) + ct.load_tile_like(y, z))


@ct.kernel
def scale(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], s: f32, B: Const[int]) -> None:
    z.store(ct.load_tile_like(x, z) * s)


@ct.kernel
def inc(z: Mut[Tensor[f32, ("B",)]], B: Const[int]) -> None:
    z.store(z.load() + 1.0)


@ct.kernel
def loop(z: Mut[Tensor[f32, ("B",)]], n: i32, step: i32, B: Const[int]) -> None:
    t = z.load()
    for _ in range(0, n, step):
        t = t + 1.0
    z.store(t)


@ct.kernel
def pair(a: Mut[Tensor[f32, ("B",)]], b: Mut[Tensor[f32, ("B",)]], B: Const[int]) -> None:
    a.store(ct.full((B,), 1.0, f32))
    b.store(ct.full((B,), 2.0, f32))


@ct.kernel
def grid2(z: Mut[Tensor[f32, ("BM", "BN")]], x: Tensor[f32, (-1, -1)], BM: Const[int],
          BN: Const[int]) -> None:
    z.store(ct.load_tile_like(x, z) * 2.0)


async def _await(op: Any) -> Any:
    return await op


def run_await(op: Any) -> Any:
    """`await op` from synchronous code."""
    return asyncio.run(_await(op))


def cancel_await(op: Any) -> Any:
    """Await `op` in a task, cancel the task at its first suspension, then await `op` again."""
    async def main() -> Any:
        task = asyncio.ensure_future(_await(op))
        await asyncio.sleep(0)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        return await op

    return asyncio.run(main())


# -- NumPy models of the kernels above, for the fuzzer's comparison (host_target.py) -----------
# Each takes the launch's arguments (tensors and partitions as the arrays they held when the
# launch was made, other arguments as given) and returns the expected contents of its Mut
# arguments by position; None where the model cannot say (a loop too long to follow).
def _fit(x: Any, n: int) -> Any:
    """`ct.load_tile_like(x, z)` over all of z: x's elements where it has them, zeros past."""
    out = np.zeros(n, np.float32)
    k = min(n, len(x))
    out[:k] = np.asarray(x, np.float32)[:k]
    return out


def _add(z: Any, x: Any, y: Any, *rest: Any) -> Any:
    return {0: _fit(x, len(z)) + _fit(y, len(z))}


def _scale(z: Any, x: Any, s: Any) -> Any:
    return {0: _fit(x, len(z)) * np.asarray(s).astype(np.float32)}


def _inc(z: Any) -> Any:
    return {0: np.asarray(z, np.float32) + np.float32(1)}


def _loop(z: Any, n: Any, step: Any) -> Any:
    count = len(range(0, int(n), int(step)))
    if count > 4096:
        return None
    t = np.asarray(z, np.float32).copy()
    for _ in range(count):  # one f32 addition per iteration, as the kernel rounds
        t = t + np.float32(1)
    return {0: t}


def _pair(a: Any, b: Any) -> Any:
    return {0: np.ones(len(a), np.float32), 1: np.full(len(b), 2, np.float32)}


MODELS: dict[str, Any] = {"add": _add, "scale": _scale, "inc": _inc, "loop": _loop,
                          "pair": _pair}
