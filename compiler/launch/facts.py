"""What is known about one launch argument: the vocabulary the checker and the runtime share."""

from __future__ import annotations

import ast
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Literal

from ...diagnostics.diagnostic import Span
from ..dsl.markers import as_dtype
from ..dtypes import DType
from .regions import Box, boxes_intersect

Dim = int | None  # a known extent, or None when it is not known
ArgKind = Literal["tensor", "partition", "int", "float", "bool", "str", "dtype", "op", "tuple",
                  "other"]
# (storage, lo, hi): two arguments alias when their storages are equal and [lo, hi) overlap.
# The runtime gives (device, first byte, past last byte); the checker (storage id, 0, 1).
Extent = tuple[Hashable, int, int]
Region = tuple[Hashable, Box]  # a view's family and its box there (regions.py)


@dataclass(frozen=True, slots=True)
class MoveFacts:
    """An argument whose value was moved before the launch saw it."""

    how: str  # "by .partition()", "into a launch of 'add'"
    site: Span | None  # where it was moved
    name: str | None  # the name it had there; None: the name it is used under
    pending: str | None = None  # the label of the unsynced launch it was moved into
    in_loop: bool = False  # moved by an earlier iteration of a loop around the use
    within_call: bool = False  # moved while this call's own arguments were evaluated
    # reported at another call than the use's, under another name: a function that moved its
    # argument, called again, is reported at its later call (its argument there)
    use_at: Span | None = None
    use_name: str | None = None


@dataclass(frozen=True, slots=True)
class ArgFacts:
    """One argument. `kind` None: nothing is known (every rule about it stays silent)."""

    kind: ArgKind | None
    dtype: DType | None = None
    shape: tuple[Dim, ...] | None = None  # a tensor's shape; a partition's tensor's shape
    tile: tuple[Dim, ...] | None = None  # a partition's tile shape
    # the grid a partition gives (equal grids agree), if known: its launch grid, then its tile
    # grid padded to 3 axes (`partition_grid`)
    grid: tuple[int, ...] | None = None
    grid_text: str | None = None  # that grid in words (with blocks=..., for persistent ones)
    partitioned_at: Span | None = None  # the `.partition(...)` call, when known
    persistent: bool = False  # a partition with `blocks=`: each block owns several slabs
    value: object = None  # a number's or dtype's value, when known
    extent: Extent | None = None
    meta: bool = False  # a tensor without memory (ct.meta)
    moved: MoveFacts | None = None
    text: str | None = None  # how the runtime shows a value of kind "other"
    # a host view's element box in its family's frame: (family, ((lo, hi) per axis)); arguments
    # of one family alias only where the boxes intersect (bytes alone would make the column
    # halves of a row-major tensor overlap). None: compare extents only.
    region: Region | None = None
    strides: tuple[int, ...] | None = None  # a tensor's (a partition's tensor's) strides


def literal_facts(value: object) -> ArgFacts:
    """A plain Python value as a launch sees it (bool before int: True is no int here; a dtype
    or a dtype's name such as "f32"; anything else in words): the runtime's plain arguments and
    the checker's literals alike, so both judge `K=2.5` or `K="2"` the same way."""
    if isinstance(value, bool):
        return ArgFacts("bool", value=value)
    if isinstance(value, int):
        return ArgFacts("int", value=int(value))
    if isinstance(value, float):
        return ArgFacts("float", value=float(value))
    if isinstance(value, str):  # "f32" is a string a Const[DType] takes as that dtype too
        return ArgFacts("str", value=value, dtype=as_dtype(value))
    dtype = as_dtype(value)
    if dtype is not None:
        return ArgFacts("dtype", value=dtype)
    if isinstance(value, list):
        return ArgFacts("other", text=list_text(len(value)))
    if hasattr(value, "__dlpack__") or hasattr(value, "__array_interface__"):
        shape = getattr(value, "shape", None)
        return ArgFacts("other", text=array_text(
            type_name(value), getattr(value, "dtype", None),
            tuple(shape) if isinstance(shape, tuple | list) else None))  # torch.Size too
    return ArgFacts("other", text=f"{type(value).__name__} {value!r}")


def type_name(value: object) -> str:
    """Another library's object's type as messages name it: `numpy.ndarray`, `torch.Tensor`."""
    cls = type(value)
    return f"{cls.__module__.split('.')[0]}.{cls.__qualname__}"


# Another library's array where a tensor goes: its type, dtype and shape, never its values (a
# repr prints them all), and how to make it a tensor. The checker words what it sees this way.
WRAP_HINT = "wrap it with ct.from_numpy(...) (a copy) or ct.from_dlpack(...) (shares its memory)"


def array_text(type_name: str, dtype: object, shape: tuple[Dim, ...] | None,
               hint: bool = True) -> str:
    """`a numpy.ndarray (float32, shape (100,)); wrap it with ...` (what is known of it; the
    advice only where a tensor goes: `hint`)."""
    known = [str(dtype).replace("torch.", "")] if dtype is not None else []
    if shape is not None:
        known.append(f"shape {fmt_shape(shape)}")
    detail = f" ({', '.join(known)})" if known else ""
    return f"a {type_name}{detail}" + (f"; {WRAP_HINT}" if hint else "")


def list_text(length: int | None, hint: bool = True) -> str:
    """A list (its items are not shown), with the advice where a tensor goes (`hint`)."""
    items = "" if length is None else f" of {length} item{'s' if length != 1 else ''}"
    return f"a list{items}" + ("; wrap it with ct.from_numpy(np.array(...)) (a copy)" if hint
                               else "")


# the parameter kinds that take a number (a scalar's value or a Const)
NUMBER_KINDS = frozenset({"scalar", "const"})


def list_facts(length: int, kind: str | None) -> ArgFacts:
    """A list passed for a parameter of `kind` (None: `grid=`), by its length; the advice to
    wrap it only where a tensor goes. The run and the checker (a list display) word it alike."""
    tensor = kind is not None and kind not in NUMBER_KINDS
    return ArgFacts("other", text=list_text(length, hint=tensor))


# methods that hand the same elements on whole under a new handle: an argument `z.partition(t)`
# is named `z` in launch messages
_HANDING_ON = frozenset({"partition", "unpartition"})


def argument_name(expr: ast.expr, text: Callable[[ast.expr], str]) -> str:
    """How launch messages name an argument, on both sides alike: what a chain of
    `.partition(...)` / `.unpartition()` starts from (`z` for `z.partition((128,))`,
    `t[0:4]` for `t[0:4].partition((4, 4))`), as `text` gives an expression's source."""
    node = expr
    while (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
           and node.func.attr in _HANDING_ON):
        node = node.func.value
    return node.id if isinstance(node, ast.Name) else text(node)


def describe_kind(facts: ArgFacts) -> str | None:
    """What an argument is, in words; None when unknown (the rule stays silent)."""
    kind = facts.kind
    if kind == "tensor" and facts.dtype is not None and facts.shape is not None and None not in \
            facts.shape:
        return f"a {facts.dtype} tensor of shape {fmt_shape(facts.shape)}"
    if kind in ("int", "float", "bool") and facts.value is not None:
        return repr(facts.value)
    if kind == "str":
        return f"str {facts.value!r}"
    if kind == "partition" and facts.dtype is not None:
        return f"a partition of {facts.dtype}"
    return _KIND_WORDS.get(kind) if kind != "other" else facts.text


_KIND_WORDS: dict[ArgKind | None, str] = {
    "tensor": "a tensor", "partition": "a partition", "int": "a number", "float": "a number",
    "bool": "a bool", "dtype": "a dtype", "tuple": "a tuple",
    "op": "a pending launch (rebind its results with .sync() first)",
}


def fmt_shape(shape: tuple[object, ...]) -> str:
    parts = ["?" if d is None else str(d) for d in shape]
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


def overlaps(a: Extent | None, b: Extent | None) -> bool:
    return a is not None and b is not None and a[0] == b[0] and a[1] < b[2] and b[1] < a[2]


def args_overlap(a: ArgFacts, b: ArgFacts) -> bool:
    """Two arguments share elements: their extents overlap and, for two views of one family,
    their boxes share an element (regions.py: exact for strided views of one root, so
    `t[::2]` and `t[1::2]` do not overlap; conservative after `view(shape)`)."""
    if not overlaps(a.extent, b.extent):
        return False
    ra, rb = a.region, b.region
    if ra is None or rb is None or ra[0] != rb[0] or len(ra[1]) != len(rb[1]):
        return True
    return boxes_intersect(ra[1], rb[1])


def partition_grid(slab_grid: tuple[int, ...], launch: tuple[int, int, int], order: str,
                   blocks: int | None) -> tuple[tuple[int, ...], str]:
    """A partition's `ArgFacts.grid` and `grid_text`: two Mut arguments agree when both their
    launch grids (which block runs) and their tile grids (which tile it owns) agree. `order`
    as its repr shows it (`ct.row_major`, `ct.grouped(8)`). Tile grids compare with trailing
    1s dropped, at every rank: (2, 3, 5, 1) and (2, 3, 5) launch the same blocks on the same
    tiles, as (4, 1) and (4,) do."""
    core = _drop_trailing_ones(slab_grid)
    padded = (*core, 1, 1, 1)[:max(3, len(core))]
    text = str(padded)
    if blocks is not None:
        text += f" with blocks={blocks}"
    elif order != "ct.row_major":
        text += f" in {order} order"
    return (*launch, *padded), text


def _drop_trailing_ones(grid: tuple[int, ...]) -> tuple[int, ...]:
    end = len(grid)
    while end > 0 and grid[end - 1] == 1:
        end -= 1
    return grid[:end]
