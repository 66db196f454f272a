"""Filling a strided region in place (Backend.fill_strided): every element of the layout gets
the pattern, no other byte changes. `fill_runs` (the CUDA backend's 2-D memsets) is checked by
simulating the memsets on the host; both backends against NumPy's strided assignment."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from cutile.runtime import context
from cutile.runtime.backends.base import fill_runs

Layout = tuple[int, tuple[int, ...], tuple[int, ...]]  # (byte offset, shape, strides)


def _layouts(width: int, seed: int, n: int = 60) -> list[tuple[int, Layout]]:
    """(buffer bytes, layout) pairs: NumPy views of a base array (slices with steps, negative
    steps, permutations, broadcasts, an integer index), their offsets and element strides."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        shape = tuple(rng.randint(1, 6) for _ in range(rng.randint(1, 3)))
        base = np.zeros(shape, dtype=f"V{width}")
        view = base
        for axis, extent in enumerate(shape):
            start, step = rng.randint(0, extent - 1), rng.choice([1, 1, 2, -1])
            key = [slice(None)] * view.ndim
            key[axis] = slice(start, None, step) if step > 0 else slice(start, None, -1)
            view = view[tuple(key)]
        if view.ndim > 1 and rng.random() < 0.4:
            view = view.transpose(rng.sample(range(view.ndim), view.ndim))
        if rng.random() < 0.15:
            view = np.broadcast_to(view, (3, *view.shape))
        if view.ndim > 1 and rng.random() < 0.15:
            view = view[rng.randint(0, view.shape[0] - 1)]
        offset = view.__array_interface__["data"][0] - base.__array_interface__["data"][0]
        strides = tuple(s // width for s in view.strides)
        out.append((base.nbytes, (offset, view.shape, strides)))
    return out


def _expected(nbytes: int, layout: Layout, pattern: bytes) -> NDArray[np.uint8]:
    offset, shape, strides = layout
    mem = np.zeros(nbytes, dtype=np.uint8)
    width = len(pattern)
    view = np.ndarray((*shape, width), np.uint8, mem, offset,
                      (*(s * width for s in strides), 1))
    view[...] = np.frombuffer(pattern, np.uint8)
    return mem


def _memsets(nbytes: int, layout: Layout, pattern: bytes) -> NDArray[np.uint8]:
    """What the CUDA backend's 2-D memsets write, done on the host."""
    offset, shape, strides = layout
    mem = np.zeros(nbytes, dtype=np.uint8)
    width = len(pattern)
    unit = width if width in (1, 2, 4) else 4
    for k in range(0, width, unit):
        for start, pitch, count, rows in fill_runs(shape, strides, width, unit):
            assert rows == 1 or pitch >= count * unit
            for row in range(rows):
                at = offset + k + start + row * pitch
                for word in range(count):
                    mem[at + word * unit:at + (word + 1) * unit] = np.frombuffer(
                        pattern[k:k + unit], np.uint8)
    return mem


PATTERNS = [b"\x7f", b"\x01\x80", b"\x01\x02\x03\x04", b"\x01\x02\x03\x04\x05\x06\x07\x08"]


@pytest.mark.parametrize("pattern", PATTERNS, ids=lambda p: f"{len(p)}B")
def test_fill_runs_write_exactly_the_layout(pattern: bytes) -> None:
    for nbytes, layout in _layouts(len(pattern), seed=len(pattern)):
        assert np.array_equal(_memsets(nbytes, layout, pattern),
                              _expected(nbytes, layout, pattern)), layout


def test_a_contiguous_region_is_one_run() -> None:
    assert list(fill_runs((4, 8), (8, 1), 4, 4)) == [(0, 4, 32, 1)]
    # rows of a wider matrix: one 2-D run, pitch the row stride
    assert list(fill_runs((4, 8), (16, 1), 4, 4)) == [(0, 64, 8, 4)]
    # a column: words 64 bytes apart
    assert list(fill_runs((4,), (16,), 4, 4)) == [(0, 64, 1, 4)]
    assert list(fill_runs((0, 8), (8, 1), 4, 4)) == []


@pytest.mark.parametrize("pattern", PATTERNS, ids=lambda p: f"{len(p)}B")
def test_backend_fills_only_the_layout(backend: str, pattern: bytes) -> None:
    be: Any = context.backend()
    stream = context.current_stream()
    for nbytes, layout in _layouts(len(pattern), seed=100 + len(pattern), n=25):
        buf = be.allocate(nbytes, stream)
        be.write(buf, 0, np.zeros(nbytes, dtype=np.uint8), stream)
        offset, shape, strides = layout
        be.fill_strided(buf, offset, pattern, shape, strides, stream)
        got = be.read(buf, 0, nbytes, stream)
        assert np.array_equal(got, _expected(nbytes, layout, pattern)), layout
