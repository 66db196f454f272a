"""The compiled launch path (runtime/native.py, _native.c) against the Python one it falls back
to: the same launches leave the same results, states, leases and errors, and the compiled
enqueue writes the bytes the Python packer writes. The launch tests also run whole with the
compiled path off (`test_the_launch_tests_pass_on_the_python_path`)."""

from __future__ import annotations

import ctypes
import gc
import os
import shutil
import subprocess
import sys
import threading
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import rt_kernels as k
from fake_cuda import LAUNCH, DriverStatus, FakeDriver, fake_cuda_backend
from test_param_blocks import CASES, _bound, _statics, slot_bytes

import cutile as ct
from cutile import f32
from cutile.diagnostics.errors import CutileError
from cutile.runtime import native
from cutile.runtime.backends.pack import Packer
from cutile.runtime.kernel import Kernel

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
compiled_only = pytest.mark.skipif(not native.available(),
                                   reason="the compiled path is off or not built")


def test_the_extension_is_built_where_a_c_compiler_is() -> None:
    if os.environ.get(native.ENV, "1").strip() == "0":
        pytest.skip("CUTILE_NATIVE=0")
    if not (shutil.which("cc") or shutil.which("gcc")):
        pytest.skip("no C compiler here")
    assert native.available(), "runtime/_native.c was not built (scripts/dev setup builds it)"


@pytest.fixture
def fresh_plans(monkeypatch: pytest.MonkeyPatch) -> None:
    """No plans for the test kernels yet (another test may have launched them)."""
    for kernel in vars(k).values():
        if isinstance(kernel, Kernel):
            monkeypatch.setattr(kernel, "_plans", None)


def _both(run: Callable[[], list[str]]) -> list[str]:
    """`run()` on the compiled path, then with every compiled piece handing its calls to its
    Python twin (`native.python_path`); the two must say the same."""
    compiled = run()
    with native.python_path():
        python = run()
    assert compiled == python
    return compiled


def _outcome(fn: Callable[[], Any]) -> str:
    try:
        return f"ok {fn()}"
    except CutileError as err:
        where, text = str(err).split(": ", 1)
        return f"{text} at {where.rsplit(':', 2)[-2]}"  # the code, the message and the line


def _noted_at(fn: Callable[[], Any]) -> list[int]:
    """The lines of the notes of the error `fn` raises (where a handle was moved)."""
    with pytest.raises(CutileError) as caught:
        fn()
    return [n.span.line for d in caught.value.diagnostics for n in d.notes if n.span]


def _lineno_of(text: str) -> int:
    lines = Path(__file__).read_text().splitlines()
    return 1 + next(i for i, t in enumerate(lines) if t.endswith(text))


def _states(*handles: Any) -> list[str]:
    return [h.state.name for h in handles]


def _scenario() -> list[str]:
    """Launches that take every branch of the compiled runner: moves, single and shared leases,
    a moved argument, an alias, integer and float scalars in and out of range, a view, a
    chain, an op left unsynced and dropped."""
    log: list[str] = []
    z, x, y = ct.zeros((256,), f32).partition((64,)), ct.ones((256,), f32), ct.ones((256,), f32)
    op = k.add(z, x, y)
    log.append(str(_states(z, x, y)))  # moved, leased
    z, x, y = op.sync()
    log.append(str(_states(z, x, y)))
    first, second = k.add(z, x, y), None
    log.append(_outcome(lambda: k.add(z, x, y)))  # z moved into `first`
    second_z = ct.zeros((256,), f32).partition((64,))
    second = k.add(second_z, x, y)  # x, y now read by two launches
    log.append(str(_states(x, y)))
    z, x, y = first.sync()
    second_z, x, y = second.sync()
    log.append(str(_states(z, x, y, second_z)))
    op = k.add(z, x, y)
    for _ in range(4):
        op = op.then(k.add)
    z, x, y = op.then(fn=k.add).sync()  # by keyword: the Python method
    zt = z.unpartition()
    log.append(str(zt.numpy()[:3]))
    z = zt.partition((64,))
    buf = ct.zeros((256,), f32)
    log.append(_outcome(lambda: k.add(buf.partition((64,)), buf, y).sync()))  # alias
    view = ct.zeros((512,), f32)[:256]
    log.append(_outcome(lambda: str(k.add(view.partition((64,)), x, y).sync()[0].state.name)))
    for value in (5, 2**31 - 1, 2**31, -(2**31) - 1, np.int32(3)):
        s = ct.zeros((128,), ct.i32).partition((64,))
        log.append(_outcome(lambda s=s, v=value: k.shift(s, v).sync()))  # type: ignore[misc]
    for value in (2.5, float("inf"), float("nan"), 1e39, -1e39, np.float64(1.5), 3):
        w = ct.zeros((256,), f32).partition((64,))
        log.append(_outcome(lambda w=w, v=value: k.scale(w, x, v).sync()))  # type: ignore[misc]
    op = k.add.unchecked(z, x, y)  # no moves: the same objects come back
    log.append(str(_states(z, x, y)))
    for _ in range(3):
        op = op.then(k.add.unchecked)
    log.append(str([a is b for a, b in zip(op.sync(), (z, x, y), strict=True)]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        k.add(z, x, y)  # dropped without running: CT305
    log.append(str([str(w.message)[:5] for w in caught]))
    return log


def test_both_paths_leave_the_same_launches_behind(fresh_plans: None) -> None:
    got = _both(_scenario)
    assert got[0] == "['MOVED', 'SHARED', 'SHARED']"
    assert got[1] == "['LIVE', 'LIVE', 'LIVE']"
    line = _lineno_of("lambda: k.add(z, x, y)))  # z moved into `first`")
    assert got[2].startswith("CT301") and got[2].endswith(f" at {line}")
    assert got[3] == "['SHARED', 'SHARED']"
    assert got[4] == "['LIVE', 'LIVE', 'LIVE', 'LIVE']"
    assert got[6].startswith("CT302") and got[7] == "ok LIVE"
    assert [line[:5] for line in got[8:20]] == ["ok (c"] * 2 + ["CT406"] * 2 + ["ok (c"] * 4 + [
        "CT406"] * 2 + ["ok (c"] * 2
    assert got[5] == "[2. 2. 2.]" and got[-1] == "['CT305']"
    assert got[-3:-1] == ["['LIVE', 'LIVE', 'LIVE']", "[True, True, True]"]
    plans = k.add._plans
    assert plans is not None
    compiled = {type(p.run).__name__ == "Runner" for p in plans.plans.values()}
    assert compiled == {native.available()}


@compiled_only
def test_a_chains_sites_stay_out_of_the_cycle_collector(fresh_plans: None) -> None:
    """A chain's links live until it runs; their sites (a code object and an offset) make no
    cycle, so the compiled `.then` keeps them out of the collector's scans."""
    z, x, y = ct.zeros((256,), f32).partition((64,)), ct.ones((256,), f32), ct.ones((256,), f32)
    op = k.add(z, x, y)
    links = []
    for _ in range(3):
        op = op.then(k.add)  # a link's site
        links.append(op)
    assert [gc.is_tracked(link.site) for link in links] == [False] * 3
    assert {link.site.lineno for link in links} == {_lineno_of("op.then(k.add)  # a link's site")}
    z, x, y = op.sync()
    assert z.unpartition().numpy()[0] == 2.0


def _keyword_scenario() -> list[str]:
    """Launches passing arguments by keyword: Consts (the right value, a wrong one, another
    class, an unhashable one), a handle, an unknown name, a name given twice, a grid, and
    new handles (their descriptor ids not computed yet)."""
    log: list[str] = []
    z, x, y = ct.zeros((256,), f32).partition((64,)), ct.ones((256,), f32), ct.ones((256,), f32)
    for _ in range(2):
        z, x, y = k.add(z, x, y, B=64).sync()
        log.append(str(_states(z, x, y)))
    for kw in ({"B": 32}, {"B": 64.0}, {"B": [64]}, {"Q": 1}, {"z": z},
               {"grid": (4, 1, 1)}):
        log.append(_outcome(lambda kw=kw: len(k.add(z, x, y, **kw).sync())))  # type: ignore[misc]
    z = z if z.state.name == "LIVE" else ct.zeros((256,), f32).partition((64,))
    z, x = k.add(z, x, y=y, B=64).sync()  # .sync() hands back the positional ones
    log.append(str(_states(z, x, y)))
    for _ in range(2):  # new handles around each launch
        z = z.unpartition().reshape((128, 2)).reshape(256).partition((64,))
        z, x, y = k.add(z, x, y, B=64).sync()
    log.append(str(z.unpartition().numpy()[:2]))
    return log


def test_both_paths_take_keywords_alike(fresh_plans: None) -> None:
    got = _both(_keyword_scenario)
    assert got[:2] == ["['LIVE', 'LIVE', 'LIVE']"] * 2
    assert [line[:5] for line in got[2:8]] == ["CT401"] + ["CT406"] * 4 + ["ok 3"]
    assert got[-1] == "[2. 2.]"


@compiled_only
def test_a_keyword_launch_with_a_plan_takes_the_compiled_path(
        fresh_plans: None, monkeypatch: pytest.MonkeyPatch) -> None:
    z, x, y = ct.zeros((256,), f32).partition((64,)), ct.ones((256,), f32), ct.ones((256,), f32)
    z, x, y = k.add(z, x, y, B=64).sync()  # records the plan
    monkeypatch.setattr(Kernel, "_call_py", lambda *a, **kw: pytest.fail("the Python launch"))
    z = z.unpartition().partition((64,))  # a new handle: its id computed on the way
    z, x, y = k.add(z, x, y, B=64).sync()
    assert _states(z, x, y) == ["LIVE"] * 3


def _moves_into(z: Any) -> Any:
    """A helper that partitions its argument (a second call on the same tensor: CT301 naming
    both calls, through the site's parent)."""
    return z.partition((64,))


def _handle_scenario() -> list[str]:
    """Moves of handles by reshape, partition and unpartition, each layout twice (the second
    time is the compiled path's usual call), then the errors that read where a handle moved."""
    log: list[str] = []
    for _ in range(2):
        t = ct.zeros((256,), f32)
        r = t.reshape((128, 2))  # reshaped here
        log.append(_outcome(lambda t=t: t.numpy()))  # type: ignore[misc]
        log.append(str(_noted_at(lambda t=t: t.numpy())))  # type: ignore[misc]
        log.append(str((r.shape, r.state.name, t.state.name)))
        r = r.reshape(16, 16)
        p = r.reshape(-1).partition((64,))  # partitioned here
        log.append(str((p.shape, p.grid, p.tile, p.state.name, r.state.name)))
        log.append(_outcome(lambda r=r: r.partition((64,))))  # type: ignore[misc]
        q = p.unpartition()  # unpartitioned here
        log.append(_outcome(lambda p=p: p.unpartition()))  # type: ignore[misc]
        b = q.partition((32,), ct.col_major, 2)
        log.append(str((b.grid, b.order, b.blocks, b.launch_grid)))
        log.append(_outcome(lambda q=q: q.reshape(256)))  # type: ignore[misc]
        log.append(str(_noted_at(lambda q=q: q.reshape(256))))  # type: ignore[misc]
        u = ct.zeros((256,), f32)
        _moves_into(u)
        log.append(_outcome(lambda u=u: _moves_into(u)))  # type: ignore[misc]
    x = ct.ones((256,), f32)
    op = k.add(ct.zeros((256,), f32).partition((64,)), x, x)
    log.append(_outcome(lambda: x.partition((64,))))  # leased: CT303
    log.append(_outcome(lambda: x.reshape(256)))
    op.sync()
    v = ct.zeros((512,), f32)[:256]  # a view: its region is checked
    log.append(_outcome(lambda: str(v.partition((64,)).grid)))
    return log


def test_both_paths_move_handles_alike() -> None:
    got = _both(_handle_scenario)
    assert got[:10] == got[10:20]  # the compiled path's second round says what the first did
    assert got[0].startswith("CT301")
    assert got[1] == f"[{_lineno_of('# reshaped here')}]"  # where the move happened
    assert got[2:4] == ["((128, 2), 'LIVE', 'MOVED')", "((256,), (4,), (64,), 'LIVE', 'MOVED')"]
    assert [got[i][:5] for i in (4, 5, 6, 7, 9)] == ["CT301", "CT301", "((8,)", "CT301", "CT306"]
    assert got[8] == f"[{_lineno_of('(32,), ct.col_major, 2)')}]"  # q moved by that partition
    assert got[20][:5] == got[21][:5] == "CT303"
    assert got[-1] == "ok (4,)"


@compiled_only
def test_the_usual_handle_moves_take_the_compiled_path(monkeypatch: pytest.MonkeyPatch) -> None:
    from cutile.runtime.partition import Partition
    from cutile.runtime.tensor import Tensor
    t = ct.zeros((256,), f32)
    t = t.reshape((128, 2)).reshape(256).partition((64,)).unpartition()  # the layouts, judged
    for cls, name in ((Tensor, "_reshape_py"), (Partition, "_unpartition_py")):
        monkeypatch.setattr(cls, name, lambda *a, **kw: pytest.fail("the Python method"))
    monkeypatch.setattr("cutile.runtime.tensor.caller_with_parent",
                        lambda: pytest.fail("Tensor.partition's Python body"))
    t = t.reshape((128, 2)).reshape(256).partition((64,)).unpartition()
    assert (t.shape, t.state.name) == ((256,), "LIVE")


def _recording(slots: tuple[Any, ...], calls: list[Any], code: int = 0) -> Any:
    def launch(fn: int, gx: int, gy: int, gz: int, bx: int, by: int, bz: int, shmem: int,
               stream: int | None, params: int, extra: int | None) -> int:
        calls.append((fn, (gx, gy, gz), stream or 0, slot_bytes(params, slots)))
        return code
    return LAUNCH(launch)


def _compiled(packer: Packer, fn: Any, fallback: Any = None, enter: Any = None,
              fail: Any = None) -> Any:
    return native.launcher(packer, ctypes.cast(fn, ctypes.c_void_p).value, 0x1234,
                           fallback or (lambda *a: pytest.fail("fell back")),
                           enter or (lambda: None), fail or (lambda code: None))


@compiled_only
@pytest.mark.parametrize("case", CASES)
def test_the_compiled_enqueue_writes_the_packers_bytes(case: str) -> None:
    kernel, make = CASES[case]
    values, slots = _bound(kernel, make(0x7F00_0000_0000, 2))
    plain, planned = Packer(slots), Packer(slots, _statics(values))
    calls: list[Any] = []
    fn = _recording(tuple(slots), calls)
    enqueue = _compiled(planned, fn)
    if any(s.ctype == "f16" for s in planned.dynamic):  # narrow floats: the Python packer
        assert enqueue is None
        return
    assert enqueue is not None
    for n in (2, 5):
        again, _ = _bound(kernel, make(0x7E00_0000_0000 + n * 0x1000, n))
        enqueue(again, (3, 2, 1), 77)
        assert calls[-1] == (0x1234, (3, 2, 1), 77, slot_bytes(plain.pack(again), slots))
    for i in planned.tensor_args:
        v = again[i]
        assert 77 in getattr(v, "_tensor", v)._buf.streams


@compiled_only
def test_values_it_does_not_pack_go_to_the_python_packer() -> None:
    values, slots = _bound(k.scale, (ct.zeros((256,), f32).partition((64,)),
                                     ct.ones((256,), f32), 2.5, 64))
    packer = Packer(slots, _statics(values))
    calls: list[Any] = []
    fell: list[Any] = []
    enqueue = _compiled(packer, _recording(tuple(slots), calls),
                        fallback=lambda *a: fell.append(a))
    enqueue(values, (4, 1, 1), 0)
    values[2] = np.float32(2.5)  # a NumPy number: the Python encoder's
    enqueue(values, (4, 1, 1), 0)
    assert len(calls) == 1 and len(fell) == 1


@compiled_only
def test_a_driver_error_goes_to_fail_and_a_new_thread_enters_once() -> None:
    values, slots = _bound(k.add, (ct.zeros((256,), f32).partition((64,)),
                                   ct.ones((256,), f32), ct.ones((256,), f32)))
    packer = Packer(slots, _statics(values))
    calls: list[Any] = []
    entered: list[int] = []
    failed: list[int] = []
    ok = _compiled(packer, _recording(tuple(slots), calls),
                   enter=lambda: entered.append(threading.get_ident()))
    for _ in range(3):
        ok(values, (4, 1, 1), 0)
    thread = threading.Thread(target=lambda: ok(values, (4, 1, 1), 0))
    thread.start()
    thread.join()
    ok(values, (4, 1, 1), 0)
    assert len(calls) == 5 and len(entered) == 2  # this thread once, the other once
    bad = _compiled(packer, _recording(tuple(slots), calls, code=700),
                    fail=lambda code: failed.append(code))
    bad(values, (4, 1, 1), 0)
    assert failed == [700]


def test_the_launch_tests_pass_on_the_python_path() -> None:
    """The launch path's own tests, with the compiled path off (what a machine without a C
    compiler runs)."""
    files = ["test_fastpath.py", "test_launch.py", "test_ownership.py", "test_views.py",
             "test_cuda_path.py", "test_pdl.py", "test_graph_capture.py", "test_native.py"]
    env = {**os.environ, native.ENV: "0"}
    if os.environ.get(native.ENV) == "0":
        pytest.skip("already on the Python path")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-o", "addopts=", *(str(HERE / f) for f in files)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]


def _failing_chain() -> list[str]:
    """A 6-launch chain through the fake CUDA backend whose third launch gets a driver error
    (status 700, through the compiled enqueue's launch function or the Python launcher): what
    the error, its handed-back results and the handles say afterwards."""
    class Failing(FakeDriver):
        def launch(self, function: int, grid: tuple[int, int, int], stream: int,
                   params: int) -> None:
            super().launch(function, grid, stream, params)
            if len(self.launches) == 3:
                raise DriverStatus(700)

    with fake_cuda_backend(Failing()) as fake:
        z = ct.zeros((256,), f32).partition((64,))
        x, y = ct.ones((256,), f32), ct.ones((256,), f32)
        op = k.add(z, x, y)
        for _ in range(5):
            op = op.then(k.add)
        try:
            op.sync()
            return ["no error"]
        except CutileError as err:
            got = [str(err).split(": ", 1)[-1], str(len(fake.launches))]
            z2, x2, y2 = err.results
            got.append(str(_states(z2, x2, y2)))
            z3, _, _ = k.add(z2, x2, y2).sync()  # the handed-back handles still launch
            got.append(str(_states(z3)))
            return got


def test_a_driver_error_in_a_chain_fails_it_the_same_way(fresh_plans: None) -> None:
    pytest.importorskip("cuda.bindings")
    got = _both(_failing_chain)
    assert got[0].startswith("CT505") and "cuLaunchKernel" in got[0], got
    assert got[1:] == ["3", "['LIVE', 'LIVE', 'LIVE']", "['LIVE']"]

