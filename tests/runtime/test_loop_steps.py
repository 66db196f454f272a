"""Range loops at the edges (issue 26) on both backends: the `backend` fixture runs each test on
the interpreter and, under `pytest -m gpu`, on CUDA. A run-time step below 1 is CT411 with one
message and span on both (the GPU reports it when the launch completes, and the next launch runs
normally); a loop whose variable would step past 2**31 - 1 ends as Python's range does."""

from __future__ import annotations

from typing import Any

import loop_kernels as k
import numpy as np
import pytest

import cutile as ct

pytestmark = pytest.mark.usefixtures("backend")

I32_MIN, I32_MAX = -(2**31), 2**31 - 1
BELOW_ONE = [(0, 10, -1), (0, 10, 0), (10, 0, -1), (5, -3, -2), (I32_MIN, I32_MIN + 3, -2)]
# Python's range over i32 values whose last value plus the step passes 2**31 - 1
EDGES = [(0, I32_MAX, 2**30), (I32_MAX - 10, I32_MAX, 7), (I32_MIN, I32_MAX, I32_MAX),
         (I32_MAX - 1, I32_MAX, I32_MAX), (I32_MIN, I32_MIN + 1, 1), (I32_MAX - 1, I32_MAX, 1),
         (3, 3, 5), (0, 10, 3), (-7, 5, 4)]


def _summary(lo: int, hi: int, step: int, skip: int | None = None) -> list[int]:
    r = range(lo, hi, step)  # never a list: the whole i32 range has 2**32 - 1 values
    kept = [i for i in (r[:2] if len(r) else []) if i != skip]  # the first one or two, skip gone
    last = [i for i in (r[-2:] if len(r) else []) if i != skip]
    count = len(r) - (1 if skip is not None and skip in r else 0)
    n = (count + 2**31) % 2**32 - 2**31  # the i32 counter wraps
    return [n, kept[0] if kept else 0, last[-1] if last else 0, 7]


@pytest.mark.parametrize("kernel", [k.walk, k.walk_skipping], ids=["for", "loop"])
@pytest.mark.parametrize(("lo", "hi", "step"), BELOW_ONE)
def test_a_step_below_one_is_ct411(kernel: Any, lo: int, hi: int, step: int) -> None:
    args = (lo, hi, step) if kernel is k.walk else (lo, hi, step, lo)
    with pytest.raises(ct.LaunchError) as err:
        kernel(k.out(), *args).sync()
    got, want = err.value.diagnostics[0], k.interpreter_error(kernel, *args).diagnostics[0]
    assert (got.code, got.message, got.span) == (want.code, want.message, want.span)
    assert got.code == "CT411" and f"step is {step} in {kernel.__name__}" in got.message
    (z, *_) = kernel(k.out(), 0, 4, 1, *args[3:]).sync()  # the next launch runs normally
    assert z.unpartition().numpy().tolist() == _summary(0, 4, 1, *args[3:])


def test_the_failing_loop_of_two_is_named() -> None:
    with pytest.raises(ct.LaunchError) as err:
        k.two_loops(k.out(), 1, 0).sync()
    got, want = err.value.diagnostics[0], k.interpreter_error(k.two_loops, 1, 0).diagnostics[0]
    assert (got.message, got.span) == (want.message, want.span)
    (z, *_) = k.two_loops(k.out(), 2, 3).sync()
    assert z.unpartition().numpy().tolist()[0] == 2 + 20


@pytest.mark.parametrize("failing", [0, 1, 2])
def test_any_link_of_a_chain_reports_its_step(failing: int) -> None:
    """Each launch of a `.then` chain completes by ordering; a bad step in any of them (not
    only the first or the last) is raised by the chain's wait."""
    steps = [1, 1, 1]
    steps[failing] = -3

    def link(step: int) -> Any:
        return lambda z, lo, hi, s: k.walk(z, 0, 4, step)

    chain = k.walk(k.out(), 0, 4, steps[0]).then(link(steps[1])).then(link(steps[2]))
    with pytest.raises(ct.LaunchError) as err:
        chain.sync()
    assert "range() step is -3 in walk" in str(err.value)
    (z, *_) = k.walk(k.out(), 0, 4, 1).sync()  # the next launch runs normally
    assert z.unpartition().numpy().tolist() == _summary(0, 4, 1)


@pytest.mark.parametrize(("lo", "hi", "step"), EDGES)
def test_edges_follow_pythons_range(lo: int, hi: int, step: int) -> None:
    (z, *_) = k.walk(k.out(), lo, hi, step).sync()
    assert z.unpartition().numpy().tolist() == _summary(lo, hi, step)
    skip = lo + step if lo + step <= I32_MAX else lo  # the second value, when there is one
    (z, *_) = k.walk_skipping(k.out(), lo, hi, step, skip).sync()
    assert z.unpartition().numpy().tolist() == _summary(lo, hi, step, skip)


@pytest.mark.parametrize(("lo", "hi"), [(I32_MAX - 10, I32_MAX), (I32_MAX - 2, I32_MAX),
                                        (I32_MIN, I32_MIN + 7), (0, 0)])
def test_a_constant_step_stops_before_wrapping(lo: int, hi: int) -> None:
    (z, *_) = k.walk_by_3(k.out(), lo, hi).sync()
    assert z.unpartition().numpy().tolist() == _summary(lo, hi, 3)


@pytest.mark.parametrize("hi", [-3, 0, 1, 2, 3, 7])
@pytest.mark.parametrize("A", [2, 4])
def test_block_strided_ranges_that_are_empty_for_some_blocks(hi: int, A: int) -> None:
    """range(r % A, hi, A) in 8 blocks: empty where r % A >= hi (the shape of a split decode
    attention at its first positions)."""
    x = np.arange(8 * 16, dtype=np.float32).reshape(8, 16)
    (z, *_) = k.block_strided(ct.zeros((8, 16), ct.f32).partition((1, 16)), ct.from_numpy(x),
                              hi, A=A).sync()
    want = np.stack([x[list(range(r % A, hi, A))].sum(0) for r in range(8)])
    np.testing.assert_array_equal(z.unpartition().numpy(), want)


@pytest.mark.gpu
@pytest.mark.slow
def test_the_whole_i32_range_finishes_on_the_gpu(backend: str) -> None:
    """2**32 - 1 iterations: the interpreter's step limit (CT412) stops it, the GPU runs it
    (seconds to a minute: one block, a few scalar instructions per iteration)."""
    if backend == "interpreter":
        with pytest.raises(ct.LaunchError, match="CT412"):
            k.walk(k.out(), I32_MIN, I32_MAX, 1).sync()
        return
    (z, *_) = k.walk(k.out(), I32_MIN, I32_MAX, 1).sync()
    assert z.unpartition().numpy().tolist() == _summary(I32_MIN, I32_MAX, 1)
