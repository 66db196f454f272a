"""Abstract values of host code and the ownership state of one program point.

Objects (tensors, partitions) have ids; names bind values that refer to ids, and the state maps
each id to live / moved / escaped. Storage ids tie a tensor to its partitions (aliasing, leases).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from ...compiler.dtypes import DType
from ...compiler.frontend.params import KernelSignature
from ...compiler.launch.ops_api import Form
from ...compiler.launch.regions import Box, Frame, Layout
from ...diagnostics.diagnostic import Span

Dim = int | None  # a known extent, or None when the analysis cannot know it
Shape = tuple[Dim, ...]


@dataclass(frozen=True)
class Unknown:
    """Anything the analysis does not follow: using it never reports anything."""


UNKNOWN = Unknown()


@dataclass(frozen=True)
class Doubtful(Unknown):
    """An unknown value a launch may have moved: `k(p, p)` of an unseen `p` raises unless `p`
    holds no element, and then it takes `p`. A launch given it may raise (CT301), so the
    analysis does not follow that launch either."""


DOUBTFUL = Doubtful()


@dataclass(frozen=True)
class Unbound:
    """A name whose first binding raised (`p = t.partition(())`): using it raises too (a
    NameError), before anything else that statement does."""


UNBOUND = Unbound()


@dataclass(frozen=True)
class IntVal:
    value: int


@dataclass(frozen=True)
class LiteralVal:
    """Any other literal (`2.5`, `True`, `"f32"`, `None`): launches judge it as the runtime
    judges the value (`literal_facts`), e.g. `K=2.5` for a `Const[int]`."""

    value: object


@dataclass(frozen=True)
class HostArrayVal:
    """A NumPy array made in host code (numpy_arrays.py): its shape and NumPy dtype name where
    the arguments show them."""

    shape: tuple[int, ...] | None
    dtype: str | None


@dataclass(frozen=True)
class DTypeVal:
    dtype: DType


@dataclass(frozen=True)
class TupleVal:
    items: tuple[Value, ...]


@dataclass(frozen=True)
class ContainerVal(TupleVal):
    """A list literal, or a dict literal with string keys (`keys`), that the scope only indexes
    by literals (`outs[0]`, `bufs["z"]`): its elements are followed as names are."""

    keys: tuple[str, ...] | None = None

    def item(self, index: Value) -> Value | None:
        if self.keys is None:
            n = len(self.items)
            ok = isinstance(index, IntVal) and -n <= index.value < n
            return self.items[index.value] if ok and isinstance(index, IntVal) else None
        if isinstance(index, LiteralVal) and index.value in self.keys:
            return self.items[self.keys.index(index.value)]
        return None


@dataclass(frozen=True)
class SyncResult(TupleVal):
    """What a launch's `.sync()` returns: its positional arguments (unpacked: as many names)."""

    kernel: str = ""  # the launch's kernel, as messages name it
    form: Form = "sync"  # how it was waited for: `.sync()` or `await`, of a launch or a graph


@dataclass(frozen=True)
class TensorVal:
    obj: int
    storage: int
    dtype: DType | None
    shape: Shape | None  # None: rank unknown
    # a host view of its storage (views.py): its box there, or None when the bounds are unknown
    # (then no rule about its region reports anything); a whole tensor has view False
    frame: Frame | None = None
    view: bool = False
    # where its elements lie in the storage, when every extent is known (aliasing is decided
    # on these element ranges, as the runtime decides it on bytes)
    layout: Layout | None = None
    meta: bool = False  # ct.meta: a shape and dtype without memory


@dataclass(frozen=True)
class Unbounded:
    """The region of a view whose bounds are not known: the view `obj`'s (leases.py)."""

    obj: int


Region = Box | Unbounded | None  # a view's box, or None: the whole storage


@dataclass(frozen=True)
class PartitionVal:
    obj: int
    storage: int
    dtype: DType | None
    shape: Shape | None  # the partitioned tensor's shape
    tile: Shape | None  # the tile shape
    persistent: bool  # `blocks=` was given: the grid is not the tile grid
    site: Span  # the `.partition(...)` call
    frame: Frame | None = None  # the partitioned tensor's, when it is a view
    view: bool = False
    layout: Layout | None = None  # the partitioned tensor's
    meta: bool = False
    order: str | None = "ct.row_major"  # its tile order as the runtime shows it; None: unknown


@dataclass(frozen=True)
class OpVal:
    """A lazy launch, a `.then` chain or a captured graph."""

    op: int


@dataclass(frozen=True)
class Tuning:
    """What the configs of an autotuned kernel add to each of its launches (autotune.py)."""

    consts: frozenset[str] | None  # the Consts they pass (None: not known, so any)
    retiles: bool  # one re-partitions the Mut argument: the tile the kernel sees is not known


@dataclass(frozen=True)
class KernelVal:
    name: str
    sig: KernelSignature | None  # None when the signature has errors (reported by the frontend)
    tuning: Tuning | None = None  # an autotuned kernel's (`ct.autotune`)


@dataclass(frozen=True)
class ModuleVal:
    """An imported project module: `mod.kernel(...)` launches one of its kernels."""

    path: str


@dataclass(frozen=True)
class ClosureVal:
    """A lambda or nested def that the scope only ever calls (names.py `local_closures`): its
    outer names are looked at when it is called, not handed on when it is made."""

    node: ast.Lambda | ast.FunctionDef


Value = (Unknown | Unbound | IntVal | LiteralVal | DTypeVal | TupleVal | TensorVal
         | PartitionVal | OpVal | KernelVal | ModuleVal | ClosureVal | HostArrayVal)
Owned = TensorVal | PartitionVal


@dataclass(frozen=True)
class Live:
    pass


@dataclass(frozen=True)
class Moved:
    site: Span  # the expression that moved it
    how: str  # "by .partition()", "into a launch of 'add'"
    name: str  # the name it had where it was moved
    op: int | None = None  # the launch it was moved into
    loops: tuple[tuple[int, int], ...] = ()  # (loop, pass) of every enclosing loop at the move
    by_call: str | None = None  # moved inside this helper, at its call (helpers.py)


@dataclass(frozen=True)
class Escaped:
    """Given to code the analysis cannot see, or already reported: stay silent about it."""


@dataclass(frozen=True)
class Reported:
    """Moved, and a use of it already reported: every later use raises at run time too, and
    says nothing new (one root cause, one diagnostic). Nothing follows from such a use."""

    moved: Moved


ObjState = Live | Moved | Reported | Escaped
LIVE = Live()
ESCAPED = Escaped()


def join_obj(a: ObjState, b: ObjState) -> ObjState:
    """Silence wins over errors, and a move on any path wins over live (as in Rust)."""
    for silent in (Escaped, Reported):
        if isinstance(a, silent) or isinstance(b, silent):
            return a if isinstance(a, silent) else b
    if isinstance(a, Moved):
        return a
    return b


@dataclass
class State:
    env: dict[str, Value] = field(default_factory=dict)
    objs: dict[int, ObjState] = field(default_factory=dict)
    leases: dict[int, frozenset[int]] = field(default_factory=dict)  # storage -> reading ops
    pending: frozenset[int] = frozenset()  # ops created and not yet run on this path
    started: frozenset[int] = frozenset()  # ops enqueued on every path here (`.graph()`)

    def copy(self) -> State:
        return State(dict(self.env), dict(self.objs), dict(self.leases), self.pending,
                     self.started)

    def obj(self, obj: int) -> ObjState:
        return self.objs.get(obj, LIVE)


def move(st: State, obj: int, moved: Moved) -> None:
    """Marks a move, unless the value is already out of sight or reported (then it stays
    silent)."""
    if not isinstance(st.obj(obj), (Escaped, Reported)):
        st.objs[obj] = moved


def owned_in(value: Value) -> list[Owned]:
    if isinstance(value, (TensorVal, PartitionVal)):
        return [value]
    if isinstance(value, TupleVal):
        return [o for item in value.items for o in owned_in(item)]
    return []


def ops_in(value: Value) -> list[int]:
    if isinstance(value, OpVal):
        return [value.op]
    if isinstance(value, TupleVal):
        return [o for item in value.items for o in ops_in(item)]
    return []


def join_dim(a: Shape | None, b: Shape | None) -> Shape | None:
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(x if x == y else None for x, y in zip(a, b, strict=True))
