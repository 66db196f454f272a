"""Lowering `ct.gather`, `x.load_at` and `ct.scatter` to pointer tiles (`pointers.py`).

Ordering: a tensor that the kernel never scatters into is read with the entry token (reads
reorder freely). A tensor it scatters into gets a token of its own (keyed by its parameter
index, like a Mut slab's): its gathers, `load_at`s and scatters all chain through it, so within
a block a gather sees earlier scatters and a scatter waits for earlier gathers.
`load_at` is a gather of the index grid `offsets + iota` per axis.
An index whose range is known at compile time (ranges.py: an `arange`, a loop's `k * BK +
arange(BK)`, a `load_at` offset of 0) needs no check on an axis where it lies inside a static
extent (pointers.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..bytecode import Value
from ..bytecode.types import Scalar
from ..bytecode.types import TileType as BcTile
from ..dtypes import I64, DType
from ..ir import KernelIR, Op, walk
from ..ir import Value as IrValue
from .padding import along, run_from
from .pointers import element_pointers, masked_load, masked_store, widen
from .types import dims, dtype_of, tile_type

if TYPE_CHECKING:
    from .context import LowerCtx


def scatter_targets(kernel: KernelIR) -> frozenset[int]:
    """The parameters the kernel scatters into: their accesses chain one token each."""
    params = {id(p.value): i for i, p in enumerate(kernel.params)}
    return frozenset(params[id(o.operands[0])] for o in walk(kernel.body) if o.name == "scatter")


def token_key(L: LowerCtx, op: Op) -> int | None:
    """The token key an op of this module advances (None: it reads with the entry token)."""
    if op.name not in ("gather", "load_at", "scatter"):
        return None
    param = L.param_of(op.operands[0])
    return param if param in L.scattered else None


def _indices(L: LowerCtx, xs: list[IrValue]) -> list[tuple[Value, DType]]:
    return [(L.v(x), dtype_of(x.type)) for x in xs]


def _read(L: LowerCtx, op: Op, indices: list[tuple[Value, DType]],
          ranges: list[tuple[int, int] | None] | None = None) -> None:
    param = L.param_of(op.operands[0])
    out = tile_type(op.result.type)
    ptrs, mask = element_pointers(L.b, L.address(param), indices, out.shape, ranges or [])
    key = token_key(L, op)
    tile, tok = masked_load(L.b, ptrs, mask, op.attrs.get("padding", 0), L.token(key))
    if key is not None:
        L.set_token(key, tok)
    L.bind(op, [tile])


def gather(L: LowerCtx, op: Op) -> None:
    _read(L, op, _indices(L, op.operands[1:]), [L.ranges.of(x) for x in op.operands[1:]])


def load_at(L: LowerCtx, op: Op) -> None:
    """Axis a's index tile: offset_a + iota(n_a), shaped to lie along axis a."""
    shape = dims(tuple(op.attrs["shape"]))
    indices: list[tuple[Value, DType]] = []
    ranges: list[tuple[int, int] | None] = []
    for axis, (off, n) in enumerate(zip(op.operands[1:], shape, strict=True)):
        known = L.ranges.of(off)  # offset + iota, in i64: exact
        ranges.append(None if known is None else (known[0], known[1] + n - 1))
        # offset + iota in i64: a u32 offset near 2**32 must not wrap back into the tensor
        start, d = widen(L.b, L.v(off), dtype_of(off.type)), I64
        if n == 1:  # a unit axis: the offset itself, one scalar check
            unit = tuple(1 for _ in shape)
            indices.append((L.b.emit("reshape", [BcTile(Scalar.I64, unit)], start), d))
            continue
        indices.append((along(L.b, run_from(L.b, start, n), axis, shape, broadcast=False), d))
    _read(L, op, indices, ranges)


def scatter(L: LowerCtx, op: Op) -> None:
    y, *rest = op.operands
    param = L.param_of(y)
    mask_v = L.v(rest.pop()) if op.attrs.get("masked") else None
    values = L.v(rest[-1])
    t = values.type
    assert isinstance(t, BcTile)
    ptrs, mask = element_pointers(L.b, L.address(param), _indices(L, rest[:-1]), t.shape)
    if mask_v is not None:
        mask = L.b.emit("andi", [mask.type], mask, mask_v)
    L.set_token(param, masked_store(L.b, ptrs, values, mask, L.token(param)))
