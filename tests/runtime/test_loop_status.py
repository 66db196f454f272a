"""The status word of kernels with run-time range() steps (runtime/backends/status.py), through
the fake CUDA driver: a stand-in for the device writes the word as the lowered guard would
(compiler/lower/loops.py), and every way of waiting for a launch raises the interpreter's
CT411 from it. The real device runs the same cases in test_loop_steps.py (`-m gpu`)."""

from __future__ import annotations

import asyncio
import ctypes
from collections.abc import Iterator
from typing import Any, cast

import loop_kernels as k
import pytest

import cutile as ct

pytest.importorskip("cuda.bindings")
from fake_cuda import FakeDriver, Launch, fake_cuda_backend

# per kernel: the parameter holding the step of each range_check, in program order
STEPS = {"walk": [3], "walk_skipping": [3], "two_loops": [1, 2]}


class Device(FakeDriver):
    """Writes the status word as the kernel's guard does: for the first check whose step is
    below 1, `(step << 32) | (check number + 1)`. Graph capture records launches, and each
    replay runs them again."""

    capturing: list[Launch] | None = None
    graphs: dict[int, list[Launch]]

    def launch(self, function: int, grid: tuple[int, int, int], stream: int,
               params: int) -> None:
        super().launch(function, grid, stream, params)
        if self.capturing is not None:
            self.capturing.append(self.launches.pop())
            return
        self.run(self.launches[-1])

    def run(self, got: Launch) -> None:
        slots = self.slots[got.function]
        name = next(n for f, (_, n) in enumerate(self.functions, 1001) if f == got.function)
        fields = [s.field for s in slots]
        if "status" not in fields:
            return
        word = got.params[fields.index("status")]
        values = {s.arg: v for s, v in zip(slots, got.params, strict=True)
                  if s.field == "value"}
        for number, arg in enumerate(STEPS[name]):
            step = values[arg]
            if step < 1:
                ctypes.c_int64.from_address(word).value = (step << 32) | (number + 1)
                return

    def begin_capture(self, stream: int) -> None:
        self.capturing = []

    def end_capture(self, stream: int) -> int:
        graph, self.capturing = self.capturing or [], None
        handle = self._handle()
        self.graphs[handle] = graph
        return handle

    def graph_launch(self, exe: int, stream: int) -> None:
        for launch in self.graphs[exe]:
            self.launches.append(launch)
            self.run(launch)

    def graph_launcher(self, exe: int) -> Any:
        return lambda stream: self.graph_launch(exe, stream)

    def graph_destroy(self, exe: int) -> None:
        return None  # replays stay readable after the graph's end


@pytest.fixture
def device() -> Iterator[Device]:
    drv = Device()
    drv.graphs = {}
    with fake_cuda_backend(drv, ("begin_capture", "end_capture", "graph_launcher",
                                 "graph_destroy")) as fake:
        yield cast(Device, fake)


def _same(a: ct.CutileError, b: ct.CutileError) -> None:
    da, db = a.diagnostics[0], b.diagnostics[0]
    assert (da.code, da.message, da.span) == (db.code, db.message, db.span)


@pytest.mark.parametrize(("lo", "hi", "step"), [(0, 10, -1), (0, 10, 0), (10, 0, -1),
                                                (5, -3, -2), (-2**31, -2**31 + 3, -2)])
def test_a_step_below_one_is_the_interpreters_ct411(device: Device, lo: int, hi: int,
                                                    step: int) -> None:
    with pytest.raises(ct.LaunchError) as err:
        k.walk(k.out(), lo, hi, step).sync()
    _same(err.value, k.interpreter_error(k.walk, lo, hi, step))
    assert f"range() step is {step} in walk" in str(err.value)
    z, *rest = err.value.results  # the arguments come back, usable
    assert rest == [lo, hi, step] and z.state.value == "live"


def test_the_word_is_zeroed_for_the_next_launch(device: Device) -> None:
    with pytest.raises(ct.LaunchError):
        k.walk(k.out(), 0, 4, 0).sync()
    for _ in range(3):
        k.walk(k.out(), 0, 4, 1).sync()  # the same word again: no stale failure
    words = {launch.params[-1] for launch in device.launches}
    assert len(words) == 1


def test_the_failing_loop_is_named(device: Device) -> None:
    with pytest.raises(ct.LaunchError) as err:
        k.two_loops(k.out(), 1, -4).sync()
    _same(err.value, k.interpreter_error(k.two_loops, 1, -4))
    assert err.value.diagnostics[0].span.line > 0


def test_only_run_time_steps_get_a_status_word(device: Device) -> None:
    k.walk_by_3(k.out(), 0, 10).sync()
    k.walk(k.out(), 0, 10, 2).sync()
    by_kernel = {name: device.slots[f] for f, (_, name) in enumerate(device.functions, 1001)}
    assert [s.field for s in by_kernel["walk_by_3"]].count("status") == 0
    assert [s.field for s in by_kernel["walk"]][-1] == "status"


def test_await_raises_it(device: Device) -> None:
    async def run() -> None:
        await k.walk(k.out(), 0, 4, -7)

    with pytest.raises(ct.LaunchError, match=r"range\(\) step is -7 in walk"):
        asyncio.run(run())


def test_a_chain_reports_a_failing_link(device: Device) -> None:
    ran: list[int] = []

    def then(z: Any, lo: int, hi: int, step: int) -> Any:
        ran.append(step)
        return k.walk(z, 0, 4, 1)

    chain = k.walk(k.out(), 0, 4, 0).then(then)
    with pytest.raises(ct.LaunchError, match=r"range\(\) step is 0 in walk"):
        chain.sync()
    assert ran == [0]  # the device reports at completion: the next link was enqueued


def test_a_middle_link_of_a_chain_reports_and_frees_its_word(device: Device) -> None:
    def link(step: int) -> Any:
        return lambda z, lo, hi, s: k.walk(z, 0, 4, step)

    chain = k.walk(k.out(), 0, 4, 1).then(link(-2)).then(link(1))
    with pytest.raises(ct.LaunchError, match=r"range\(\) step is -2 in walk"):
        chain.sync()
    used = {launch.params[-1] for launch in device.launches}
    assert len(used) == 3  # three launches in flight at once: three words
    for _ in range(3):  # read, zeroed and back in the pool: the next launches take them
        k.walk(k.out(), 0, 4, 1).sync()
    assert {launch.params[-1] for launch in device.launches[-3:]} <= used


def test_a_graph_reports_a_failing_replay(device: Device) -> None:
    g = k.walk(k.out(), 0, 4, 0).graph()
    g.replay()
    with pytest.raises(ct.LaunchError, match=r"range\(\) step is 0 in walk") as err:
        g.sync()
    assert err.value.results[1:] == (0, 4, 0)
    ok = k.walk(k.out(), 0, 4, 1).graph()
    (z, *_) = ok.sync()
    assert z.unpartition().numpy().tolist()[3] == 0  # the fake device computes nothing


def test_a_launch_that_is_never_waited_for_keeps_its_word(device: Device) -> None:
    op = k.walk(k.out(), 0, 4, 1).start()
    first = device.launches[-1].params[-1]
    k.walk(k.out(), 0, 4, 1).sync()
    assert device.launches[-1].params[-1] != first  # still owned by the pending launch
    op.sync()  # read: the word is free again, and the next launch takes it
    k.walk(k.out(), 0, 4, 1).sync()
    assert device.launches[-1].params[-1] == first
