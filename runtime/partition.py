"""`Partition`: a tensor split into disjoint slabs, the argument of a `Mut` parameter. A slab
has any positive extents; the kernel computes on power-of-two tiles inside it.

Grid = ceil(shape / tile) per axis. Which block owns which tile, and so the launch grid, is
`compiler/tiling.py`'s `Tiling` (the one definition the interpreter and the lowering use too):
the tile grid as 3-D for row_major, a 1-D grid of all tiles for another order, (blocks, 1, 1)
for a persistent partition (`blocks=`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from numpy.typing import NDArray

from ..compiler.dsl.orders import TileOrder
from ..compiler.dtypes import DType
from ..compiler.launch.tiles import (
    Problem,
    as_tile,
    blocks_problem,
    grid_problem,
    order_problem,
    partition_tile_problem,
    tile_kind_problem,
    tile_rank_problem,
)
from ..compiler.tiling import Tiling
from ..diagnostics import messages as msg
from ..diagnostics.errors import LaunchError
from .errors import launch_error
from .memo import Memo, exact_ints
from .ownership import Owned, State, check_usable
from .sites import Site, argument_span, caller_site, receiver_name

if TYPE_CHECKING:
    from .tensor import Tensor

_new = object.__new__
_EXCLUSIVE, _MOVED = State.EXCLUSIVE, State.MOVED


class Partition(Owned):
    """A tensor moved into tiles of `tile` shape. `unpartition()` moves it back out. Its
    ownership record is its own (`Owned`'s slots)."""

    __slots__ = ("__weakref__", "_base", "_kid", "_region", "_tensor", "blocks", "grid", "order",
                 "tile", "tiling")

    def __init__(self, tensor: Tensor, tile: tuple[int, ...], order: TileOrder,
                 blocks: int | None, tiling: Tiling | None = None) -> None:
        self._tensor = tensor
        self.tile = tile
        self.order = order
        self.blocks = blocks
        if tiling is None:
            grid = tuple(-(-n // t) for n, t in zip(tensor._shape, tile, strict=True))
            tiling = Tiling(grid, order, blocks)
        self.grid = tiling.tile_grid
        self.tiling = tiling
        self._state = State.LIVE  # Owned.__init__, inlined
        self._how = ""
        self._site = None
        self._op = None
        self._leases = None
        self._base = tensor._base  # cached for launches, as on Tensor
        self._kid = 0
        self._region = tensor._region  # a view's box (views.py), checked at launch

    @property
    def shape(self) -> tuple[int, ...]:
        self._use()
        return self._tensor._shape

    @property
    def dtype(self) -> DType:
        self._use()
        return self._tensor._dtype

    @property
    def launch_grid(self) -> tuple[int, int, int]:
        return self.tiling.grid()

    @property
    def num_tiles(self) -> int:
        return self.tiling.tile_count

    def unpartition(self) -> Tensor:
        """Moves the tensor back out of the partition."""
        site = caller_site()
        self._use(site)
        t = self._tensor
        new = t._derive(0, t._shape, t._strides, t._region)
        new._kid = t._kid  # the same descriptor (plans.handle_id)
        self._move("by .unpartition()", site)
        return new

    def numpy(self) -> NDArray[Any]:
        """A host copy of the whole tensor (the partition stays usable)."""
        self._use()
        return self._tensor.numpy()

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> NDArray[Any]:
        """`np.asarray(p)`: what `numpy()` returns, as a tensor's `__array__` has it."""
        return host_array(self.numpy, dtype, copy, "partition", "p")

    def _use(self, site: Site | None = None) -> None:
        if self._state is _MOVED:
            site = site or caller_site()
            check_usable(self, receiver_name(site, "the partition"), site)

    def _handoff(self) -> Partition:
        """A new handle for the same partition, exclusively leased (a launch takes it). Of its
        ownership record only the state and the leases are set: the move fields are read only
        once a move has set them (`_move`, or the launch's inlined move)."""
        new = _new(Partition)  # same tensor and tiling: nothing to recompute
        new._tensor, new.tile, new.order, new.blocks = self._tensor, self.tile, self.order, \
            self.blocks
        new.grid, new.tiling, new._base, new._kid = self.grid, self.tiling, self._base, self._kid
        new._region = self._region
        new._state, new._leases = _EXCLUSIVE, None
        return new

    def __repr__(self) -> str:
        if self._state is _MOVED:
            return f"<cutile.Partition moved {self._how}>"
        return (f"cutile.Partition(shape={self._tensor._shape}, tile={self.tile}, "
                f"order={self.order!r}, grid={self.grid}"
                + (f", blocks={self.blocks})" if self.blocks is not None else ")"))


def host_array(read: Callable[[], NDArray[Any]], dtype: Any, copy: bool | None, what: str,
               name: str) -> NDArray[Any]:
    """NumPy's `__array__` of a handle whose `numpy()` is `read`: always a copy, so `copy=False`
    is a ValueError (as NumPy 2 asks), converted to `dtype` if given."""
    if copy is False:
        raise ValueError(f"a cutile {what} cannot be viewed as a NumPy array without a copy; "
                         f"use np.asarray({name}) or {name}.numpy()")
    out = read()  # its checks find the user's line past cutile's frames
    return out if dtype is None else out.astype(dtype, copy=False)


def make_partition(t: Tensor, tile_shape: tuple[int, ...] | int, order: TileOrder,
                   blocks: int | None, site: Site) -> Partition:
    given = as_tile(tile_shape)
    if given is None:  # None, a float, a string: not a shape (iterating it would be a TypeError)
        raise _arg_error(tile_kind_problem(tile_shape), site, 0, "tile_shape")
    tile = cast(tuple[int, ...], given)  # checked next: positive ints
    layout = _layout(t, tile, order, blocks)
    tiling = None if layout is None else _valid.get(layout)
    if tiling is None:
        tiling = _validate(t, tile, order, blocks, site)
        if layout is not None:
            _valid.keep(layout, tiling)
    inner = t._moved_copy("by .partition()", site)
    return Partition(inner, tile, order, blocks, tiling)


# layouts `_validate` accepted -> their tiling: what it judges is the layout alone (shape,
# strides, tile, order, blocks), so a layout partitioned again is not judged again
_valid: Memo[Tiling] = Memo()


def _layout(t: Tensor, tile: tuple[int, ...], order: object, blocks: object
            ) -> tuple[Any, ...] | None:
    """The key of `_valid`; None unless every value is of the exact type a valid partition
    has (1.0 and True hash as 1 does, so they must not find 1's entry)."""
    if type(order) is not TileOrder or not exact_ints(tile) or not (
            blocks is None or type(blocks) is int):
        return None
    return (t._shape, t._strides, tile, order, blocks)


def _arg_error(problem: Problem, site: Site, index: int, key: str) -> LaunchError:
    """A problem of one argument of `t.partition(...)` (positional `index` or keyword `key`),
    at that argument, where the checker reports it."""
    call = site.call()
    at: int | str = index if call is not None and len(call.args) > index else key
    return launch_error(problem[0], argument_span(site, at), **problem[1])


def _bad(detail: str, site: Site) -> LaunchError:
    return launch_error(msg.BAD_PARTITION, site, detail=detail)


def _validate(t: Tensor, tile: tuple[int, ...], order: TileOrder, blocks: int | None,
              site: Site) -> Tiling:
    """The partition's tiling, or the error its layout is."""
    rank = len(t._shape)
    # the checker's rules too (compiler/launch/tiles.py), at the tile shape as the checker
    # reports them; here every extent must be known
    problem = partition_tile_problem(tile, unknown_ok=False)
    if problem is None and len(tile) != len(t._shape):  # the name read from source only then
        problem = tile_rank_problem(tile, t._shape, receiver_name(site, "the tensor"))
    if problem is not None:
        raise _arg_error(problem, site, 0, "tile_shape")
    problem = order_problem(order, rank)
    if problem is not None:
        raise launch_error(problem[0], site, **problem[1])
    problem = blocks_problem(blocks)
    if problem is not None:
        raise _arg_error(problem, site, 2, "blocks")
    if any(s == 0 and n > 1 for s, n in zip(t._strides, t._shape, strict=True)):
        # a broadcast import (stride 0): its elements share memory, so no block owns one
        raise _bad(f"the tensor has a stride 0 (strides {t._strides}, shape {t._shape}): its "
                   "elements share memory and cannot be written by disjoint blocks; copy it "
                   "first", site)
    grid = tuple(-(-n // d) for n, d in zip(t._shape, tile, strict=True))
    # the launch grid, folded or linear as the order has it
    tiling = Tiling(grid, order, blocks)
    problem = grid_problem(grid, tiling.grid())
    if problem is not None:
        raise launch_error(problem[0], site, **problem[1])
    return tiling
