"""Typed kernel IR -> a Tile IR module, op by op.

Views, tile grids and other per-kernel setup go into a prologue that precedes the body, so they
dominate every use however deeply nested. Memory ordering: loads of read-only tensors use the
entry token (they may reorder freely); every access to a Mut slab is chained through that slab's
token, and printf calls through one print token. A token that changes inside a loop or `if` is
carried through it like any other loop-carried value. The op families with modules of their own
(gathers.py, atomics.py, loops.py) get the lowerer as a `context.LowerCtx`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from ..bytecode import Builder, Module, Value, entry
from ..bytecode.attrs import CmpPredicate, Hints
from ..bytecode.ir import Block as BcBlock
from ..bytecode.types import TOKEN, Padding, PartitionViewType, Scalar, TensorViewType
from ..bytecode.types import TileType as BcTile
from ..dsl.orders import TileOrder, row_major
from ..dtypes import I32 as _I32
from ..ir import Block, KernelIR, Op
from ..ir import Value as IrValue
from ..kernel_options import entry_hints, merged, opt_level
from ..specialization import MutFacts, Specialization, TensorFacts
from ..types import PartitionType, TensorType
from . import arith, gathers, loops
from .abi import EntryABI, EntrySlot, ViewParts, entry_abi, make_views, range_checks
from .atomics import lower_acc
from .contract import plan
from .padding import along, pad_outside, run_from, splat, view_padding
from .pointers import TensorAddress, element_pointers
from .ranges import Ranges
from .types import I1_TILE, I32_TILE, LowerError, OpCtx, dims, dtype_of, scalar, tile_type

_MEMORY = ("load", "store", "slab_load", "slab_store")
PRINT = -1  # the token key of printf ordering (Mut slabs use their parameter index)


@dataclass
class Lowered:
    module: Module
    entry: str
    slots: tuple[EntrySlot, ...]
    opt_level: int = 3


@dataclass
class _Loop:
    keys: list[int]
    restart: list[Value]  # what a `continue` that never runs passes (the iteration's own args)
    # a `for` lowered as a `loop` (loops.py): its induction variable and step, which each
    # `continue` advances after checking that it stays within i32
    induction: tuple[Value, Value] | None = None


@dataclass
class _Scope:
    """Which token keys the innermost `if` yields and the innermost loop carries."""

    if_keys: list[int] = field(default_factory=list)
    loop: _Loop | None = None


def lower(kernel: KernelIR, spec: Specialization) -> Lowered:
    return _Lowerer(kernel, spec).run()


def _memory_hints(attrs: dict[str, Any]) -> dict[str, Any]:
    """A load's `latency` / `allow_tma` (compiler/ops/load_hints.py) as load_view_tko's
    optimization hints; nothing when neither was given (the op's bytes stay as before)."""
    latency, tma = attrs.get("latency"), attrs.get("allow_tma")
    if latency is None and tma is None:
        return {}
    return {"optimization_hints": Hints.memory("default", allow_tma=tma, latency=latency)}


class _Lowerer:
    def __init__(self, kernel: KernelIR, spec: Specialization) -> None:
        self.k = kernel
        self.spec = spec
        self.abi: EntryABI = entry_abi(kernel, spec)
        self.module = Module()
        self.options = merged(kernel.options, spec.hints)
        fn, self.pro = entry(self.module, kernel.name, self.abi.types,
                             hints=entry_hints(self.options))
        self.fn = fn
        self.body = BcBlock([])
        self.b = Builder(self.body)
        self.vals: dict[IrValue, Value] = {}
        self.partitions: dict[IrValue, tuple[int, tuple[int, ...]]] = {}
        self.pviews: dict[tuple[int, tuple[int, ...], Padding | None], Value] = {}
        self.extents: dict[int, list[Value]] = {}  # tensor parameter -> its extents (i32)
        self.grids: dict[int, list[Value]] = {}  # Mut parameter -> its tile grid
        self.tile_grids: dict[tuple[int, tuple[int, ...]], list[Value]] = {}
        self.tok: dict[int, Value] = {}
        self.addresses: dict[int, TensorAddress] = {}  # pointer-tile access (address())
        self.scattered = gathers.scatter_targets(kernel)
        self.ranges = Ranges(kernel)  # compile-time index ranges (gathers' bounds checks)
        self.scope = _Scope()
        self.contract = plan(kernel.body)
        self.range_check_numbers = {op: i for i, op in enumerate(range_checks(kernel))}
        self.status: Value | None = (None if self.abi.status is None
                                     else self.fn.params[self.abi.status])

    # -- driver --------------------------------------------------------------------------
    def run(self) -> Lowered:
        pro = self.pro
        self.entry_token = pro.emit("make_token", [TOKEN])
        self.parts: dict[int, ViewParts] = {}
        self.views = make_views(pro, self.abi, self.fn.params, self.parts)
        for i, p in enumerate(self.k.params):
            if i in self.abi.scalars:
                self.vals[p.value] = self.fn.params[self.abi.scalars[i]]
        self.block_ids = pro.block_ids()
        self.num_blocks = pro.op("get_num_tile_blocks", [I32_TILE] * 3).results
        if self.spec.entry_wait:  # `kernel.dependent()`: the wait before anything else
            _pdl_wait(self, None)
        self._block(self.k.body)
        self.b.op("return", [])
        self.fn.body.ops += self.body.ops  # prologue first: it dominates the whole body
        return Lowered(self.module, self.k.name, tuple(self.abi.slots), opt_level(self.options))

    def _block(self, block: Block) -> None:
        for op in block.ops:
            self._op(op)

    def v(self, x: IrValue) -> Value:
        got = self.vals.get(x)
        if got is None:
            raise LowerError(f"value {x} is used before it is defined")
        return got

    def bind(self, op: Op, values: Iterable[Value]) -> None:
        for r, v in zip(op.results, values, strict=True):
            self.vals[r] = v

    # -- memory ----------------------------------------------------------------------------
    def pview(self, param: int, tile: tuple[int, ...], pad: Padding | None = Padding.ZERO
              ) -> Value:
        key = (param, tile, pad)
        pv = self.pviews.get(key)
        if pv is None:
            view = self.views[param]
            vt = view.type
            assert isinstance(vt, TensorViewType)
            pt = PartitionViewType(tile, vt, tuple(range(len(tile))), pad)
            pv = self.pviews[key] = self.pro.emit("make_partition_view", [pt], view)
        return pv

    def param_of(self, x: IrValue) -> int:
        for i, p in enumerate(self.k.params):
            if p.value is x:
                return i
        raise LowerError(f"{x} is not a kernel parameter")

    def _source(self, src: IrValue, shape: tuple[int, ...], pad: Padding = Padding.ZERO
                ) -> tuple[Value, int | None]:
        """(partition view, Mut token key or None) for a load/store source."""
        if isinstance(src.type, PartitionType):
            param, tile = self.partitions[src]
            return self.pview(param, tile, pad), None
        param = self.param_of(src)
        mut = isinstance(src.type, TensorType) and src.type.mutable
        return self.pview(param, shape, pad), (param if mut else None)

    def _extents(self, src: IrValue) -> list[Value]:
        """The extents of a load source's tensor, read once in the prologue."""
        param = self.partitions[src][0] if isinstance(src.type, PartitionType) else \
            self.param_of(src)
        if param not in self.extents:
            view = self.views[param]
            assert isinstance(view.type, TensorViewType)
            self.extents[param] = self.pro.op("get_tensor_shape", [I32_TILE] * len(
                view.type.shape), view).results
        return self.extents[param]

    def index(self, xs: Sequence[IrValue]) -> list[Value]:
        out = []
        for x in xs:
            v = self.v(x)
            d = dtype_of(x.type)
            out.append(v if scalar(d) == scalar(_I32) else arith.index_i32(self.b, v, d))
        return out

    def token(self, key: int | None) -> Value:
        return self.entry_token if key is None else self.tok.get(key, self.entry_token)

    def set_token(self, key: int, token: Value) -> None:
        self.tok[key] = token

    def address(self, param: int) -> TensorAddress:
        """The parameter's address, built once in the prologue."""
        got = self.addresses.get(param)
        if got is None:
            got = self.addresses[param] = TensorAddress.of(self.pro, self.abi, self.fn.params,
                                                           self.views[param], param)
        return got

    def load(self, op: Op) -> None:
        src, *idx = op.operands
        out = tile_type(op.result.type)
        value = op.attrs.get("padding")
        mode = view_padding(value)
        view, key = self._source(src, out.shape, mode or Padding.ZERO)
        index = self.index(idx)
        tile, tok = self.b.op("load_view_tko", [out, TOKEN], view, index, self.token(key),
                              **_memory_hints(op.attrs)).results
        if key is not None:
            self.tok[key] = tok
        if mode is None:  # a padding no view mode gives (a tile index outside: all of it)
            assert isinstance(value, (int, float, bool))
            extents = self._extents(src)
            safe, inside = self._inside(index, extents, out.shape)
            tile = pad_outside(self.b, tile, safe, extents, value, inside)
        self.vals[op.result] = tile

    def store(self, op: Op) -> None:
        z, value, *idx = op.operands
        t = self.v(value)
        assert isinstance(t.type, BcTile)
        view, key = self._source(z, t.type.shape)
        tok = self.b.emit("store_view_tko", [TOKEN], t, view, self.index(idx), self.token(key))
        if key is not None:
            self.tok[key] = tok

    # -- tile mapping (compiler/tiling.py, as arithmetic on i32 scalars) -----------------
    def _mut(self, z: IrValue) -> tuple[int, MutFacts]:
        i = self.param_of(z)
        f = self.spec.args[i] if i < len(self.spec.args) else None
        if isinstance(f, MutFacts):
            return i, f
        assert isinstance(z.type, TensorType)
        return i, MutFacts(_no_facts(z.type), dims(z.type.shape))

    def grid(self, z: IrValue) -> list[Value]:
        i, f = self._mut(z)
        if i not in self.grids:
            assert isinstance(z.type, TensorType)
            if all(d & (d - 1) == 0 for d in f.tile):  # a slab that is one tile: its view's
                pv = self.pview(i, f.tile)
                self.grids[i] = self.pro.op("get_index_space_shape",
                                            [I32_TILE] * z.type.rank, pv).results
            else:  # ceil(extent / slab) per axis, as runtime/partition.py
                self.grids[i] = [self._cdiv(self.pro, n, self.pro.constant(s, I32_TILE))
                                 for n, s in zip(self._extents(z), f.tile, strict=True)]
        return self.grids[i]

    @staticmethod
    def _cdiv(b: Builder, n: Value, d: Value) -> Value:
        """ceil(n / d) for n >= 0, d > 0."""
        one = b.constant(1, I32_TILE)
        top = b.emit("subi", [I32_TILE], b.emit("addi", [I32_TILE], n, d), one)
        return b.emit("divi", [I32_TILE], top, d, signedness=arith.sign(_I32))

    # -- slabs larger than a tile ---------------------------------------------------------
    # Never a view made per block: a tensor view whose base or extents depend on the block
    # makes tileiras build a TMA descriptor in global scratch memory inside the kernel
    # (compute-sanitizer reports those writes). A tile whose slab is aligned to it, or spans
    # the whole axis, goes through the tensor's own partition view (the slab's edge is then a
    # tile or tensor edge); any other slab is reached through masked pointer tiles.
    def _slab(self, z: IrValue, s: list[Value]) -> tuple[int, MutFacts, list[Value], list[Value]]:
        """The slab at slab coordinates `s`: its parameter, facts, origin and clipped extents."""
        i, f = self._mut(z)
        b = self.b
        origin = [b.emit("muli", [I32_TILE], c, b.constant(n, I32_TILE))
                  for c, n in zip(s, f.tile, strict=True)]
        extents = [b.emit("mini", [I32_TILE], b.constant(n, I32_TILE),
                          b.emit("subi", [I32_TILE], e, o), signedness=arith.sign(_I32))
                   for n, e, o in zip(f.tile, self._extents(z), origin, strict=True)]
        return i, f, origin, extents

    def _slab_tile(self, z: IrValue, idx: list[IrValue], tile: tuple[int, ...]) -> _SlabTile:
        rank = len(idx) // 2
        i, f, origin, extents = self._slab(z, self.index(idx[:rank]))
        safe, inside = self._inside(self.index(idx[rank:]), extents, tile)
        by_view = all(n % t == 0 or w for n, t, w in
                      zip(f.tile, tile, f.whole or (False,) * rank, strict=True))
        return _SlabTile(i, f, origin, extents, safe, inside, tile, by_view)

    def _global_index(self, st: _SlabTile, coords: list[Value]) -> list[Value]:
        """Tile indices in the tensor's own partition view (only when `st.by_view`)."""
        b = self.b
        out = []
        for c, j, n, t in zip(coords, st.safe, st.f.tile, st.tile, strict=True):
            if n % t:  # the slab spans the whole axis: its origin is 0
                out.append(j)
            else:
                first = b.emit("muli", [I32_TILE], c, b.constant(n // t, I32_TILE))
                out.append(b.emit("addi", [I32_TILE], first, j))
        return out

    def _pointers(self, st: _SlabTile, src: IrValue) -> tuple[Value, Value]:
        """Pointer tile into `src` at each element of the in-slab tile, and the mask of those
        inside the slab and inside `src` (the index was clamped first, so nothing here wraps
        into range). Reading z's own slab, its extents are clipped at z's edge; another tensor
        read over the slab is masked at the slab's extents and at its own edge."""
        b = self.b
        shape = st.tile
        param = self.param_of(src)
        extents = st.extents if param == st.param else \
            [b.constant(n, I32_TILE) for n in st.f.tile]
        mask = splat(b, st.inside, shape)
        indices = []
        for axis, (o, e, j, t) in enumerate(zip(st.origin, extents, st.safe, shape,
                                                strict=True)):
            mask, local = self._below(mask, axis, j, t, e, shape)
            pos = b.emit("addi", [BcTile(Scalar.I32, (t,))], local, splat(b, o, (t,)))
            indices.append((along(b, pos, axis, shape, broadcast=False), _I32))
        ptrs, inside = element_pointers(b, self.address(param), indices, shape)
        return ptrs, b.emit("andi", [mask.type], mask, inside)

    def _read_key(self, src: IrValue) -> int | None:
        """The token key of a slab load's source: a Mut's own; a read-only tensor's none."""
        mutable = isinstance(src.type, TensorType) and src.type.mutable
        return self.param_of(src) if mutable else None

    def slab_load(self, op: Op) -> None:
        """`src` read over z's slab (`z.load(...)`, `ct.load_tile_like(x, z)`): z gives the
        slab (its origin, extents and the in-slab tile index), `src` the memory."""
        src, z, *idx = op.operands
        out = tile_type(op.result.type)
        value = op.attrs.get("padding")
        fill = 0 if value is None else value
        assert isinstance(fill, (int, float, bool))
        st = self._slab_tile(z, idx, out.shape)
        hints = _memory_hints(op.attrs)
        key = self._read_key(src)
        if st.by_view:
            tile = self._view_load(st, src, idx, out, value, hints)
        else:
            ptrs, mask = self._pointers(st, src)
            tile, tok = self.b.op("load_ptr_tko", [out, TOKEN], ptrs, mask,
                                  self.b.constant(fill, out), self.token(key),
                                  **hints).results
            if key is not None:
                self.tok[key] = tok
        self.vals[op.result] = tile

    def _view_load(self, st: _SlabTile, src: IrValue, idx: list[IrValue], out: BcTile,
                   value: object, hints: dict[str, Any]) -> Value:
        mode = view_padding(value)
        rank = len(idx) // 2
        index = self._global_index(st, self.index(idx[:rank]))
        key = self._read_key(src)
        pv = self.pview(self.param_of(src), out.shape, mode or Padding.ZERO)
        tile, tok = self.b.op("load_view_tko", [out, TOKEN], pv, index, self.token(key),
                              **hints).results
        if key is not None:
            self.tok[key] = tok
        fill = 0 if value is None else value
        assert isinstance(fill, (int, float, bool))
        if mode is None:
            tile = pad_outside(self.b, tile, index, self._extents(src), fill)
        mask = splat(self.b, st.inside, out.shape)
        if self.param_of(src) != st.param:
            mask = self._within_slab(st, mask)
        return self.b.emit("select", [out], mask, tile, self.b.constant(fill, out))

    def _within_slab(self, st: _SlabTile, mask: Value) -> Value:
        """`mask` and, on each axis the tile does not divide (the slab spans that axis of z,
        but the tensor read over it may go on), the elements before the slab's extent."""
        for axis, (j, n, t) in enumerate(zip(st.safe, st.f.tile, st.tile, strict=True)):
            if n % t:
                mask = self._below(mask, axis, j, t, n, st.tile)[0]
        return mask

    def _below(self, mask: Value, axis: int, j: Value, t: int, extent: Value | int,
               shape: tuple[int, ...]) -> tuple[Value, Value]:
        """`mask` and, along `axis`, the positions of the tile at in-slab index `j` (tiles of
        `t`) that lie before `extent`; and those positions (the row's local indices)."""
        b = self.b
        local = run_from(b, b.emit("muli", [I32_TILE], j, b.constant(t, I32_TILE)), t)
        e = extent if isinstance(extent, Value) else b.constant(extent, I32_TILE)
        ok = b.emit("cmpi", [BcTile(Scalar.I1, (t,))], local, splat(b, e, (t,)),
                    comparison_predicate=CmpPredicate.LT, signedness=arith.sign(_I32))
        return b.emit("andi", [mask.type], mask, along(b, ok, axis, shape)), local

    def slab_store(self, op: Op) -> None:
        z, value, *idx = op.operands
        t = self.v(value)
        assert isinstance(t.type, BcTile)
        st = self._slab_tile(z, idx, t.type.shape)
        before = self.token(st.param)
        if not st.by_view:
            ptrs, mask = self._pointers(st, z)
            self.tok[st.param] = self.b.emit("store_ptr_tko", [TOKEN], ptrs, t, mask, before)
            return
        rank = len(idx) // 2
        index = self._global_index(st, self.index(idx[:rank]))
        pv = self.pview(st.param, t.type.shape)
        branch = self.b.op("if", [TOKEN], st.inside, regions=[[], []])
        with self.b.at(branch.regions[0]):  # an index outside the slab writes nothing
            tok = self.b.emit("store_view_tko", [TOKEN], t, pv, index, before)
            self.b.op("yield", [], [tok])
        with self.b.at(branch.regions[1]):
            self.b.op("yield", [], [before])
        self.tok[st.param] = branch.results[0]

    def slab_extent(self, op: Op) -> None:
        z, *idx = op.operands
        _, _, _, extents = self._slab(z, self.index(idx))
        self.vals[op.result] = extents[op.attrs["axis"]]

    def tile_inside(self, src: IrValue, index: list[Value], tile: tuple[int, ...]
                    ) -> tuple[list[Value], Value]:
        return self._inside(index, self._extents(src), tile)

    def _inside(self, index: list[Value], extents: list[Value], tile: tuple[int, ...]
                ) -> tuple[list[Value], Value]:
        """Each index clamped to the slab's tiles (0 outside) and whether all were inside: an
        index is checked before any arithmetic on it, so no value can wrap into range."""
        b = self.b
        safe: list[Value] = []
        inside: Value | None = None
        zero = b.constant(0, I32_TILE)
        for j, e, t in zip(index, extents, tile, strict=True):
            count = self._cdiv(b, e, b.constant(t, I32_TILE))
            lo = b.emit("cmpi", [I1_TILE], j, zero, comparison_predicate=CmpPredicate.GE,
                        signedness=arith.sign(_I32))
            hi = b.emit("cmpi", [I1_TILE], j, count, comparison_predicate=CmpPredicate.LT,
                        signedness=arith.sign(_I32))
            ok = b.emit("andi", [I1_TILE], lo, hi)
            safe.append(b.emit("select", [I32_TILE], ok, j, zero))
            inside = ok if inside is None else b.emit("andi", [I1_TILE], inside, ok)
        assert inside is not None
        return safe, inside

    def coords(self, z: IrValue, linear: Value) -> list[Value]:
        _, f = self._mut(z)
        return _coords(self.b, self.grid(z), f.order, linear)

    def tile_index(self, op: Op) -> None:
        z = op.operands[0]
        _, f = self._mut(z)
        if f.linear:
            self.bind(op, self.coords(z, self.block_ids[0]))
        elif len(op.results) > 3:  # axes 2.. folded into the grid's third (tiling.py)
            folded = _coords(self.b, self.grid(z)[2:], row_major, self.block_ids[2])
            self.bind(op, [*self.block_ids[:2], *folded])
        else:
            self.bind(op, self.block_ids[:len(op.results)])

    def tiles_start_step(self, op: Op) -> None:
        """`Tiling.tiles_start_step` as i32 arithmetic: a linear tiling's grid is 1-D."""
        _, f = self._mut(op.operands[0])
        start, step = self.block_ids[0], self.num_blocks[0]
        if not f.linear:
            for axis in (1, 2):
                n, b = self.num_blocks[axis], self.block_ids[axis]
                ids = self.b.emit("muli", [I32_TILE], b, self._prefix_blocks(axis))
                start = self.b.emit("addi", [I32_TILE], start, ids)
                step = self.b.emit("muli", [I32_TILE], step, n)
        self.bind(op, [start, step])

    def _prefix_blocks(self, axis: int) -> Value:
        total = self.num_blocks[0]
        for a in range(1, axis):
            total = self.b.emit("muli", [I32_TILE], total, self.num_blocks[a])
        return total

    def tile_count(self, op: Op) -> None:
        g = self.grid(op.operands[0])
        total = g[0]
        for d in g[1:]:
            total = self.b.emit("muli", [I32_TILE], total, d)
        self.vals[op.result] = total

    # -- control flow ----------------------------------------------------------------------
    def _keys(self, op: Op) -> list[int]:
        """Token keys touched inside op's regions: they must flow through it."""
        keys: set[int] = set()

        def visit(block: Block) -> None:
            for o in block.ops:
                if o.name in _MEMORY and isinstance(o.operands[0].type, TensorType) \
                        and o.operands[0].type.mutable:
                    keys.add(self.param_of(o.operands[0]))
                elif o.name == "printf":
                    keys.add(PRINT)
                elif gathers.token_key(self, o) is not None:  # a scattered tensor's token
                    keys.add(self.param_of(o.operands[0]))
                for r in o.regions:
                    visit(r)
        for r in op.regions:
            visit(r)
        return sorted(keys)

    def _region(self, block: Block, bc: BcBlock, args: list[IrValue], keys: list[int],
                scope: _Scope, values: list[Value] | None = None) -> None:
        """Lower `block` into `bc`, its args bound to `values` (default: bc's own args)."""
        saved_tok, saved_scope = dict(self.tok), self.scope
        bc_args = bc.args if values is None else values
        for a, v in zip(args, bc_args, strict=False):
            self.vals[a] = v
        for k, v in zip(keys, bc_args[len(args):], strict=True):
            self.tok[k] = v
        self.scope = scope
        with self.b.at(bc):
            self._block(block)
            if block.terminator is None:
                self._unreachable_end()
        self.tok, self.scope = saved_tok, saved_scope

    def _unreachable_end(self) -> None:
        """A region whose last op is an `if` every branch of which leaves it (break, continue,
        return) still needs a terminator of its own; it never runs, so any valid one will do."""
        loop = self.scope.loop
        if loop is None:
            self.b.op("return", [], [])
        else:
            self.b.op("continue", [], loop.restart)

    def _for(self, op: Op) -> None:
        """A `for` in the form that cannot loop forever (loops.py)."""
        form = loops.for_form(self, op)
        if form == "loop":
            self._for_as_loop(op)
            return
        keys = self._keys(op)
        lb, ub, step, *inits = [self.v(x) for x in op.operands]
        res_t = [tile_type(r.type) for r in op.results] + [TOKEN] * len(keys)
        carried = [*inits, *(self.token(k) for k in keys)]
        if form == "plain":
            self._finish(op, self._for_op(op, keys, res_t, (lb, ub, step), carried), keys)
            return
        counter = loops.counter_bounds(self, lb, ub, op.operands[2])
        self._finish(op, self._for_op(op, keys, res_t, counter, carried,
                                      partial(loops.nth_value, self.b, lb, step)), keys)

    def _for_op(self, op: Op, keys: list[int], res_t: list[BcTile | Scalar],
                bounds: tuple[Value, Value, Value], carried: list[Value],
                iv_of: Callable[[Value], Value] | None = None) -> list[Value]:
        """A `for`; `iv_of` maps its counter to the body's induction variable (counted form)."""
        body = op.regions[0]
        iv_t = tile_type(body.args[0].type)
        args_t = [tile_type(a.type) for a in body.args[1:]] + [TOKEN] * len(keys)
        bc = self.b.op("for", res_t, *bounds, carried, regions=[[iv_t, *args_t]])
        region = bc.regions[0]
        values = list(region.args)
        if iv_of is not None:
            with self.b.at(region):
                values[0] = iv_of(values[0])
        self._region(body, region, body.args, keys, _Scope([], _Loop(keys, region.args[1:])),
                     values)
        return list(bc.results)

    def _for_as_loop(self, op: Op) -> None:
        """A `for` whose `iv + step` could wrap: a `loop` carrying iv that stops at ub, and
        before stepping past 2**31 - 1."""
        lb, ub, step, *inits = [self.v(x) for x in op.operands]
        self._loop(op, [lb, *inits], (ub, step))

    def _loop(self, op: Op, inits: list[Value] | None = None,
              bounds: tuple[Value, Value] | None = None) -> None:
        """An IR `loop`; or (`bounds`: ub and step) a `for` whose first carried value is its
        induction variable, checked against both at the top and before each step."""
        keys = self._keys(op)
        body = op.regions[0]
        res_t = [tile_type(r.type) for r in op.results] + [TOKEN] * len(keys)
        args_t = [tile_type(a.type) for a in body.args] + [TOKEN] * len(keys)
        if inits is None:
            inits = [self.v(x) for x in op.operands]
        bc = self.b.op("loop", res_t, [*inits, *(self.token(k) for k in keys)], regions=[args_t])
        region = bc.regions[0]
        induction = None
        if bounds is not None:
            with self.b.at(region):
                loops.enter_checked(self.b, region.args[0], bounds[0], region.args[1:])
            induction = (region.args[0], bounds[1])
        loop = _Loop(keys, region.args, induction)
        self._region(body, region, body.args, keys, _Scope([], loop))
        self._finish(op, bc.results, keys)

    def _if(self, op: Op) -> None:
        keys = self._keys(op)
        res_t = [tile_type(r.type) for r in op.results] + [TOKEN] * len(keys)
        bc = self.b.op("if", res_t, self.v(op.operands[0]), regions=[[], []])
        for region, bc_region in zip(op.regions, bc.regions, strict=True):
            self._region(region, bc_region, [], [], _Scope(keys, self.scope.loop))
        self._finish(op, bc.results, keys)

    def _finish(self, op: Op, results: list[Value], keys: list[int]) -> None:
        n = len(op.results)
        self.bind(op, results[:n])
        for k, v in zip(keys, results[n:], strict=True):
            self.tok[k] = v

    def _terminator(self, op: Op) -> None:
        values = [self.v(x) for x in op.operands]
        if op.name == "return":  # a kernel's return: the frontend keeps it out of loops
            if self.scope.loop is not None:
                raise LowerError("'return' inside a loop (Tile IR has no early exit there)")
            self.b.op("return", [], [])
            return
        if op.name == "yield":
            keys = self.scope.if_keys
        else:
            if self.scope.loop is None:
                raise LowerError(f"'{op.name}' outside a loop")
            keys = self.scope.loop.keys
        values += [self.token(k) for k in keys]
        induction = self.scope.loop.induction if self.scope.loop is not None else None
        if op.name == "continue" and induction is not None:
            values = [loops.step_checked(self.b, *induction, values), *values]
        self.b.op(op.name, [], values)

    # -- one op ------------------------------------------------------------------------------
    def _op(self, op: Op) -> None:
        handler = _HANDLERS.get(op.name)
        if handler is not None:
            handler(self, op)
        elif op in self.contract.muls:
            pass  # emitted by its add/sub, as an fma
        elif op in self.contract.adds:
            self._fma(op)
        else:
            self.bind(op, self._defined(op))

    def _defined(self, op: Op) -> list[Value]:
        """An op whose lowering its definition gives (compiler/ops)."""
        from ..ops.defs import IR_OPS

        defn = IR_OPS.get(op.name)
        if defn is None or defn.lower is None:
            raise LowerError(f"no lowering for the '{op.name}' op")
        ctx = OpCtx(self.b, [self.v(x) for x in op.operands], [x.type for x in op.operands],
                    [r.type for r in op.results], op.attrs)
        return defn.lower(ctx)

    def _fma(self, op: Op) -> None:
        """add/sub with a single-use product operand (contract.py): one fma."""
        fused = self.contract.adds[op]
        x, y = (self.v(o) for o in fused.mul.operands)
        c = self.v(op.operands[1 - fused.side])
        sub = op.name == "sub"
        self.vals[op.result] = arith.fma(self.b, x, y, c, negate_product=sub and fused.side == 1,
                                         negate_acc=sub and fused.side == 0)


@dataclass
class _SlabTile:
    """One in-slab tile access: where the slab is, the clamped tile index, and which path."""

    param: int
    f: MutFacts
    origin: list[Value]
    extents: list[Value]
    safe: list[Value]
    inside: Value
    tile: tuple[int, ...]
    by_view: bool


def _no_facts(t: TensorType) -> TensorFacts:
    return TensorFacts(t.dtype, t.rank, 1, (1,) * t.rank, (1,) * t.rank, False)


def _coords(b: Builder, grid: list[Value], order: TileOrder, linear: Value) -> list[Value]:
    def op(name: str, x: Value, y: Value) -> Value:
        if name in ("divi", "remi"):
            return b.emit(name, [I32_TILE], x, y, signedness=arith.sign(_I32))
        return b.emit(name, [I32_TILE], x, y)

    if order.kind == "grouped" and len(grid) >= 2:
        rows, cols = grid[-2:]
        lead: list[Value] = []
        if len(grid) > 2:  # leading (batch) axes vary slowest, row-major (tiling.py)
            per = op("muli", rows, cols)
            lead = _coords(b, grid[:-2], row_major, op("divi", linear, per))
            linear = op("remi", linear, per)
        g = b.constant(order.group, I32_TILE)
        band = op("muli", g, cols)
        first = op("muli", op("divi", linear, band), g)
        height = op("mini", op("subi", rows, first), g)
        within = op("remi", linear, band)
        return [*lead, op("addi", first, op("remi", within, height)), op("divi", within, height)]
    out: list[Value | None] = [None] * len(grid)
    axes = range(len(grid)) if order.kind == "col_major" else reversed(range(len(grid)))
    rest = linear
    for axis in axes:
        out[axis] = op("remi", rest, grid[axis])
        rest = op("divi", rest, grid[axis])
    return [v for v in out if v is not None]


# ---- handlers per op name ----

Handler = Callable[[_Lowerer, Op], None]

def _block_id(L: _Lowerer, op: Op) -> None:
    L.vals[op.result] = L.block_ids[op.attrs["axis"]]


def _num_blocks(L: _Lowerer, op: Op) -> None:
    L.vals[op.result] = L.num_blocks[op.attrs["axis"]]


def _tile_coords(L: _Lowerer, op: Op) -> None:
    z, linear = op.operands
    L.bind(op, L.coords(z, L.v(linear)))


def _partition(L: _Lowerer, op: Op) -> None:
    t = op.result.type
    assert isinstance(t, PartitionType)
    L.partitions[op.result] = (L.param_of(op.operands[0]), dims(t.tile))


def _num_tiles(L: _Lowerer, op: Op) -> None:
    key = L.partitions[op.operands[0]]
    if key not in L.tile_grids:  # once per (tensor, tile shape), in the prologue
        L.tile_grids[key] = L.pro.op("get_index_space_shape", [I32_TILE] * len(key[1]),
                                     L.pview(*key)).results
    L.vals[op.result] = L.tile_grids[key][op.attrs["axis"]]


def _tensor_extent(L: _Lowerer, op: Op) -> None:
    L.vals[op.result] = L._extents(op.operands[0])[op.attrs["axis"]]


def _printf(L: _Lowerer, op: Op) -> None:
    tok = L.b.emit("print_tko", [TOKEN], [L.v(x) for x in op.operands], L.token(PRINT),
                   str=str(op.attrs["format"]))
    L.tok[PRINT] = tok


def _pdl_wait(L: _Lowerer, op: Op | None) -> None:
    """`ct.wait_for_predecessor()` (compiler/pdl.py): gdc_wait, whose token every later access
    follows (reads of read-only tensors too: they no longer start from the entry token, so
    tileiras cannot hoist them above the wait), then gdc_launch_dependents: the next launch may
    start once every block has passed its wait, so only this launch's own predecessor can be
    running alongside it."""
    done = L.b.emit("gdc_wait_tko", [TOKEN], L.entry_token)
    L.entry_token = done
    for key, tok in list(L.tok.items()):
        L.tok[key] = L.b.emit("join_tokens", [TOKEN], [tok, done])
    L.b.emit("gdc_launch_dependents_tko", [TOKEN], done)


_HANDLERS: dict[str, Handler] = {
    "block_id": _block_id,
    "num_blocks": _num_blocks,
    "tile_index": _Lowerer.tile_index,
    "tile_coords": _tile_coords,
    "tile_count": _Lowerer.tile_count,
    "tiles_start_step": _Lowerer.tiles_start_step,
    "partition": _partition,
    "num_tiles": _num_tiles,
    "tensor_extent": _tensor_extent,
    "load": _Lowerer.load,
    "store": _Lowerer.store,
    "slab_load": _Lowerer.slab_load,
    "slab_store": _Lowerer.slab_store,
    "slab_extent": _Lowerer.slab_extent,
    "printf": _printf,
    "pdl_wait": _pdl_wait,
    "gather": gathers.gather,
    "load_at": gathers.load_at,
    "scatter": gathers.scatter,
    "acc_tile": lower_acc,
    "acc_scatter": lower_acc,
    "for": _Lowerer._for,
    "loop": _Lowerer._loop,
    "if": _Lowerer._if,
    "yield": _Lowerer._terminator,
    "continue": _Lowerer._terminator,
    "break": _Lowerer._terminator,
    "return": _Lowerer._terminator,
    "range_check": loops.lower_range_check,
}
