"""What a graph captures and what it holds.

A capture records every operation issued to its stream, in order: launches, and the fills and
copies a link makes (`fill_`, `ct.zeros`, `ct.from_numpy`); each replay runs them all again
(the interpreter's graph replays them as the CUDA graph does). Until `g.sync()` the graph holds
every buffer a captured launch reads or writes, including what a `.then` link got back from an
earlier launch of the chain: using it meanwhile is CT303/CT307, as for a pending launch."""

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import rt_kernels as k

import cutile as ct
from cutile import Acc, Const, Tensor, f32
from cutile.runtime.backends.host import HostMemoryBackend
from cutile.runtime.backends.interpreter import InterpreterBackend


@ct.kernel
def total(s: Acc[Tensor[f32, (1,)], "add"], x: Tensor[f32, (-1,)], B: Const[int]) -> None:
    s.add_at((0,), ct.sum(x.load_tile((B,), (ct.block_id(0),))))


@pytest.fixture
def null_cuda(toolchain: object) -> Iterator[None]:
    pytest.importorskip("cuda.bindings")
    from benchmarks import launch_overhead

    with launch_overhead.null_cuda():
        yield


# -- F1: fills and copies are part of the capture ---------------------------------------------
def _reset_then_sum() -> tuple[Any, Any]:
    """The probe's program: a link zeroes an accumulator, then sums into it; 3 runs."""
    x, s = ct.ones((100,), f32), ct.zeros((1,), f32)

    def reset_then_sum(_s: Any, x_: Any) -> Any:
        s.fill_(0.0)  # zero the accumulator before every run
        return total(s, x_, B=32, grid=4)

    g = total(ct.zeros((1,), f32), x, B=32, grid=4).then(reset_then_sum).graph()
    g.replay()
    g.replay()
    return g.sync()


@pytest.mark.usefixtures("backend")  # and on CUDA under -m gpu
def test_fill_in_a_captured_link_runs_on_every_replay() -> None:
    s, _ = _reset_then_sum()
    assert s.numpy()[0] == 100.0  # was 300: the fill ran once, at capture


@pytest.mark.usefixtures("backend")  # and on CUDA under -m gpu
def test_fills_and_launches_replay_in_capture_order() -> None:
    """inc, then a fill of what it wrote: every run ends with the fill's value."""
    g = k.inc(ct.zeros((64,), f32).partition((32,))).then(
        lambda z: (z.unpartition().fill_(7.0),)).graph()
    g.replay()
    (t,) = g.sync()
    np.testing.assert_array_equal(t.numpy(), np.full(64, 7.0, np.float32))


@pytest.mark.usefixtures("backend")  # and on CUDA under -m gpu
def test_strided_fill_of_a_view_in_a_link_replays() -> None:
    base = ct.zeros((64,), f32)

    def second(z: Any) -> Any:
        t = z.unpartition()
        t[::2].fill_(-1.0)  # a strided fill: half the elements
        return k.inc(t.partition((32,)))

    g = k.inc(base.partition((32,))).then(second).graph()
    g.replay()
    (z,) = g.sync()
    # two runs of: inc, the even elements to -1, inc (even ones end at 0, odd ones gain 2)
    want = np.where(np.arange(64) % 2 == 0, 0.0, 4.0).astype(np.float32)
    np.testing.assert_array_equal(z.unpartition().numpy(), want)


@pytest.mark.usefixtures("backend")  # and on CUDA under -m gpu
def test_constructors_in_a_link_are_replayed() -> None:
    """ct.zeros and ct.from_numpy made inside a link are filled/written again by every replay
    (with the values they had at capture), so the sums do not pile up."""
    data = np.arange(64, dtype=np.float32)

    def second(_z: Any) -> Any:
        fresh = ct.from_numpy(data)
        acc = ct.zeros((1,), f32)
        return k.inc(fresh.partition((32,))).then(lambda f: total(acc, f.unpartition(), B=32,
                                                                  grid=2))

    g = k.inc(ct.zeros((64,), f32).partition((32,))).then(second).graph()
    data[:] = 1000.0  # the graph keeps the values of the capture
    g.replay()
    g.replay()
    acc, f = g.sync()
    assert acc.numpy()[0] == float(np.arange(64).sum() + 64)
    np.testing.assert_array_equal(f.numpy(), np.arange(64, dtype=np.float32) + 1)


def test_host_capture_records_every_stream_operation() -> None:
    """The backend itself: nothing runs until the replay, which runs all in order."""
    be = InterpreterBackend()
    assert isinstance(be, HostMemoryBackend)
    a, b = be.allocate(16, 0), be.allocate(16, 0)
    be.fill(a, b"\x01", 16, 0)
    be.begin_capture(0)
    src = np.full(16, 2, np.uint8)
    be.write(a, 0, src, 0)
    src[:] = 9  # the write keeps the values at capture
    be.fill_strided(a, 0, b"\x03", (8,), (2,), 0)
    be.copy(b, 0, a, 0, 16, 0)
    be.fill(a, b"\x04", 4, 0)
    graph = be.end_capture(0)
    assert bytes(be.read(a, 0, 16, 0)) == b"\x01" * 16  # recorded, not run
    graph.replay(0)
    assert bytes(be.read(b, 0, 16, 0)) == b"\x03\x02" * 8
    assert bytes(be.read(a, 0, 16, 0)) == b"\x04" * 4 + b"\x03\x02" * 6
    graph.close()


def test_cuda_issues_the_fills_and_copies_inside_the_capture(null_cuda: None) -> None:
    """The same ops go on the capture stream between begin and end on CUDA (the driver makes
    them graph nodes); a copy's host source is a copy of the values, kept by the graph."""
    from cutile.runtime.cuda import driver

    calls: list[tuple[str, int]] = []
    names = ("memset", "memset2d", "memcpy_htod", "begin_capture", "end_capture")
    saved = {name: getattr(driver, name) for name in names}
    data = np.arange(64, dtype=np.float32)

    def traced(name: str) -> Any:
        def call(*args: Any) -> Any:
            calls.append((name, args[-1]))  # the stream
            if name == "memcpy_htod":
                assert args[1] != data.ctypes.data  # a private copy, not the caller's array
            return saved[name](*args)
        return call

    def second(z: Any) -> Any:
        t = z.unpartition()
        t[::2].fill_(0.0)
        fresh = ct.from_numpy(data)
        acc = ct.zeros((1,), f32)
        return total(acc, fresh, B=32, grid=2)

    for name in names:
        setattr(driver, name, traced(name))
    try:
        z = ct.zeros((64,), f32).partition((32,))
        del calls[:]  # its fill came before the capture
        g = k.inc(z).then(second).graph()
    finally:
        for name, fn in saved.items():
            setattr(driver, name, fn)
    assert [c[0] for c in calls] == ["begin_capture", "memset2d", "memcpy_htod", "memset",
                                     "end_capture"]
    assert len({c[1] for c in calls}) == 1  # all on the capture stream
    assert len(g._graph._kept) == 1  # type: ignore[union-attr]
    g.sync()


# -- what the links got back: usable between replays, in stream order ----------------------------
def _chain_graph() -> tuple[Any, dict[str, Any]]:
    held: dict[str, Any] = {}

    def second(zp: Any) -> Any:
        held["a"] = zp.unpartition()  # back on the host inside the chain
        return k.inc(held["b"].partition((128,)))

    held["b"] = ct.zeros((1000,), f32)
    g = k.inc(ct.zeros((1000,), f32).partition((128,))).then(second).graph()
    return g, held


@pytest.mark.usefixtures("backend")
def test_what_a_link_got_back_is_read_after_the_replays_enqueued_so_far() -> None:
    """A decode loop reads the tokens a graph wrote between replays: the read is ordered after
    every replay enqueued before it (the Qwen3 engine's history)."""
    g, held = _chain_graph()
    a = held["a"]
    assert a.numpy()[0] == 1.0  # the capture ran the chain once
    g.replay()
    g.replay()
    assert a.numpy()[0] == 3.0
    (b,) = g.sync()
    assert b.unpartition().numpy()[0] == 3.0


def test_a_failed_capture_leaves_everything_usable() -> None:
    held: dict[str, Any] = {}
    x = ct.ones((64,), f32)

    def second(z: Any, x_: Any, s: Any) -> Any:
        held["a"] = z.unpartition()
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        k.scale(ct.zeros((64,), f32).partition((32,)), x, 2.0).then(second).graph()
    held["a"].numpy()
    x.fill_(1.0)
    (a,) = k.inc(held["a"].partition((32,))).sync()
    assert a.unpartition().numpy()[0] == 1.0  # the capture ran nothing
