"""NumPy meanings of the typed IR's ops, dispatched by op name (control flow is in program.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...compiler import messages as msg
from ...compiler.errors import error_for
from ...compiler.ir import Op
from ...compiler.types import PartitionType, TileType
from .memory import PartitionRef, load, store, tiling_of
from .numeric import Array, fit


@dataclass
class Block:
    """The tile block being interpreted."""

    coords: tuple[int, int, int]
    grid: tuple[int, int, int]


Impl = Callable[[Op, list[Any], Block], list[Any]]
OPS: dict[str, Impl] = {}


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


def elementwise(name: str, fn: Callable[..., Any]) -> None:
    OPS[name] = lambda o, args, blk: [fit(fn(*args), _out(o).dtype)]


def _int_or_float(int_fn: Callable[..., Any], float_fn: Callable[..., Any]) -> Callable[..., Any]:
    return lambda a, b: (float_fn if a.dtype.kind == "f" else int_fn)(a, b)


_ELEMENTWISE: dict[str, Callable[..., Any]] = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
    "floordiv": _int_or_float(np.floor_divide, lambda a, b: np.floor(a / b)),
    "mod": np.mod, "pow": np.power, "and": np.bitwise_and, "or": np.bitwise_or,
    "xor": np.bitwise_xor, "shl": np.left_shift, "shr": np.right_shift,
    "maximum": np.maximum, "minimum": np.minimum, "eq": np.equal, "ne": np.not_equal,
    "lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
    "neg": np.negative, "abs": np.abs, "exp": np.exp, "exp2": np.exp2, "log": np.log,
    "log2": np.log2, "sqrt": np.sqrt, "rsqrt": lambda x: 1 / np.sqrt(x), "sin": np.sin,
    "cos": np.cos, "tanh": np.tanh, "floor": np.floor, "ceil": np.ceil,
    "invert": lambda x: np.logical_not(x) if x.dtype == np.bool_ else np.invert(x),
    "not": np.logical_not, "select": np.where,
}
for _name, _fn in _ELEMENTWISE.items():
    elementwise(_name, _fn)


@op("constant")
def _constant(o: Op, args: list[Any], blk: Block) -> list[Any]:
    return [fit(o.attrs["value"], _out(o).dtype)]


@op("astype")
def _astype(o: Op, args: list[Any], blk: Block) -> list[Any]:
    return [fit(args[0], _out(o).dtype)]


@op("iota")
def _iota(o: Op, args: list[Any], blk: Block) -> list[Any]:
    t = _out(o)
    return [fit(np.arange(int(t.shape[0])), t.dtype)]  # type: ignore[arg-type]


@op("reshape")
def _reshape(o: Op, args: list[Any], blk: Block) -> list[Any]:
    return [np.reshape(args[0], o.attrs["shape"]).copy()]


@op("broadcast")
def _broadcast(o: Op, args: list[Any], blk: Block) -> list[Any]:
    return [np.broadcast_to(args[0], o.attrs["shape"]).copy()]


@op("permute")
def _permute(o: Op, args: list[Any], blk: Block) -> list[Any]:
    axes = o.attrs.get("axes") or tuple(reversed(range(np.ndim(args[0]))))
    return [np.transpose(args[0], axes).copy()]


@op("cat")
def _cat(o: Op, args: list[Any], blk: Block) -> list[Any]:
    return [np.concatenate(args, axis=o.attrs["axis"])]


_REDUCE: dict[str, Callable[..., Any]] = {
    "sum": np.sum, "max": np.max, "min": np.min, "prod": np.prod}


@op("reduce")
def _reduce(o: Op, args: list[Any], blk: Block) -> list[Any]:
    x: Array = args[0]
    wide = x.astype(np.float32) if x.dtype == np.float16 else x  # narrow floats add in f32
    out = _REDUCE[o.attrs["kind"]](wide, axis=o.attrs["axis"], keepdims=o.attrs["keepdims"])
    return [fit(out, _out(o).dtype)]


@op("scan")
def _scan(o: Op, args: list[Any], blk: Block) -> list[Any]:
    x: Array = args[0]
    wide = x.astype(np.float32) if x.dtype == np.float16 else x
    return [fit(np.cumsum(wide, axis=o.attrs["axis"]), _out(o).dtype)]


@op("mma")
def _mma(o: Op, args: list[Any], blk: Block) -> list[Any]:
    a, b, acc = args
    wide = np.int64 if a.dtype.kind in "iu" else (np.float64 if a.dtype == np.float64
                                                  else np.float32)
    total = np.matmul(a.astype(wide), b.astype(wide)) + acc.astype(wide)
    return [fit(total, _out(o).dtype)]


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
