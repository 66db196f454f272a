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


@ct.kernel
def _double(z: ct.Mut[ct.Tensor[f32, (64,)]], x: ct.Tensor[f32, (-1,)]) -> None:
    z.store(ct.load_tile_like(x, z) * 2.0)


def step(z: ct.Partition, x: ct.Tensor) -> None:
    _double(z, x).sync()  # moves the caller's z (not rebound)


class Model:
    def __init__(self) -> None:
        self.x = ct.ones((512,), f32)
        self.out = ct.zeros((512,), f32).partition((64,))

    def step(self) -> None:
        _double(self.out, self.x).sync()  # moves self.out


def test_a_helper_launching_its_argument_twice_is_ct301_at_the_second_call() -> None:
    """The launch's move does not record its caller (it would slow every launch): the use at
    or before the move's spot of a function without a loop there is another call's."""
    x, z = ct.ones((512,), f32), ct.zeros((512,), f32).partition((64,))
    step(z, x)  # first
    with pytest.raises(ct.OwnershipError) as err:
        step(z, x)  # second
    (d,) = err.value.diagnostics
    assert d.code == "CT301" and d.span.line == line_of("step(z, x)  # second")
    assert d.message == ("'z' was moved into a launch of '_double' by an earlier call of 'step' "
                         "and cannot be used here")
    assert d.notes[0].span is not None and d.notes[0].span.line == line_of_function(
        step, "_double(z, x)")


def test_a_helper_called_from_a_loop_is_ct301_at_the_call() -> None:
    """Another call or the loop's next pass: "by an earlier call" is right either way."""
    x, z = ct.ones((512,), f32), ct.zeros((512,), f32).partition((64,))
    with pytest.raises(ct.OwnershipError) as err:
        for _ in range(2):
            step(z, x)  # in a loop
    (d,) = err.value.diagnostics
    assert d.code == "CT301" and d.span.line == line_of("step(z, x)  # in a loop")


def test_a_method_moving_an_attribute_twice_is_ct301_at_the_second_call() -> None:
    m = Model()
    m.step()
    with pytest.raises(ct.OwnershipError) as err:
        m.step()  # again
    (d,) = err.value.diagnostics
    assert d.code == "CT301" and d.span.line == line_of("m.step()  # again")
    assert "'self.out' was moved into a launch of '_double' by an earlier call of 'step'" in (
        d.message)


def line_of_function(fn: object, marker: str) -> int:
    lines, start = inspect.getsourcelines(fn)  # type: ignore[arg-type]
    return start + next(i for i, t in enumerate(lines) if marker in t)
