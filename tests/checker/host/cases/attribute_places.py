"""Tensors kept in attributes are followed as names are. In a method, an attribute that every
store in the module makes a new tensor starts as a live tensor; an object's attribute that the
scope stores is followed from the store. A call of code the checker does not see may rebind
attributes, so after one the checker starts over and says nothing."""

from contextlib import suppress
from types import SimpleNamespace

import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def double(z: Mut[Tensor[f32, (64,)]]) -> None:
    z.store(z.load() * 2.0)


class Buffers:
    def __init__(self) -> None:
        self.buf = ct.zeros((128,), f32)
        self.out = ct.ones((128,), f32)
        self.name = "buffers:main"

    def twice(self) -> None:
        double(self.buf.partition((64,))).sync()
        double(self.buf.partition((64,))).sync()  # E: CT301

    def looped(self) -> None:
        for _ in range(2):
            double(self.buf.partition((64,))).sync()  # E: CT306

    def one_path(self, flag: bool) -> None:
        if flag:
            double(self.buf.partition((64,))).sync()
        double(self.buf.partition((64,))).sync()  # E: CT301

    def kept_op(self) -> None:
        self.op = double(self.buf.partition((64,)))
        self.op.sync()
        print(self.buf.shape)  # E: CT301

    def rebound(self) -> None:
        (p,) = double(self.out.partition((64,))).sync()
        self.out = p.unpartition()
        (p,) = double(self.out.partition((64,))).sync()  # rebound from the results: fine
        self.out = p.unpartition()

    def refreshed(self) -> None:
        double(self.buf.partition((64,))).sync()
        self.reset()  # may rebind self.buf: nothing to say after it
        double(self.buf.partition((64,))).sync()

    def reset(self) -> None:
        self.buf = ct.zeros((128,), f32)

    def label(self) -> str:
        head, _, tail = self.name.partition(":")  # a str's partition: no tensor here
        again, _, _ = self.name.partition(":")
        return head + tail + again


def local_object() -> None:
    state = SimpleNamespace()
    state.t = ct.zeros((128,), f32)
    double(state.t.partition((64,))).sync()
    double(state.t.partition((64,))).sync()  # E: CT301


def aliased() -> None:
    state = SimpleNamespace()
    t = ct.zeros((128,), f32)
    state.t = t
    double(t.partition((64,))).sync()
    double(state.t.partition((64,))).sync()  # E: CT301


def replaced() -> None:
    state = SimpleNamespace()
    state.t = ct.zeros((128,), f32)
    double(state.t.partition((64,))).sync()
    state.t = ct.zeros((128,), f32)
    double(state.t.partition((64,))).sync()  # a new tensor: fine


Buffers().twice()
Buffers().looped()
Buffers().one_path(True)
Buffers().kept_op()
Buffers().rebound()
Buffers().refreshed()
Buffers().label()
local_object()
aliased()
replaced()


class Sometimes:
    """`self.cache` is also stored as None: not known to be a tensor, so nothing is said."""

    def __init__(self) -> None:
        self.cache = ct.zeros((128,), f32)

    def drop(self) -> None:
        self.cache = None  # type: ignore[assignment]

    def twice(self) -> None:
        double(self.cache.partition((64,))).sync()
        double(self.cache.partition((64,))).sync()  # a run error, but the checker cannot know


class Hooked:
    """Attribute access runs user code: nothing is known about attributes."""

    def __init__(self) -> None:
        self.data = ct.zeros((128,), f32)

    def __getattr__(self, name: str) -> object:
        return None

    def twice(self) -> None:
        double(self.data.partition((64,))).sync()
        double(self.data.partition((64,))).sync()


with suppress(ct.CutileError):  # the run stops at the second partition of each
    Sometimes().twice()
with suppress(ct.CutileError):
    Hooked().twice()
