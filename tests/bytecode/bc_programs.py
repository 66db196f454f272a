"""Small kernels built with the bytecode builder API; shared by the bytecode tests.

Each builder returns a Module; `PROGRAMS` names them. They cover the op families the lowering
needs: views with tail masking, reductions with region bodies, a GEMM `for` loop with a
loop-carried accumulator, if/loop/break/continue, printf/assert, and assumptions.
"""

from __future__ import annotations

from collections.abc import Callable

from cutile.compiler.bytecode import Builder, Module, Value, entry
from cutile.compiler.bytecode.attrs import (
    Bounded,
    CmpPredicate,
    DivBy,
    FloatAttr,
    Hints,
    RoundingMode,
    Signedness,
)
from cutile.compiler.bytecode.types import (
    TOKEN,
    Padding,
    PartitionViewType,
    PtrType,
    Scalar,
    TensorViewType,
    TileType,
    tile,
)

F16, F32, I1, I32 = Scalar.F16, Scalar.F32, Scalar.I1, Scalar.I32
IDX = tile(I32)


def _view2d(b: Builder, base: Value, elem: Scalar, rows: Value, cols: Value, stride: Value,
            tile_shape: tuple[int, int], padding: Padding | None = Padding.ZERO) -> Value:
    """A row-major (?x?, strides [?, 1]) tensor view split into tiles."""
    ptr = b.emit("assume", [tile(PtrType(elem))], base, predicate=DivBy(16))
    stride = b.emit("assume", [IDX], stride, predicate=DivBy(8))
    tv_t = TensorViewType(elem, (None, None), (None, 1))
    tv = b.op("make_tensor_view", [tv_t], ptr, [rows, cols], [stride]).result
    return b.emit("make_partition_view", [PartitionViewType(tile_shape, tv_t, (0, 1), padding)],
                  tv)


def vector_add(n_tile: int = 256) -> Module:
    """z = x + y over a dynamic length; the last tile overhangs (padded loads, masked store)."""
    mod = Module()
    p = tile(PtrType(F32))
    fn, b = entry(mod, "vadd", [p, p, p, IDX])
    x, y, z, n = fn.params
    tok = b.emit("make_token", [TOKEN])
    n = b.emit("assume", [IDX], n, predicate=Bounded(0, None))
    tv_t = TensorViewType(F32, (None,), (1,))
    pv_t = PartitionViewType((n_tile,), tv_t, (0,), Padding.ZERO)
    views = []
    for base in (x, y, z):
        ptr = b.emit("assume", [p], base, predicate=DivBy(16))
        tv = b.op("make_tensor_view", [tv_t], ptr, [n], []).result
        views.append(b.emit("make_partition_view", [pv_t], tv))
    bx = b.block_ids()[0]
    t = tile(F32, n_tile)
    a, _ = b.op("load_view_tko", [t, TOKEN], views[0], [bx], tok).results
    c, _ = b.op("load_view_tko", [t, TOKEN], views[1], [bx], tok).results
    s = b.emit("addf", [t], a, c)
    b.op("store_view_tko", [TOKEN], s, views[2], [bx], tok)
    b.op("return", [])
    return mod


def _reduce(b: Builder, kind: str, src: Value, dim: int, identity: float) -> Value:
    """reduce over `dim` with a region body (elem, acc) -> kind(elem, acc)."""
    src_t = src.type
    assert isinstance(src_t, TileType) and isinstance(src_t.elem, Scalar)
    out_shape = tuple(d for i, d in enumerate(src_t.shape) if i != dim)
    scalar = tile(src_t.elem)
    red = b.op("reduce", [TileType(src_t.elem, out_shape)], [src], regions=[[scalar, scalar]],
               dim=dim, identities=(FloatAttr(src_t.elem, identity),))
    with b.at(red.regions[0]) as (elem, acc):
        b.op("yield", [], [b.emit(kind, [scalar], elem, acc)])
    return red.result


def softmax(rows: int = 4, cols: int = 256) -> Module:
    """Row softmax of an f16 matrix with f32 math: two reductions with region bodies."""
    mod = Module()
    p = tile(PtrType(F16))
    fn, b = entry(mod, "softmax", [p, p, IDX, IDX, IDX], hints=Hints.entry(occupancy=2))
    x, y, m, n, stride = fn.params
    tok = b.emit("make_token", [TOKEN])
    xin = _view2d(b, x, F16, m, n, stride, (rows, cols), Padding.NEG_INF)
    yout = _view2d(b, y, F16, m, n, stride, (rows, cols))
    bx = b.block_ids()[0]
    zero = b.constant(0, IDX)
    t16, t32 = tile(F16, rows, cols), tile(F32, rows, cols)
    col_t = tile(F32, rows, 1)
    raw, _ = b.op("load_view_tko", [t16, TOKEN], xin, [bx, zero], tok).results
    v = b.emit("ftof", [t32], raw)
    mx = _reduce(b, "maxf", v, 1, float("-inf"))
    mx = b.emit("broadcast", [t32], b.emit("reshape", [col_t], mx))
    e = b.emit("exp", [t32], b.emit("subf", [t32], v, mx))
    total = _reduce(b, "addf", e, 1, 0.0)
    total = b.emit("broadcast", [t32], b.emit("reshape", [col_t], total))
    out = b.emit("ftof", [t16], b.emit("divf", [t32], e, total))
    b.op("store_view_tko", [TOKEN], out, yout, [bx, zero], tok)
    b.op("return", [])
    return mod


def gemm(bm: int = 128, bn: int = 128, bk: int = 64, elem: Scalar = F16) -> Module:
    """C = A @ B with an f32 accumulator carried through a `for` over K tiles."""
    mod = Module()
    p = tile(PtrType(elem))
    fn, b = entry(mod, "gemm", [p, p, p, IDX, IDX, IDX, IDX, IDX, IDX],
                  hints=Hints.entry(num_cta_in_cga=1, occupancy=1))
    a, bb, c, m, n, k, sa, sb, sc = fn.params
    tok = b.emit("make_token", [TOKEN])
    av = _view2d(b, a, elem, m, k, sa, (bm, bk))
    bv = _view2d(b, bb, elem, k, n, sb, (bk, bn))
    cv = _view2d(b, c, elem, m, n, sc, (bm, bn))
    bx, by, _ = b.block_ids()
    k_tiles = b.op("get_index_space_shape", [IDX, IDX], av).results[1]
    acc_t = tile(F32, bm, bn)
    acc0 = b.constant(0.0, acc_t)
    lo, one = b.constant(0, IDX), b.constant(1, IDX)
    loop = b.op("for", [acc_t], lo, k_tiles, one, [acc0], regions=[[IDX, acc_t]])
    with b.at(loop.regions[0]) as (kk, acc):
        ta, _ = b.op("load_view_tko", [tile(elem, bm, bk), TOKEN], av, [bx, kk], tok).results
        tb, _ = b.op("load_view_tko", [tile(elem, bk, bn), TOKEN], bv, [kk, by], tok).results
        b.op("continue", [], [b.emit("mmaf", [acc_t], ta, tb, acc)])
    out = b.emit("ftof", [tile(elem, bm, bn)], loop.result)
    b.op("store_view_tko", [TOKEN], out, cv, [bx, by], tok)
    b.op("return", [])
    return mod


def control_flow() -> Module:
    """loop with break/continue inside if, an if with results, and a for with an if inside."""
    mod = Module()
    p = tile(PtrType(I32))
    fn, b = entry(mod, "control", [p, IDX])
    out, limit = fn.params
    tok = b.emit("make_token", [TOKEN])
    zero, one = b.constant(0, IDX), b.constant(1, IDX)
    loop = b.op("loop", [IDX, IDX], [zero, zero], regions=[[IDX, IDX]])
    with b.at(loop.regions[0]) as (i, acc):
        done = b.emit("cmpi", [tile(I1)], i, limit, comparison_predicate=CmpPredicate.GE,
                      signedness=Signedness.SIGNED)
        stop = b.op("if", [], done, regions=[[], []])
        with b.at(stop.regions[0]):
            b.op("break", [], [i, acc])
        with b.at(stop.regions[1]):
            b.op("yield", [], [])
        odd = b.emit("cmpi", [tile(I1)], b.emit("remi", [IDX], i, b.constant(2, IDX)), one,
                     comparison_predicate=CmpPredicate.EQ)
        nxt = b.emit("addi", [IDX], i, one)
        skip = b.op("if", [], odd, regions=[[], []])
        with b.at(skip.regions[0]):
            b.op("continue", [], [nxt, acc])
        with b.at(skip.regions[1]):
            b.op("yield", [], [])
        b.op("continue", [], [nxt, b.emit("addi", [IDX], acc, i)])
    _, total = loop.results
    pick = b.op("if", [IDX], b.emit("cmpi", [tile(I1)], total, zero,
                                    comparison_predicate=CmpPredicate.GT), regions=[[], []])
    with b.at(pick.regions[0]):
        b.op("yield", [], [total])
    with b.at(pick.regions[1]):
        b.op("yield", [], [b.emit("negi", [IDX], total)])
    fl = b.op("for", [IDX], zero, limit, one, [pick.result], regions=[[IDX, IDX]])
    with b.at(fl.regions[0]) as (_, s):
        b.op("continue", [], [b.emit("muli", [IDX], s, b.constant(3, IDX))])
    tv_t = TensorViewType(I32, (1,), (1,))
    tv = b.op("make_tensor_view", [tv_t], out, [], []).result
    pv = b.emit("make_partition_view", [PartitionViewType((1,), tv_t, (0,))], tv)
    val = b.emit("reshape", [tile(I32, 1)], fl.result)
    b.op("store_view_tko", [TOKEN], val, pv, [zero], tok)
    b.op("return", [])
    return mod


def debug_ops() -> Module:
    """printf and a device assert; tokens thread the two prints in order."""
    mod = Module()
    fn, b = entry(mod, "debug", [IDX, tile(F32)])
    n, scale = fn.params
    bx = b.block_ids()[0]
    tok = b.emit("make_token", [TOKEN])
    t1 = b.emit("print_tko", [TOKEN], [bx, n], tok, str="block %d of n=%d\n")
    b.emit("print_tko", [TOKEN], [scale], t1, str="scale=%f\n")
    ok = b.emit("cmpi", [tile(I1)], bx, n, comparison_predicate=CmpPredicate.LT)
    b.op("assert", [], ok, message="block id out of range")
    b.op("return", [])
    return mod


def assumptions() -> Module:
    """assume div_by (plain and every/along), bounded; iota, select, scan, cat, permute."""
    mod = Module()
    p = tile(PtrType(F32))
    fn, b = entry(mod, "assume", [p, IDX, IDX])
    base, n, stride = fn.params
    tok = b.emit("make_token", [TOKEN])
    base = b.emit("assume", [p], base, predicate=DivBy(16))
    n = b.emit("assume", [IDX], n, predicate=DivBy(64))
    n = b.emit("assume", [IDX], n, predicate=Bounded(0, 1 << 30))
    stride = b.emit("assume", [IDX], stride, predicate=DivBy(4))
    ids = b.emit("iota", [tile(I32, 64)])
    tv_t = TensorViewType(F32, (None, None), (None, 1))
    tv = b.op("make_tensor_view", [tv_t], base, [n, n], [stride]).result
    pv_t = PartitionViewType((64, 64), tv_t, (0, 1), Padding.ZERO)
    pv = b.emit("make_partition_view", [pv_t], tv)
    bx = b.block_ids()[0]
    t = tile(F32, 64, 64)
    x, tk = b.op("load_view_tko", [t, TOKEN], pv, [bx, bx], tok).results
    half = b.constant(0.5, t)
    pos = b.emit("cmpf", [tile(I1, 64, 64)], x, half, comparison_predicate=CmpPredicate.GT)
    y = b.emit("select", [t], pos, x, half)
    scalar = tile(F32)
    scan = b.op("scan", [t], [y], regions=[[scalar, scalar]], dim=1,
                identities=(FloatAttr(F32, 0.0),))
    with b.at(scan.regions[0]) as (e, acc):
        b.op("yield", [], [b.emit("addf", [scalar], e, acc)])
    yt = b.emit("permute", [t], scan.result, permutation=(1, 0))
    fi = b.emit("itof", [tile(F32, 64)], ids, rounding_mode=RoundingMode.NEAREST_EVEN)
    row = b.emit("broadcast", [t], b.emit("reshape", [tile(F32, 1, 64)], fi))
    both = b.emit("cat", [tile(F32, 128, 64)], yt, row, dim=0)
    top = b.op("extract", [t], both, [b.constant(0, IDX), b.constant(0, IDX)]).result
    b.op("store_view_tko", [TOKEN], top, pv, [bx, bx], tk)
    b.op("return", [])
    return mod


PROGRAMS: dict[str, Callable[[], Module]] = {
    "vector_add": vector_add,
    "softmax": softmax,
    "gemm": gemm,
    "control_flow": control_flow,
    "debug_ops": debug_ops,
    "assumptions": assumptions,
}
