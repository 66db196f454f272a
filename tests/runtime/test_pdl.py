"""Programmatic dependent launch at run time (docs/runtime.md): a pdl=True link of a `.then`
chain is checked against the launch before it (CT308 at the kernel's access, also when the chain
is captured into a graph) and launched as a dependent; results equal the plain chain's. The
`backend` tests run on the interpreter and, under `pytest -m gpu`, on the H200, where the
dependent launches really overlap."""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
import pdl_kernels as pk
import pytest

import cutile as ct
from cutile import f32
from cutile.runtime.backends.base import Executable

B, N = 128, 4096


def _line(fn: Any, text: str) -> int:
    """The line of `text` in kernel `fn`'s source file."""
    import inspect

    lines, start = inspect.getsourcelines(fn.fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def _link(kernel: Any, w: ct.HostTensor, bufs: dict[str, Any], src: str, dst: str,
          *results: Any) -> Any:
    """Puts the previous launch's output back in `bufs`, then launches `dst` <- f(`src`)."""
    if results:
        bufs[src] = results[0].unpartition()
    return kernel(bufs.pop(dst).partition((B,)), w, bufs[src], N=N)


def _chain(kernel: Any, steps: int, graph_replays: int = 0) -> np.ndarray:
    rng = np.random.default_rng(7)
    w = ct.from_numpy(rng.uniform(0.5, 1.5, N).astype(np.float32))
    bufs: dict[str, Any] = {"a": ct.from_numpy(rng.uniform(-1, 1, N).astype(np.float32)),
                            "b": ct.zeros((N,), f32)}
    names = ["a", "b"]
    op = _link(kernel, w, bufs, "a", "b")
    for i in range(1, steps):
        op = op.then(partial(_link, kernel, w, bufs, names[i % 2], names[(i + 1) % 2]))
    last = names[steps % 2]
    if graph_replays:
        g = op.graph()
        for _ in range(graph_replays):
            g.replay()
        results = g.sync()
    else:
        results = op.sync()
    bufs[last] = results[0].unpartition()
    return bufs[last].numpy()


def _reference(steps: int, runs: int = 1) -> np.ndarray:
    rng = np.random.default_rng(7)
    w = rng.uniform(0.5, 1.5, N).astype(np.float32)
    h = rng.uniform(-1, 1, N).astype(np.float32)
    for _ in range(steps * runs):
        h = (w * np.float32(h.sum(dtype=np.float64) / N) + h * np.float32(0.5)).astype(np.float32)
    return h


def test_a_pdl_chain_gives_the_plain_chains_result(backend: str) -> None:
    steps = 12
    got = _chain(pk.mix, steps)
    np.testing.assert_array_equal(got, _chain(pk.mix_plain, steps))
    np.testing.assert_allclose(got, _reference(steps), rtol=1e-5, atol=1e-5)


def test_a_pdl_chain_through_a_graph_gives_the_plain_result(backend: str) -> None:
    """The graph runs the chain once when captured and once per replay; the buffers alternate,
    so each run continues from the last one's output."""
    steps, replays = 8, 5
    got = _chain(pk.mix, steps, graph_replays=replays)
    np.testing.assert_array_equal(got, _chain(pk.mix_plain, steps, graph_replays=replays))


@pytest.fixture
def dependents(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """One entry per launch enqueued as a dependent."""
    calls: list[str] = []
    plain = Executable.enqueue_dependent

    def spy(self: Executable, *args: Any) -> Any:
        calls.append("dependent")
        return plain(self, *args)

    monkeypatch.setattr(Executable, "enqueue_dependent", spy)
    return calls


def test_pdl_links_are_enqueued_as_dependents(dependents: list[str]) -> None:
    """Every link after the first launches as a dependent; the chain's first launch and the
    plain kernel's links never do (their predecessors are not known to be chain launches)."""
    calls = dependents
    _chain(pk.mix, 5)
    assert calls == ["dependent"] * 4
    calls.clear()
    _chain(pk.mix_plain, 5)
    assert calls == []


def _early_chain(kernel: Any, graph: bool = False) -> None:
    x = ct.ones((N,), f32)
    h = ct.zeros((N,), f32).partition((B,))
    out = ct.zeros((N,), f32).partition((B,))
    op = pk.seed(h, x).then(lambda h, x: kernel(out, h.unpartition()))
    if graph:
        op.graph()
    else:
        op.sync()


@pytest.mark.parametrize("graph", [False, True], ids=["eager", "graph"])
def test_reading_the_predecessors_output_before_the_wait_is_ct308(graph: bool,
                                                                 backend: str) -> None:
    with pytest.raises(ct.OwnershipError) as err:
        _early_chain(pk.peek, graph)
    diag = err.value.diagnostics[0]
    assert diag.code == "CT308"
    assert diag.span.line == _line(pk.peek, "early = ")
    assert "'h' is read before ct.wait_for_predecessor()" in diag.message
    assert "'seed'" in diag.message and len(diag.notes) == 2


def test_writing_before_the_wait_what_the_predecessor_reads_is_ct308(backend: str) -> None:
    x = ct.ones((N,), f32)
    h = ct.zeros((N,), f32).partition((B,))
    with pytest.raises(ct.OwnershipError) as err:
        pk.seed(h, x).then(lambda h, x: pk.scribble(x.partition((B,)), h.unpartition())).sync()
    diag = err.value.diagnostics[0]
    assert diag.code == "CT308" and diag.span.line == _line(pk.scribble, "z.store(ct.zeros")
    assert "may still read it" in diag.message


def test_the_cuda_launch_path_checks_pdl_links_too() -> None:
    """The CUDA backend's launch path (a fake driver: the CPU runs the GPU's host code): the
    executable prebuilt per launch plan keeps the kernel's pdl facts, and a chain's later links
    go through the dependent launcher."""
    pytest.importorskip("cuda.bindings")
    from fake_cuda import fake_cuda_backend

    with fake_cuda_backend() as fake:
        with pytest.raises(ct.OwnershipError) as err:
            _early_chain(pk.peek)
        assert err.value.diagnostics[0].code == "CT308"
        fake.launches.clear()
        _chain(pk.mix, 4)  # the fake runs no kernel: only the launches are looked at
    assert [ln.dependent for ln in fake.launches] == [False, True, True, True]


def test_memory_the_predecessor_does_not_touch_may_come_first() -> None:
    """`peek` reads, before its wait, a tensor that `seed` neither reads nor writes; the launch
    before `seed` has finished when `peek` may start (it waited or was never early), so writes
    two launches back do not count."""
    x = ct.ones((N,), f32)
    other = ct.full((N,), 3.0, f32)
    h = ct.zeros((N,), f32).partition((B,))
    out = ct.zeros((N,), f32).partition((B,))
    out, other = pk.seed(h, x).then(lambda h, x: pk.peek(out, other)).sync()
    np.testing.assert_array_equal(out.unpartition().numpy(), np.full(N, 4.0, np.float32))


def test_disjoint_views_of_one_tensor_do_not_conflict() -> None:
    """The predecessor writes the first half of a tensor; the pdl kernel reads the second half
    before its wait: boxes of one view family, compared as the aliasing checks compare them."""
    x = ct.ones((N // 2,), f32)
    base = ct.full((N,), 2.0, f32)
    lo, hi = base.split_at(0, N // 2)
    out = ct.zeros((N // 2,), f32).partition((B,))
    out, hi = pk.seed(lo.partition((B,)), x).then(lambda lo, x: pk.peek(out, hi)).sync()
    np.testing.assert_array_equal(out.unpartition().numpy(), np.full(N // 2, 3.0, np.float32))


def test_a_pdl_kernel_launched_on_its_own_runs_as_any_kernel() -> None:
    h = ct.full((N,), 2.0, f32)
    out, h = pk.peek(ct.zeros((N,), f32).partition((B,)), h).sync()
    np.testing.assert_array_equal(out.unpartition().numpy(), np.full(N, 3.0, np.float32))


# -- kernel.dependent(): the wait as the first statement, no code change ------------------------
def test_a_dependent_chain_gives_the_plain_chains_result(backend: str) -> None:
    steps = 10
    dep = pk.mix_plain.dependent()
    np.testing.assert_array_equal(_chain(dep, steps), _chain(pk.mix_plain, steps))
    np.testing.assert_array_equal(_chain(dep, steps, graph_replays=3),
                                  _chain(pk.mix_plain, steps, graph_replays=3))


def test_dependent_links_are_enqueued_as_dependents(dependents: list[str]) -> None:
    _chain(pk.mix_plain.dependent(), 5)
    assert dependents == ["dependent"] * 4


def test_dependent_is_made_once_and_keeps_pdl_kernels() -> None:
    dep = pk.mix_plain.dependent()
    assert dep is pk.mix_plain.dependent() and dep.dependent() is dep
    assert pk.mix.dependent() is pk.mix  # it has its own wait
    assert dep.with_hints(occupancy=2).entry_wait and not pk.mix_plain.entry_wait


def test_a_dependent_kernel_waits_before_its_first_access(toolchain: object) -> None:
    """Tile IR: gdc_wait, then gdc_launch_dependents, before the first load; the kernel itself
    compiles without them."""
    args = (ct.meta((N,), f32).partition((B,)), ct.meta((N,), f32), ct.meta((N,), f32))
    text = pk.mix_plain.dependent().compile(*args, N=N).tileir
    wait, go = text.index("gdc_wait"), text.index("gdc_launch_dependents")
    assert wait < go < text.index("load_view_tko")
    assert "gdc_" not in pk.mix_plain.compile(*args, N=N).tileir


@pytest.mark.parametrize("graph", [False, True], ids=["eager", "graph"])
def test_the_wait_at_entry_leaves_nothing_to_check(graph: bool) -> None:
    """After a launch that writes what it reads first thing: no CT308 (it waits first), where
    the same read before an explicit wait is CT308 (test above)."""
    _early_chain(pk.peek_plain.dependent(), graph)
