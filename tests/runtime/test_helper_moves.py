"""A helper that partitions its argument, run twice on one tensor: the runtime names the calls
(CT301 at the second, "moved here" at the first; CT306 when a loop makes the calls), as the
checker does, and not the `.partition()` line inside the helper twice."""

from __future__ import annotations

import inspect

import pytest
from rt_util import line_of

import cutile as ct
from cutile import f32


def prep(t: ct.Tensor) -> ct.Partition:
    return t.partition((64,))


def looping_prep(t: ct.Tensor) -> None:
    for _ in range(2):
        t.partition((64,))


def test_a_second_call_is_ct301_at_that_call() -> None:
    x = ct.zeros((512,), f32)
    prep(x)  # first
    with pytest.raises(ct.OwnershipError) as err:
        prep(x)  # second
    (d,) = err.value.diagnostics
    assert d.code == "CT301" and d.span.line == line_of("prep(x)  # second")
    assert d.message == "'x' was moved by .partition() in 'prep' and cannot be used here"
    assert d.notes[0].span is not None and d.notes[0].span.line == line_of("prep(x)  # first")


def test_calls_from_a_loop_are_ct306_at_the_call() -> None:
    x = ct.zeros((512,), f32)
    with pytest.raises(ct.OwnershipError) as err:
        for _ in range(2):
            prep(x)  # in a loop
    (d,) = err.value.diagnostics
    assert d.code == "CT306" and d.span.line == line_of("prep(x)  # in a loop")


def test_a_loop_inside_the_helper_stays_at_the_helper() -> None:
    x = ct.zeros((512,), f32)
    with pytest.raises(ct.OwnershipError) as err:
        looping_prep(x)
    (d,) = err.value.diagnostics
    assert d.code == "CT306" and d.span.line == line_of_helper("t.partition((64,))")


def line_of_helper(marker: str) -> int:
    lines, start = inspect.getsourcelines(looping_prep)
    return start + next(i for i, t in enumerate(lines) if marker in t)
