"""Failed launches and chains, and cancelled awaits, leave every argument in an exact state
(issue 15): a failed op hands its arguments back on the error (`err.results`) and raises the
same error from every later wait; a cancelled await leaves them owned by the launch (a later
sync hands them back) or, if the start failed, handed back: never both."""

import asyncio
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest
import rt_kernels as k
from rt_util import line_of

import cutile as ct
from cutile import Const, Mut, Tensor, f32, i32
from cutile.compiler.specialization import Specialization
from cutile.runtime import context
from cutile.runtime.backends.base import Event, Executable
from cutile.runtime.backends.host import HostExecutable
from cutile.runtime.backends.interpreter import InterpreterBackend
from cutile.runtime.kernel import Kernel


@ct.kernel
def stepped(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], step: i32,
            B: Const[int]) -> None:
    acc = ct.load_tile_like(x, z)
    for _ in range(0, 4, step):
        acc = acc + 1.0
    z.store(acc)


def states(*values: Any) -> list[str]:
    return [v.state.value for v in values]


def fresh() -> tuple[Any, Any]:
    return ct.zeros((8,), f32).partition((4,)), ct.ones((8,), f32)


def test_a_failed_launch_hands_its_arguments_back_and_fails_again() -> None:
    z, x = fresh()
    op = stepped(z, x, 0)
    with pytest.raises(ct.LaunchError, match="CT411") as err:
        op.sync()
    z2, x2, step = err.value.results
    assert x2 is x and step == 0
    assert states(z2, x) == ["live", "live"]  # no lease, no exclusive hold is left behind
    assert z.state.value == "moved"  # the caller's handle went into the launch
    with pytest.raises(ct.OwnershipError, match="'z' was moved into a launch of 'stepped' and"):
        z.unpartition()
    with pytest.raises(ct.LaunchError) as again:  # not the arguments of a launch that never ran
        op.sync()
    assert again.value is err.value
    x.partition((4,))  # the lease ended: writing x is allowed
    z3, _, _ = stepped(z2, ct.ones((8,), f32), 1).sync()  # the handed-back partition works
    assert z3.numpy().tolist() == [5.0] * 8


def test_each_wait_on_a_failed_op_raises_with_a_traceback_of_its_own() -> None:
    z, x = fresh()
    chain = stepped(z, x, 1).then(lambda z, x, s: k.inc(z, x))  # inc takes one argument

    def depth(wait: Callable[[], Any]) -> tuple[int, list[int]]:
        with pytest.raises(ct.CutileError) as err:
            wait()
        tb = traceback.extract_tb(err.value.__traceback__)
        return len(tb), [f.lineno for f in tb if f.filename == __file__]
    first = depth(chain.sync)
    again = [depth(chain.sync) for _ in range(3)]
    assert again[0] == again[1] == again[2]  # nothing accumulates from earlier waits
    assert again[0][0] <= first[0] + 1 and len(again[0][1]) == len(first[1])


def test_a_failed_callback_keeps_its_own_frames_in_every_wait() -> None:
    z, x = fresh()

    def broken(z: Any, x: Any, s: Any) -> Any:
        raise ValueError("user bug")  # marker: user bug
    chain = stepped(z, x, 1).then(broken)
    for _ in range(3):
        with pytest.raises(ValueError) as err:
            chain.sync()
        lines = [f.lineno for f in traceback.extract_tb(err.value.__traceback__)
                 if f.filename == __file__]
        assert lines.count(line_of("marker: user bug")) == 1
        assert len(lines) == 2  # this wait, and the callback's raise


def test_a_launch_that_fails_to_compile_is_finished_without_a_never_run_warning() -> None:
    z = ct.zeros((16,), f32).partition((2**40,))  # a tile past Tile IR's limit (CT218)
    op = k.inc(z)
    with pytest.raises(ct.KernelError, match="CT218") as err:
        op.sync()
    assert states(*err.value.results) == ["live"]
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # CT305 would be an error here
        del op


def test_a_chain_reports_its_first_failure() -> None:
    z, x = fresh()
    calls: list[str] = []

    def second(z: Any, x: Any, s: Any) -> Any:
        calls.append("second")
        return stepped(z, x, 0)

    def third(*args: Any) -> Any:
        calls.append("third")
        return args
    first = stepped(z, x, 1)
    middle = first.then(second)
    chain = middle.then(third)
    with pytest.raises(ct.LaunchError, match="CT411") as err:
        chain.sync()
    # a bad step is found when the launch completes (as a GPU's status word): the chain was
    # built on, and its wait reports the failure
    assert calls == ["second", "third"]
    z2, x2, _ = err.value.results  # the failed launch's own arguments, handed back
    assert states(z2, x2) == ["live", "live"] and x2 is x
    assert z2.numpy().tolist() == [1.0] * 8  # the failed launch ran its bad loop 0 times
    for op in (chain, middle):  # every failed link raises the same error again
        with pytest.raises(ct.LaunchError) as again:
            op.sync()
        assert again.value is err.value
    assert first.sync()[1] is x  # the link before the failure completed normally


def test_a_chain_whose_fn_raises_keeps_that_error() -> None:
    z, x = fresh()

    def broken(z: Any, x: Any, s: Any) -> Any:
        raise ValueError("user bug")
    chain = stepped(z, x, 1).then(broken)
    with pytest.raises(ValueError, match="user bug"):
        chain.sync()
    with pytest.raises(ValueError, match="user bug"):
        chain.sync()  # not an empty tuple, as if it had succeeded
    assert states(x) == ["live"]


def test_a_chain_whose_fn_fails_with_a_cutile_error_hands_back_what_it_was_given() -> None:
    z, x = fresh()

    def misuse(z: Any, x: Any, s: Any) -> Any:
        return k.fixed(z, x)  # wrong shapes: CT401/CT406 before anything launches
    chain = stepped(z, x, 1).then(misuse)
    with pytest.raises(ct.CutileError) as err:
        chain.sync()
    z2, x2, _ = err.value.results
    assert x2 is x and states(z2, x2) == ["live", "live"]


# -- await and cancellation ------------------------------------------------------------------

class GateEvent(Event):
    """Not done until the test opens the gate (a GPU kernel still running)."""

    def __init__(self, gate: threading.Event) -> None:
        self.gate = gate

    def done(self) -> bool:
        return self.gate.is_set()

    def wait(self) -> None:
        self.gate.wait()


class GatedBackend(InterpreterBackend):
    """Launches run nothing; compiling takes `compile_s`; completion waits for `gate`."""

    def __init__(self, compile_s: float) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.compiling = threading.Event()  # set when a compile has begun
        self.compile_s = compile_s
        self.enqueued = 0

    def record(self, stream: int) -> Event:
        return GateEvent(self.gate)

    def prepare(self, kernel: Kernel, spec: Specialization) -> Executable:
        self.compiling.set()
        time.sleep(self.compile_s)

        def body(args: Sequence[Any], grid: tuple[int, int, int]) -> None:
            self.enqueued += 1
        return HostExecutable(self, body)


async def _until(ready: Callable[[], bool]) -> None:
    """Polls the event loop until `ready()`: no test depends on how fast a thread starts."""
    while not ready():
        await asyncio.sleep(0.001)


@pytest.fixture
def gated() -> Iterator[GatedBackend]:
    backend = GatedBackend(compile_s=0.3)
    old = context.set_backend(backend)
    try:
        yield backend
    finally:
        backend.gate.set()
        context.set_backend(old)


def test_cancelled_while_compiling_the_launch_keeps_its_arguments(gated: GatedBackend) -> None:
    z, x = fresh()
    op = stepped(z, x, 1)

    async def main() -> None:
        started = time.perf_counter()
        task = asyncio.create_task(_await(op))
        await _until(gated.compiling.is_set)  # the worker thread is compiling
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        # the cancellation waited for the enqueue to end: no start is left half-done
        assert time.perf_counter() - started >= 0.3 and gated.enqueued == 1

    asyncio.run(main())
    assert op._results[0].state.value == "exclusively-leased"  # still the launch's
    assert states(z, x) == ["moved", "shared-leased"]  # not handed back
    gated.gate.set()
    z2, x2, _ = op.sync()  # later: handed back, once
    assert states(z2, x2) == ["live", "live"] and gated.enqueued == 1


def test_cancelled_while_the_work_runs_then_awaited_again(gated: GatedBackend) -> None:
    gated.compile_s = 0.0
    z, x = fresh()
    chain = stepped(z, x, 1).then(lambda z, x, s: stepped(z, x, 2))

    async def main() -> tuple[Any, ...]:
        task = asyncio.create_task(_await(chain))
        await _until(lambda: gated.enqueued == 2)
        task.cancel()  # while it polls for the gated completion
        with pytest.raises(asyncio.CancelledError):
            await task
        assert gated.enqueued == 2 and x.state.value == "shared-leased"
        gated.gate.set()
        return await chain

    z2, x2, _ = asyncio.run(main())
    assert states(z2, x2) == ["live", "live"] and x2 is x and gated.enqueued == 2


def test_a_sync_during_an_awaits_start_does_not_enqueue_twice(gated: GatedBackend) -> None:
    z, x = fresh()
    op = stepped(z, x, 1)

    async def main() -> tuple[Any, ...]:
        task = asyncio.create_task(_await(op))
        await _until(gated.compiling.is_set)  # the worker is compiling
        gated.gate.set()
        results = op.sync()  # waits for that start instead of starting again
        assert await task == results
        return results

    z2, x2, _ = asyncio.run(main())
    assert gated.enqueued == 1 and states(z2, x2) == ["live", "live"]


def test_cancelled_while_a_failing_start_runs_hands_back_through_the_error() -> None:
    z, x = fresh()
    op = stepped(z, x, 0)  # fails when enqueued (CT411)

    async def main() -> None:
        task = asyncio.create_task(_await(op))
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    with pytest.raises(ct.LaunchError, match="CT411") as err:
        op.sync()
    assert states(*err.value.results[:2]) == ["live", "live"]


async def _await(op: Any) -> tuple[Any, ...]:
    result: tuple[Any, ...] = await op
    return result


def test_a_failed_op_and_its_arguments_can_be_freed() -> None:
    import gc
    import weakref

    z, x = fresh()
    op = stepped(z, x, 0)
    with pytest.raises(ct.LaunchError):
        op.sync()
    refs = [weakref.ref(op), weakref.ref(x)]
    del op, x, z
    gc.collect()
    assert [r() for r in refs] == [None, None]  # the error is kept on the op, not in a table
