"""Each way of running an op that raises leaves no CT305 ("call .sync()") warning behind: the
user did run it. And a chain misused as its results warns once (CT406), not CT305 as well."""

from __future__ import annotations

import asyncio
import gc
import warnings
from collections.abc import Callable
from typing import Any

import pytest
from rt_util import line_of

import cutile as ct
from cutile import Mut, Tensor, f32, i32


@ct.kernel
def counted(z: Mut[Tensor[f32, (64,)]], n: i32, s: i32) -> None:
    acc = ct.zeros((64,), f32)
    for _ in range(0, n, s):
        acc = acc + 1.0
    z.store(acc)


def _await(op: Any) -> Any:
    async def wait() -> Any:
        return await op

    return asyncio.run(wait())


RUNS: dict[str, Callable[[Any], Any]] = {
    "sync": lambda op: op.sync(),
    "await": _await,
    # a bad step is found when the launch completes: the wait that follows raises
    "start": lambda op: op.start().sync(),
    "graph": lambda op: op.graph().sync(),
    "then": lambda op: op.then(lambda z, n, s: counted(z, n, 1)).sync(),
    "failing link": lambda op: counted(op.sync()[0], 1, 0).sync(),
}


@pytest.mark.parametrize("how", sorted(RUNS))
def test_a_run_that_raises_leaves_no_never_run_warning(how: str) -> None:
    z = ct.zeros((64,), f32).partition((64,))
    op = counted(z, 4, 1 if how == "failing link" else 0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(ct.LaunchError, match="CT411"):
            RUNS[how](op)
        del op
        gc.collect()
    assert [str(w.message) for w in caught] == []


def test_a_chain_used_as_its_results_does_not_also_warn_never_run() -> None:
    z = ct.zeros((64,), f32).partition((64,))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        chain = counted(z, 1, 1).then(lambda z, n, s: counted(z, n, s))
        with pytest.raises(ct.LaunchError, match="CT406 this is a pending launch of a kernel"):
            chain.unpartition()
        del chain
        gc.collect()
    assert [str(w.message) for w in caught] == []


def test_a_graph_is_not_its_results() -> None:
    z = ct.zeros((64,), f32).partition((64,))
    g = counted(z, 2, 1).graph()
    with pytest.raises(ct.LaunchError, match="CT406 this is a captured graph of 'counted', not "
                       "its results, so it cannot be indexed"):
        g[0]
    with pytest.raises(ct.LaunchError, match="so it has no attribute 'numpy'"):
        g.numpy()
    z, _, _ = g.sync()  # still usable after the mistakes
    assert z.unpartition().numpy().tolist() == [2.0] * 64


def test_a_then_function_that_cannot_take_the_results_is_ct406_at_the_then() -> None:
    def one(z: Any) -> Any:
        return counted(z, 1, 1)

    z = ct.zeros((64,), f32).partition((64,))
    op = counted(z, 1, 1).then(one)  # the .then
    with pytest.raises(ct.LaunchError) as err:
        op.sync()
    (d,) = err.value.diagnostics
    assert d.code == "CT406" and d.span.line == line_of("counted(z, 1, 1).then(one)")
    assert d.message.startswith("the function given to .then() takes 1 positional argument, "
                                "but the op before it hands on 3 values")


def test_a_type_error_inside_the_then_function_stays_a_type_error() -> None:
    def broken(z: Any, n: Any, s: Any) -> Any:
        return len(n)  # a TypeError of its own: not about how many values it takes

    z = ct.zeros((64,), f32).partition((64,))
    with pytest.raises(TypeError, match="has no len"):
        counted(z, 1, 1).then(broken).sync()
