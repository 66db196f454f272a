"""Running one typed-IR op with NumPy (control flow is in program.py).

Most ops carry their NumPy meaning in their definition (`compiler/ops`, `IrOp.interp`); this file
implements the rest, which need the runtime: memory, block coordinates, printing and failing."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...compiler.ir import Op
from ...compiler.ops.defs import IR_OPS
from ...compiler.types import PartitionType, TileType
from ...diagnostics import messages as msg
from ...diagnostics.errors import error_for
from . import gathers
from .memory import PartitionRef, accumulate, load, slab, store, tiling_of
from .numeric import bits_of, fit, from_bits


@dataclass
class Block:
    """The tile block being interpreted."""

    coords: tuple[int, int, int]
    grid: tuple[int, int, int]


Impl = Callable[[Op, list[Any], Block], list[Any]]
OPS: dict[str, Impl] = {}  # the ops whose definition leaves the interpreter face to the runtime


def run_op(o: Op, args: list[Any], blk: Block) -> list[Any]:
    impl = OPS.get(o.name)
    if impl is not None:
        return impl(o, args, blk)
    defn = IR_OPS[o.name]
    assert defn.interp is not None, o.name
    outs = [r.type for r in o.results]
    values = defn.interp(args, o.attrs, outs)
    return [fit(v, t.dtype) if isinstance(t, TileType) else v
            for v, t in zip(values, outs, strict=True)]


def _out(op: Op, i: int = 0) -> TileType:
    t = op.results[i].type
    assert isinstance(t, TileType)
    return t


def _scalar(v: Any) -> int:
    return int(np.asarray(v).reshape(()))


def op(*names: str) -> Callable[[Impl], Impl]:
    def deco(fn: Impl) -> Impl:
        for name in names:
            OPS[name] = fn
        return fn
    return deco


@op("block_id")
def _block_id(o: Op, args: list[Any], blk: Block) -> list[Any]:
    return [np.int32(blk.coords[o.attrs["axis"]])]


@op("num_blocks")
def _num_blocks(o: Op, args: list[Any], blk: Block) -> list[Any]:
    return [np.int32(blk.grid[o.attrs["axis"]])]


@op("tile_index")
def _tile_index(o: Op, args: list[Any], blk: Block) -> list[Any]:
    return [np.int32(i) for i in tiling_of(args[0]).tile_of_block(blk.coords)]


@op("tile_coords")
def _tile_coords(o: Op, args: list[Any], blk: Block) -> list[Any]:
    return [np.int32(i) for i in tiling_of(args[0]).coords(_scalar(args[1]))]


@op("tiles_start_step")
def _tiles_start_step(o: Op, args: list[Any], blk: Block) -> list[Any]:
    return [np.int32(i) for i in tiling_of(args[0]).tiles_start_step(blk.coords)]


@op("tile_count")
def _tile_count(o: Op, args: list[Any], blk: Block) -> list[Any]:
    return [np.int32(tiling_of(args[0]).tile_count)]


@op("partition")
def _partition(o: Op, args: list[Any], blk: Block) -> list[Any]:
    return [PartitionRef(args[0], tuple(o.attrs["shape"]))]


@op("num_tiles")
def _num_tiles(o: Op, args: list[Any], blk: Block) -> list[Any]:
    p: PartitionRef = args[0]
    axis = o.attrs["axis"]
    return [np.int32(-(-p.tensor.data.shape[axis] // p.tile[axis]))]


@op("tensor_extent")
def _tensor_extent(o: Op, args: list[Any], blk: Block) -> list[Any]:
    return [np.int32(args[0].data.shape[o.attrs["axis"]])]


@op("load")
def _load(o: Op, args: list[Any], blk: Block) -> list[Any]:
    src, *index = args
    ref = src.tensor if isinstance(src, PartitionRef) else src
    shape = tuple(o.attrs["shape"])
    padding = o.attrs.get("padding", 0)
    return [load(ref, tuple(_scalar(i) for i in index), shape, padding)]


@op("store")
def _store(o: Op, args: list[Any], blk: Block) -> list[Any]:
    z, tile, *index = args
    store(z, tuple(_scalar(i) for i in index), np.asarray(tile))
    return []


@op("slab_load")
def _slab_load(o: Op, args: list[Any], blk: Block) -> list[Any]:
    src, z, *index = args
    rank = len(index) // 2
    part = slab(z, tuple(_scalar(i) for i in index[:rank]), src)
    inner = tuple(_scalar(i) for i in index[rank:])
    return [load(part, inner, tuple(o.attrs["shape"]), o.attrs.get("padding", 0))]


@op("slab_store")
def _slab_store(o: Op, args: list[Any], blk: Block) -> list[Any]:
    z, tile, *index = args
    rank = len(index) // 2
    part = slab(z, tuple(_scalar(i) for i in index[:rank]))
    store(part, tuple(_scalar(i) for i in index[rank:]), np.asarray(tile))
    return []


@op("slab_extent")
def _slab_extent(o: Op, args: list[Any], blk: Block) -> list[Any]:
    z, *index = args
    return [np.int32(slab(z, tuple(_scalar(i) for i in index)).data.shape[o.attrs["axis"]])]



@op("bitcast")
def _bitcast(o: Op, args: list[Any], blk: Block) -> list[Any]:
    """The same bits as another dtype (the narrow floats' bits are the runtime's business)."""
    return [from_bits(bits_of(args[0], o.attrs["src"]), o.attrs["dtype"])]


@op("gather")
def _gather(o: Op, args: list[Any], blk: Block) -> list[Any]:
    return [gathers.gather(args[0], args[1:], o.attrs.get("padding", 0))]


@op("load_at")
def _load_at(o: Op, args: list[Any], blk: Block) -> list[Any]:
    src, *offsets = args
    return [gathers.load_at(src, [_scalar(i) for i in offsets], tuple(o.attrs["shape"]),
                            o.attrs.get("padding", 0))]


@op("scatter")
def _scatter(o: Op, args: list[Any], blk: Block) -> list[Any]:
    y, *rest = args
    mask = rest.pop() if o.attrs.get("masked") else None
    gathers.scatter(y, rest[:-1], rest[-1], mask)
    return []


@op("acc_tile")
def _acc_tile(o: Op, args: list[Any], blk: Block) -> list[Any]:
    """`acc.add(t, index)`: the tile's elements at their places; those outside are dropped."""
    acc, tile, *index = args
    tile = np.asarray(tile)
    origin = [_scalar(i) * s for i, s in zip(index, tile.shape, strict=True)]
    grids = np.meshgrid(*(np.arange(s, dtype=np.int64) + o
                          for o, s in zip(origin, tile.shape, strict=True)), indexing="ij")
    accumulate(acc, o.attrs["op"], tuple(grids), tile)
    return []


@op("acc_scatter")
def _acc_scatter(o: Op, args: list[Any], blk: Block) -> list[Any]:
    """`acc.add_at(indices, values)` (operands already broadcast to one shape)."""
    acc, values, *indices = args
    accumulate(acc, o.attrs["op"], tuple(np.asarray(i, dtype=np.int64) for i in indices),
               np.asarray(values))
    return []


@op("printf")
def _printf(o: Op, args: list[Any], blk: Block) -> list[Any]:
    values = tuple(np.asarray(a).item() if np.ndim(a) == 0 else a for a in args)
    print(o.attrs["format"] % values if values else o.attrs["format"], end="")
    return []


@op("assert")
def _assert(o: Op, args: list[Any], blk: Block) -> list[Any]:
    if not np.all(args[0]):
        raise error_for([msg.DEVICE_ASSERT.at(o.span, block=blk.coords,
                                              message=o.attrs.get("message", ""))])
    return []


def is_partition_type(o: Op) -> bool:
    return bool(o.results) and isinstance(o.results[0].type, PartitionType)
