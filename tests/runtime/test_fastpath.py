"""The launch fast path (plans.py): one binding per argument descriptor, and every check that
depends on the values themselves still raising, with the full path's wording, on later
launches. Also the unchecked path and op.start()."""

from __future__ import annotations

import gc
import math
from typing import Any

import numpy as np
import pytest
import rt_kernels as k
from rt_util import line_of

import cutile as ct
from cutile import f32
from cutile.runtime.binding import Binder
from cutile.runtime.kernel import Kernel
from cutile.runtime.ownership import State


@pytest.fixture
def binds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts full-path bindings, from no plans (another test file may have launched the same
    kernels with the same descriptors)."""
    for kernel in vars(k).values():
        if isinstance(kernel, Kernel):
            monkeypatch.setattr(kernel, "_plans", None)
    calls: list[int] = []
    real = Binder.bind

    def bind(self: Binder, *args: Any) -> Any:
        calls.append(1)
        return real(self, *args)

    monkeypatch.setattr(Binder, "bind", bind)
    return calls


def _args(n: int = 256) -> tuple[Any, Any, Any]:
    return ct.zeros((n,), f32).partition((64,)), ct.ones((n,), f32), ct.ones((n,), f32)


def test_one_binding_per_descriptor(binds: list[int]) -> None:
    z, x, y = _args()
    for _ in range(5):
        z, x, y = k.add(z, x, y).sync()
    assert len(binds) == 1
    np.testing.assert_array_equal(z.unpartition().numpy(), np.full(256, 2.0))
    z, x, y = _args(512)  # another shape: another plan
    k.add(z, x, y).sync()
    assert len(binds) == 2
    z2, x2, y2 = _args(512)
    k.add(z=z2, x=x2, y=y2).sync()  # keywords: another descriptor
    k.add(*_args(512)).sync()
    assert len(binds) == 3


def test_handles_made_per_launch_find_the_plan(binds: list[int]) -> None:
    """The usual host loop partitions, reshapes and unpartitions a buffer around every launch:
    each new handle finds the plan of its layout (no binding after the first launch) and the
    results stay right."""
    buf, x, y = ct.zeros((256,), f32), ct.ones((256,), f32), ct.ones((256,), f32)
    for _ in range(4):
        z, x, y = k.add(buf.reshape((4, 64)).reshape(-1).partition((64,)), x, y).sync()
        buf = z.unpartition()
    assert len(binds) == 1
    np.testing.assert_array_equal(buf.numpy(), np.full(256, 2.0))


SPELLED_ODDLY: list[Any] = [lambda t: t.partition((64.0,)), lambda t: t.partition((True,)),
                            lambda t: t.partition((64,), blocks=True),
                            lambda t: t.reshape((4.0, 64)), lambda t: t.reshape((True, 256)),
                            lambda t: ct.zeros((256.0,), f32), lambda t: ct.zeros((True, 256), f32),
                            lambda t: ct.full((4,), 2**40, ct.i32),
                            lambda t: ct.zeros((2**40, 2**40), f32)]


@pytest.mark.parametrize("call", SPELLED_ODDLY)
def test_memos_still_refuse_floats_bools_and_overflow(call: Any) -> None:
    """A layout partitioned or reshaped once, or a shape or fill value made once, is not judged
    again, but 64.0 and True (which hash as 64 and 1) are still refused as on the first call,
    and so are values past what the dtype or 64 bits hold."""
    ct.zeros((256,), f32).partition((64,), blocks=1).unpartition().reshape((4, 64))
    ct.zeros((256,), f32).partition((1,)).unpartition().reshape((1, 256))
    ct.zeros((1, 256), f32)
    ct.full((4,), 2**20, ct.i32)
    with pytest.raises(ct.LaunchError):
        call(ct.zeros((256,), f32))  # the same layouts, spelled with a float or a bool


def test_a_fill_of_minus_zero_keeps_its_sign() -> None:
    """Fill values are remembered per value; -0.0 equals 0.0 as a key, so after a fill of 0.0
    one of -0.0 must still store the negative zero."""
    assert not np.signbit(ct.full((2,), 0.0, f32).numpy()).any()
    assert np.signbit(ct.full((2,), -0.0, f32).numpy()).all()


def test_host_calls_that_succeed_read_no_source(monkeypatch: pytest.MonkeyPatch) -> None:
    """The names and spans in error messages are read from the caller's source text, which
    costs tens of microseconds: calls that raise nothing must not read it (they did, in
    partition(), *_like, copy_ and every write of a DLPack import)."""
    from cutile.runtime import sites

    def no_source(*args: Any) -> Any:
        raise AssertionError("source text read on a path that raises nothing")

    monkeypatch.setattr(sites, "_site_expr", no_source)
    monkeypatch.setattr(sites, "_call_text", no_source)
    buf, x = ct.zeros((256,), f32), ct.ones((256,), f32)
    z, x, y = k.add(buf.reshape((4, 64)).reshape(256).partition((64,)), x, ct.ones_like(x)).sync()
    out = ct.empty_like(x)
    out.copy_(np.arange(256, dtype=np.float32))
    out.copy_(y)
    imported = ct.from_dlpack(np.zeros(256, np.float32))
    k.inc(imported.partition((64,)), B=64).sync()
    np.testing.assert_array_equal(z.unpartition().numpy(), np.full(256, 2.0))


def test_const_values_are_part_of_the_descriptor(binds: list[int]) -> None:
    a = ct.randn((64, 32), ct.f16, seed=1)
    b = ct.randn((32, 64), ct.f16, seed=2)
    for bk in (16, 32, 16):
        c, a, b = k.matmul(ct.zeros((64, 64), f32).partition((32, 32)), a, b, BK=bk).sync()
    assert len(binds) == 2
    ref = a.numpy().astype(np.float32) @ b.numpy().astype(np.float32)
    np.testing.assert_allclose(c.unpartition().numpy(), ref, rtol=1e-3, atol=1e-3)


def test_moved_partition_on_a_planned_launch_is_ct301() -> None:
    z, x, y = _args()
    z, x, y = k.add(z, x, y).sync()
    k.add(z, x, y).sync()  # z is moved into this launch (the result is dropped)
    with pytest.raises(ct.OwnershipError) as err:
        k.add(z, x, y)
    assert err.value.diagnostics[0].code == "CT301"


def test_aliasing_on_a_planned_launch_is_ct302() -> None:
    arr = np.zeros(256, dtype=np.float32)
    k.add(ct.from_dlpack(arr).partition((64,)), ct.ones((256,), f32),
          ct.ones((256,), f32)).sync()  # plans this descriptor
    a, b = ct.from_dlpack(arr), ct.from_dlpack(arr)
    zp = a.partition((64,))
    with pytest.raises(ct.OwnershipError) as err:
        k.add(zp, b, ct.ones((256,), f32))
    assert err.value.diagnostics[0].code == "CT302"
    assert zp.state is State.LIVE and b.state is State.LIVE


def test_scalar_range_on_a_planned_launch_is_ct406() -> None:
    z = ct.zeros((64,), ct.i32).partition((64,))
    z, _ = k.shift(z, 5).sync()
    z, _ = k.shift(z, -2).sync()
    assert (z.numpy() == 3).all()
    with pytest.raises(ct.LaunchError) as err:
        k.shift(z, 2**31)
    assert err.value.diagnostics[0].code == "CT406"


@pytest.mark.parametrize("generated", [True, False], ids=["generated", "generic"])
def test_inf_and_nan_scalars_take_the_plan(binds: list[int], generated: bool) -> None:
    """The contract takes inf and nan for a float parameter (only a finite value past the
    dtype's range is CT406), so they keep to the plan: no binding per launch."""
    z, x = ct.zeros((64,), f32).partition((64,)), ct.ones((64,), f32)
    z, x, _ = k.scale(z, x, 2.0).sync()
    if not generated:
        for plan in k.scale.plans().plans.values():
            plan.run = None
    for s in (-math.inf, math.inf, math.nan, 1e38, -math.inf):
        z, x, _ = k.scale(z, x, s).sync()
    assert len(binds) == 1
    for s in (np.float32(math.nan), np.float32(-math.inf), np.float32(1)):
        z, x, _ = k.scale(z, x, s).sync()
    assert len(binds) == 2  # a NumPy scalar is another descriptor: one more plan
    with pytest.raises(ct.LaunchError, match="CT406") as err:
        k.scale(z, x, 1e39)
    assert "outside the range of f32" in str(err.value)


def test_leases_still_taken_on_planned_launches() -> None:
    z, x, y = _args()
    z, x, y = k.add(z, x, y).sync()
    op = k.add(z, x, y)
    assert x.state is State.SHARED
    with pytest.raises(ct.OwnershipError) as err:
        x.partition((64,))
    assert err.value.diagnostics[0].code == "CT303"
    op.sync()
    assert x.state is State.LIVE


def test_unchecked_launch_returns_the_same_objects() -> None:
    z, x, y = _args()
    out = k.add.unchecked(z, x, y).sync()
    assert out[0] is z and out[1] is x and z.state is State.LIVE and x.state is State.LIVE
    out = k.add.unchecked(z, x, y).sync()  # planned now
    assert out == (z, x, y)
    np.testing.assert_array_equal(z.numpy(), np.full(256, 2.0))


def test_unchecked_still_validates_a_new_descriptor() -> None:
    z, _, y = _args()
    with pytest.raises(ct.LaunchError):
        k.add.unchecked(z, ct.ones((256,), ct.f16), y)


def test_start_enqueues_without_waiting_and_sync_returns() -> None:
    z, x, y = _args()
    op = k.add(z, x, y)
    assert op.start() is op
    np.testing.assert_array_equal(x.numpy(), np.ones(256))  # reads are fine meanwhile
    z, x2, _ = op.sync()
    assert x2 is x and (z.numpy() == 2.0).all()


def test_long_then_chains_do_not_recurse() -> None:
    z = ct.zeros((64,), f32).partition((64,))
    op = k.inc(z)
    for _ in range(10_000):
        op = op.then(k.inc)
    (z,) = op.sync()
    assert (z.numpy() == 10_001.0).all()


def test_long_chain_graph_replays() -> None:
    z = ct.zeros((64,), f32).partition((64,))
    op = k.inc(z)
    for _ in range(2_999):
        op = op.then(k.inc)
    g = op.graph()
    g.replay()
    (z,) = g.sync()
    assert (z.numpy() == 6_000.0).all()


def test_graph_of_a_started_op_is_refused() -> None:
    op = k.add(*_args()).start()
    with pytest.raises(ct.LaunchError) as err:
        op.graph()
    assert err.value.diagnostics[0].code == "CT406"
    op.sync()


def test_registry_wording_for_arity_errors() -> None:
    with pytest.raises(ct.LaunchError) as err:
        k.add(*_args(), 64, 1)
    assert err.value.diagnostics[0].message == "'add' takes 4 positional arguments, 5 given"


def test_errors_after_planned_launches_name_both_sites(binds: list[int]) -> None:
    z, x, y = _args()
    z, x, y = k.add(z, x, y).sync()
    before = len(binds)
    op = k.add(z, x, y)  # planned-site
    assert len(binds) == before  # this launch took the plan
    with pytest.raises(ct.OwnershipError) as err:
        z.unpartition()  # moved-use-site
    (d,) = err.value.diagnostics
    assert d.code == "CT301" and d.span.line == line_of("# moved-use-site")
    assert d.span.path == __file__
    assert d.notes[0].span is not None and d.notes[0].span.line == line_of("# planned-site")
    with pytest.raises(ct.OwnershipError) as err:
        x.reshape((16, 16))  # leased-use-site
    (d,) = err.value.diagnostics
    assert d.code == "CT303" and d.span.line == line_of("# leased-use-site")
    assert d.notes[0].span is not None and d.notes[0].span.line == line_of("# planned-site")
    assert d.notes[0].span.path == __file__
    op.sync()


def test_sites_of_launches_made_inside_a_then_chain() -> None:
    z, x, y = _args()
    op = k.add(z, x, y).then(k.add)  # chain-site
    z2, x2, y2 = op.sync()
    with pytest.raises(ct.OwnershipError) as err:
        z.unpartition()
    assert err.value.diagnostics[0].notes[0].span is not None
    assert err.value.diagnostics[0].notes[0].span.line == line_of("# chain-site")
    # a launch made by a user's function that cutile calls: its site is the function's line
    other = ct.zeros((256,), f32).partition((64,))
    op = k.add(z2, x2, y2).then(lambda a, b, c: k.add(other, b, c))  # lambda-site
    z4, _, _ = op.sync()
    with pytest.raises(ct.OwnershipError) as err:
        other.unpartition()
    assert err.value.diagnostics[0].notes[0].span is not None
    assert err.value.diagnostics[0].notes[0].span.line == line_of("# lambda-site")
    assert (z4.unpartition().numpy() == 2.0).all()


def test_a_kernel_launched_by_a_then_link_takes_the_links_site() -> None:
    z, x, y = _args()
    op = k.add(z, x, y)
    chain = op.then(k.add)  # then-site
    chain.sync()
    launched = chain._next
    assert launched is not None and launched.site.lineno == line_of("# then-site")
    assert launched.site.call() is None  # its arguments are not written there


def test_dropped_planned_launch_warns_at_its_line() -> None:
    z, x, y = _args()
    z, x, y = k.add(z, x, y).sync()
    with pytest.warns(ct.LaunchNeverRunWarning) as got:
        k.add(z, x, y)  # dropped-planned-site
        gc.collect()
    (w,) = got
    assert w.lineno == line_of("# dropped-planned-site") and w.filename == __file__
    assert "CT305" in str(w.message)


def test_site_lineno_of_a_call_spanning_lines() -> None:
    z, x, y = _args()
    op = k.add(
        z,
        x,  # inner-line
        y)
    assert op.site.lineno == line_of("op = k.add(") and op.site.path == __file__
    assert op.site.span().line == line_of("op = k.add(")
    assert op.site.span().end_line == line_of("y)")
    op.sync()


def test_descriptor_ids_follow_alignment_and_tiling(binds: list[int]) -> None:
    n = 448  # a size no other test plans
    arr = np.zeros(n + 4, dtype=np.float32)

    def run(tile: int, start: int, order: ct.TileOrder = ct.row_major) -> None:
        z = ct.zeros((n,), f32).partition((tile,), order=order)
        k.add(z, ct.from_dlpack(arr[start:start + n]), ct.ones((n,), f32)).sync()

    run(64, 0)
    run(64, 0)
    assert len(binds) == 1  # new handles, equal descriptors: one plan
    run(64, 1)
    assert len(binds) == 2  # 4 bytes off: another alignment class
    run(64, 4)
    assert len(binds) == 2  # 16 bytes off: the same class again
    run(32, 0)
    assert len(binds) == 3  # another tile
    run(64, 0, order=ct.col_major)
    assert len(binds) == 4  # another order


def test_handle_ids_from_many_threads_are_one_per_descriptor() -> None:
    from concurrent.futures import ThreadPoolExecutor

    from cutile.runtime.plans import handle_id

    shapes = [(7, n) for n in range(1, 41)]  # descriptors no other test makes
    tensors = [ct.zeros(s, f32) for s in shapes for _ in range(4)]
    with ThreadPoolExecutor(8) as pool:
        ids = list(pool.map(handle_id, tensors))
    by_shape: dict[tuple[int, ...], set[int]] = {}
    for t, i in zip(tensors, ids, strict=True):
        by_shape.setdefault(t.shape, set()).add(i)
    assert all(len(v) == 1 for v in by_shape.values())  # equal descriptors: one id
    assert len({next(iter(v)) for v in by_shape.values()}) == len(shapes)  # distinct ones: not


def _snapshot(op: Any, given: tuple[Any, ...]) -> tuple[Any, ...]:
    """What a launch decided: its arguments' kinds and states, what it leases and holds, its
    grid and results, and what became of the caller's handles."""
    ref = op._ref
    return (op.kernel_name, op._grid, op._muts, op._reads, op.phase, op._exe is None,
            [(type(v).__name__, getattr(v, "_state", v)) for v in op._args],
            [(type(v).__name__, getattr(v, "_state", None)) for v in op._results],
            [(getattr(v, "_state", None), getattr(v, "_how", None),
              getattr(v, "_op", None) is ref, getattr(v, "_leases", None) is ref) for v in given])


def _planned_twice(make: Any, launch: Any, generated: bool) -> tuple[Any, ...]:
    """The second launch of one descriptor (the first records the plan), with or without the
    plan's generated launcher."""
    args = make()
    launch(*args).sync()
    args = make()
    if not generated:
        plans = launch.plans()
        for plan in plans.plans.values():
            plan.run = None
    op = launch(*args)
    snap = _snapshot(op, args)
    op.sync()
    return snap


@pytest.mark.parametrize("case", ["add", "shift", "matmul"])
def test_generated_launcher_decides_as_the_generic_path(case: str) -> None:
    def make() -> tuple[Any, ...]:
        if case == "add":
            return _args()
        if case == "shift":
            return ct.zeros((64,), ct.i32).partition((64,)), 3
        return (ct.zeros((64, 64), f32).partition((32, 32)), ct.randn((64, 32), ct.f16, seed=1),
                ct.randn((32, 64), ct.f16, seed=2))

    kern = getattr(k, case)
    launch = (lambda *a: kern(*a, BK=16)) if case == "matmul" else kern
    launch.plans = kern.plans  # type: ignore[attr-defined]
    fast = _planned_twice(make, launch, True)
    assert any(p.run is not None for p in kern.plans().plans.values())
    kern._plans = None  # fresh plans: the generic path from the same start
    slow = _planned_twice(make, launch, False)
    kern._plans = None  # the plans without launchers go: later tests get the usual ones
    assert fast == slow


def test_generated_launcher_is_the_one_that_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    from cutile.runtime import launch as launch_module

    z, x, y = k.add(*_args()).sync()
    generic: list[int] = []
    real = launch_module._start_launch
    monkeypatch.setattr(launch_module, "_start_launch",
                        lambda *a: generic.append(1) or real(*a))
    op = k.add(z, x, y)
    for _ in range(10):
        op = op.then(k.add)
    op.sync()
    assert generic == []  # all eleven went through the plan's own launcher
    a, b = ct.randn((64, 32), ct.f16, seed=1), ct.randn((32, 64), ct.f16, seed=2)
    c, a, b = k.matmul(ct.zeros((64, 64), f32).partition((32, 32)), a, b, BK=16).sync()
    generic.clear()  # that first launch recorded its plan (the full path)
    c, a, b = k.matmul(c, a, b, BK=16).sync()  # a Const by keyword: the plan's launcher
    assert generic == []
