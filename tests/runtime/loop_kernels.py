"""Range loops at the edges (issue 26): run-time steps below 1, and loop variables whose next
step would pass 2**31 - 1. Shared by the interpreter tests, the fake-driver tests of the status
word and their GPU twins (tests/runtime/test_loop_steps.py)."""

from typing import Any

import pytest

import cutile as ct
from cutile import Const, Mut, Tensor, f32, i32
from cutile.runtime import context
from cutile.runtime.backends.interpreter import InterpreterBackend


def out() -> Any:
    """The (4,) i32 summary a test kernel writes, as one slab."""
    return ct.zeros((4,), i32).partition((4,))


def interpreter_error(kernel: Any, *args: Any) -> ct.CutileError:
    """The error the interpreter raises for `kernel(out(), *args)`: what the GPU must match."""
    old = context.set_backend(InterpreterBackend())
    try:
        with pytest.raises(ct.LaunchError) as err:
            kernel(out(), *args).sync()
        return err.value
    finally:
        context.set_backend(old)


@ct.kernel
def walk(z: Mut[Tensor[i32, (4,)]], lo: i32, hi: i32, step: i32) -> None:
    """[iterations, first value, last value, 7] of range(lo, hi, step) (a plain `for`)."""
    n = ct.zeros((), i32)
    first = ct.zeros((), i32)
    last = ct.zeros((), i32)
    for i in range(lo, hi, step):
        first = ct.where(n == 0, i, first)
        last = i
        n = n + 1
    _summary(z, n, first, last)


@ct.kernel
def walk_skipping(z: Mut[Tensor[i32, (4,)]], lo: i32, hi: i32, step: i32, skip: i32) -> None:
    """`walk` with a `continue` (the loop form: the step is checked before each step); the
    value `skip` is not counted."""
    n = ct.zeros((), i32)
    first = ct.zeros((), i32)
    last = ct.zeros((), i32)
    for i in range(lo, hi, step):
        if i == skip:
            continue
        first = ct.where(n == 0, i, first)
        last = i
        n = n + 1
    _summary(z, n, first, last)


@ct.kernel
def walk_by_3(z: Mut[Tensor[i32, (4,)]], lo: i32, hi: i32) -> None:
    """A constant step above 1 with run-time bounds: no status word, the step is checked."""
    n = ct.zeros((), i32)
    first = ct.zeros((), i32)
    last = ct.zeros((), i32)
    for i in range(lo, hi, 3):
        first = ct.where(n == 0, i, first)
        last = i
        n = n + 1
    _summary(z, n, first, last)


@ct.kernel
def two_loops(z: Mut[Tensor[i32, (4,)]], a: i32, b: i32) -> None:
    """Two run-time steps: a failure names the loop it happened in."""
    n = ct.zeros((), i32)
    for _ in range(0, 4, a):
        n = n + 1
    for _ in range(0, 4, b):
        n = n + 10
    _summary(z, n, n, n)


@ct.function
def _summary(z, n, first, last):  # type: ignore[no-untyped-def]
    slot = ct.arange(4, i32)
    z.store(ct.where(slot == 0, n, ct.where(slot == 1, first, ct.where(slot == 2, last, 7))))


@ct.kernel
def block_strided(z: Mut[Tensor[f32, (1, 16)]], x: Tensor[f32, (-1, 16)], hi: i32,
                  A: Const[int]) -> None:
    """Row r of z: the sum of x's rows r % A, r % A + A, ... below hi (an unsigned `for`: the
    start is never negative; for many blocks the range is empty, start == hi or start > hi)."""
    r, _ = z.tile_index()
    acc = ct.zeros((1, 16), f32)
    for j in range(r % A, hi, A):
        acc = acc + x.load_tile((1, 16), (j, 0))
    z.store(acc)
