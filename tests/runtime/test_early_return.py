"""A kernel's `return` from a branch, a loop or nested ifs (issue 26): the tile block stops
there, and a Mut slab it did not store keeps its old contents. Each test runs on the
interpreter and, under `pytest -m gpu`, on CUDA (the `backend` fixture), against NumPy."""

from __future__ import annotations

import numpy as np
import pytest
import return_kernels as k

import cutile as ct
from cutile import f32, i32

pytestmark = pytest.mark.usefixtures("backend")


def _ce_reference(x: np.ndarray, labels: np.ndarray) -> np.ndarray:
    x64 = x.astype(np.float64)
    lse = np.log(np.exp(x64 - x64.max(1, keepdims=True)).sum(1)) + x64.max(1)
    picked = x64[np.arange(len(x)), np.where(labels == k.IGNORE, 0, labels)]
    return np.where(labels == k.IGNORE, 0.0, lse - picked)


def test_cross_entropy_skips_ignored_rows() -> None:
    rng = np.random.default_rng(1)
    rows, vocab = 37, 64
    labels = rng.integers(0, vocab, rows).astype(np.int32)
    labels[rng.random(rows) < 0.3] = k.IGNORE
    logits = ct.randn((rows, vocab), f32, seed=2)
    loss = ct.full((rows,), -1.0, f32).partition((1,))
    loss, logits, _ = k.cross_entropy(loss, logits, ct.from_numpy(labels)).sync()
    np.testing.assert_allclose(loss.unpartition().numpy(),
                               _ce_reference(logits.numpy(), labels), rtol=1e-5, atol=1e-5)


def test_jsd_leaves_ignored_rows_unwritten() -> None:
    rng = np.random.default_rng(3)
    rows, vocab = 20, 32
    p = rng.random((rows, vocab)).astype(np.float32)
    q = rng.random((rows, vocab)).astype(np.float32)
    p /= p.sum(1, keepdims=True)
    q /= q.sum(1, keepdims=True)
    labels = np.where(np.arange(rows) % 3 == 1, k.IGNORE, 0).astype(np.int32)
    out = ct.full((rows,), 42.0, f32).partition((1,))
    out, *_ = k.jsd(out, ct.from_numpy(p), ct.from_numpy(q), ct.from_numpy(labels)).sync()
    m = (p + q) / 2
    ref = 0.5 * ((p * np.log(p / m)).sum(1) + (q * np.log(q / m)).sum(1))
    want = np.where(labels == k.IGNORE, 42.0, ref)
    np.testing.assert_allclose(out.unpartition().numpy(), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("n", [0, 1, 700, 1024])
def test_blocks_past_the_work_stop(n: int) -> None:
    x = ct.from_numpy(np.arange(1, 1025, dtype=np.float32))
    z = ct.full((1024,), -1.0, f32).partition((64,))
    z, *_ = k.scale_first(z, x, n).sync()
    blocks_in = -(-n // 64) * 64  # whole blocks run: the last one past n stores its tile too
    want = np.where(np.arange(1024) < blocks_in, 2.0 * np.arange(1, 1025), -1.0)
    np.testing.assert_array_equal(z.unpartition().numpy(), want)


@pytest.mark.parametrize(("limit", "want"), [(1.0, 6), (6.0, 8), (100.0, -1)])
def test_search_returns_from_inside_the_loop(limit: float, want: int) -> None:
    xs = np.zeros((10, 16), np.float32)
    xs[6, 3], xs[8, 0] = 5.0, 9.0
    found = ct.full((1,), 7, i32).partition((1,))
    found, *_ = k.first_above(found, ct.from_numpy(xs), limit).sync()
    assert found.unpartition().numpy().tolist() == [want]


@pytest.mark.parametrize(("budget", "want"), [(14.0, 12.0), (3.0, 0.0), (100.0, -40.0)])
def test_loop_carried_values_reach_the_return(budget: float, want: float) -> None:
    z = ct.full((1,), 7.0, f32).partition((1,))
    z, *_ = k.running_sum(z, ct.from_numpy(np.ones((10, 4), np.float32)), budget).sync()
    assert z.unpartition().numpy().tolist() == [want]


def _collatz(n: int) -> int:
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def test_return_leaves_a_while_inside_a_for() -> None:
    starts = np.array([1, 6, 27, 97, 7, 1000], np.int32)
    cap = 100
    z = ct.full((len(starts),), -5, i32).partition((1,))
    z, *_ = k.collatz_steps(z, ct.from_numpy(starts), cap).sync()
    want = [s if s < cap else -5 for s in map(_collatz, starts.tolist())]
    assert z.unpartition().numpy().tolist() == want


def test_nested_guards_and_return_in_else() -> None:
    means = [2.0, 0.5, -0.5, -3.0, 1.0, -1.0]
    xs = np.concatenate([np.full(64, m) for m in means]).astype(np.float32)
    z = ct.full((len(xs),), 99.0, f32).partition((64,))
    z, _ = k.classify(z, ct.from_numpy(xs)).sync()
    got = z.unpartition().numpy().reshape(len(means), 64)
    want = [2.0, 10.5, -2.0, 99.0, 11.0, -2.0]
    np.testing.assert_array_equal(got, np.repeat(np.array(want, np.float32)[:, None], 64, 1))


def test_return_in_both_branches() -> None:
    xs = np.concatenate([np.full(64, 2.0), np.full(64, -0.5)]).astype(np.float32)
    z = ct.full((128,), 99.0, f32).partition((64,))
    z, _ = k.both_branches(z, ct.from_numpy(xs)).sync()
    np.testing.assert_array_equal(z.unpartition().numpy(), np.abs(xs))


def test_atomics_before_and_after_a_return() -> None:
    signs = np.array([1, -1, 3, -2, 5, 0, -7], np.int32)
    acc = ct.zeros((2,), f32)
    acc, _ = k.tally_until(acc, ct.from_numpy(signs), B=1, grid=(len(signs), 1, 1)).sync()
    assert acc.numpy().tolist() == [len(signs), int((signs >= 0).sum())]
