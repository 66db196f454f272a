"""Counter-based random numbers: `ct.randint(seed, offsets)` (u32) and `ct.rand(seed, offsets)`
(f32 in [0, 1)), bit for bit what Triton's `tl.randint` / `tl.rand` give.

Philox 4x32 with 10 rounds. The key is the seed as 64 bits (an i32 seed sign-extends, a u32 one
zero-extends): its low word k0 and high word k1. The counter is (lo, hi, 0, 0) for each offset: its
low and high 32-bit words (hi = 0 for i32 or u32 offsets; i64/u64 offsets give their high word,
as Triton does, so a 64-bit base offset such as torch's (seed, offset) pairs works); `randint` is
the first output word. A round maps
(c0, c1, c2, c3) to (hi(B*c2) ^ c1 ^ k0, lo(B*c2), hi(A*c0) ^ c3 ^ k1, lo(A*c0)) and then adds
the Weyl constants to the key. `rand` reads that word as an i32 x, takes ~x where x < 0, and
multiplies by 4.6566127342e-10 in f32, so it never reaches 1.0. The interpreter runs the same
arithmetic in NumPy (uint32 words, products in uint64), so it matches the GPU exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ...diagnostics import messages as msg
from ..bytecode.attrs import CmpPredicate, Overflow, RoundingMode, Signedness
from ..bytecode.types import Scalar
from ..bytecode.types import TileType as BcTile
from ..dtypes import F32, I64, U32, DType
from ..frontend.builder import Arg
from ..frontend.builder import Builder as FBuilder
from ..frontend.values import FValue
from ..ir import Value
from ..lower.arith import astype
from ..lower.types import I32_TILE, OpCtx
from ..types import ConstType, TileType, Type, describe
from .defs import ir_op, numpy
from .registry import Call, function

if TYPE_CHECKING:
    from ..bytecode import Builder
    from ..bytecode import Value as BcValue

ROUND_A, ROUND_B = 0xD2511F53, 0xCD9E8D57  # the Philox multipliers
KEY_A, KEY_B = 0x9E3779B9, 0xBB67AE85  # the Weyl sequence added to the key each round
ROUNDS = 10
SCALE = 4.6566127342e-10  # the largest c with (2**31 - 1) * c < 1.0 in f32
MASK = 0xFFFFFFFF


def _seed(b: FBuilder, arg: Arg, what: str) -> Value:
    v = b.tile_or_const(arg, what)
    if isinstance(v.type, ConstType):
        return b.materialize(v, I64, arg.span)
    if not isinstance(v.type, TileType) or v.type.rank != 0 or not v.type.dtype.is_integer:
        b.fail(msg.BAD_OPERAND, arg.span, op=f"the seed of {what}()",
               what=f"{describe(v.type)} (it needs an integer scalar)")
    return v


def _offsets(b: FBuilder, arg: Arg, what: str) -> Value:
    v = b.tile(arg, what)
    assert isinstance(v.type, TileType)
    if v.type.dtype.name not in ("i32", "u32", "i64", "u64"):
        b.fail(msg.BAD_OPERAND, arg.span, op=f"the offsets of {what}()",
               what=f"{v.type.dtype} tiles (they need i32, u32, i64 or u64)")
    return v


def _rule(kind: str, dtype: DType) -> Any:
    def rule(b: FBuilder, c: Call) -> FValue:
        seed, offsets = _seed(b, c["seed"], kind), _offsets(b, c["offsets"], kind)
        assert isinstance(offsets.type, TileType)
        return b.emit1("philox", [seed, offsets], TileType(dtype, offsets.type.shape), c.span,
                       kind=kind)
    return rule


function("randint", "seed: Any, offsets: Any", "Philox 4x32-10 random u32 for each offset (i32, "
         "u32, i64 or u64), as Triton's tl.randint", "random")(_rule("randint", U32))
function("rand", "seed: Any, offsets: Any", "uniform f32 in [0, 1) for each offset (i32, u32, "
         "i64 or u64), as Triton's tl.rand", "random")(_rule("rand", F32))


# -- the same arithmetic in NumPy ----------------------------------------------------------------
def philox4x32(counter: Sequence[Any], key: tuple[int, int], rounds: int = ROUNDS) -> list[Any]:
    """Philox 4x32 on uint32 arrays (four counter words, two key words)."""
    np = numpy()
    c = [np.asarray(w).astype(np.uint32) for w in counter]
    k0, k1 = key
    for _ in range(rounds):
        p0 = np.uint64(ROUND_A) * c[0].astype(np.uint64)
        p1 = np.uint64(ROUND_B) * c[2].astype(np.uint64)
        hi0, lo0 = (p0 >> np.uint64(32)).astype(np.uint32), p0.astype(np.uint32)
        hi1, lo1 = (p1 >> np.uint64(32)).astype(np.uint32), p1.astype(np.uint32)
        c = [hi1 ^ c[1] ^ np.uint32(k0), lo1, hi0 ^ c[3] ^ np.uint32(k1), lo0]
        k0, k1 = (k0 + KEY_A) & MASK, (k1 + KEY_B) & MASK
    return c


def uniform(words: Any) -> Any:
    np = numpy()
    x = np.asarray(words, np.uint32).view(np.int32)
    return np.where(x < 0, ~x, x).astype(np.float32) * np.float32(SCALE)


def _interp(args: Sequence[Any], attrs: dict[str, Any], outs: Sequence[Type]) -> list[Any]:
    np = numpy()
    seed = int(np.asarray(args[0]).reshape(())) & (2**64 - 1)
    wide = np.asarray(args[1]).astype(np.uint64)  # i64 wraps to its two's complement bits
    lo, hi = wide & np.uint64(MASK), wide >> np.uint64(32)
    zero = np.zeros_like(lo)
    word = philox4x32([lo, hi, zero, zero], (seed & MASK, seed >> 32))[0]
    return [word if attrs["kind"] == "randint" else uniform(word)]


# -- lowering ------------------------------------------------------------------------------------
def _i32(value: int) -> int:
    """A 32-bit word as the signed value Tile IR constants take."""
    return value - 2**32 if value >= 2**31 else value


class _Emit:
    def __init__(self, b: Builder, shape: tuple[int, ...]) -> None:
        self.b, self.t = b, BcTile(Scalar.I32, shape)

    def const(self, value: int) -> BcValue:
        return self.b.constant(_i32(value), self.t)

    def splat(self, scalar: BcValue) -> BcValue:
        if not self.t.shape:
            return scalar
        ones = BcTile(Scalar.I32, (1,) * len(self.t.shape))
        return self.b.emit("broadcast", [self.t], self.b.emit("reshape", [ones], scalar))

    def op(self, name: str, *args: BcValue) -> BcValue:
        return self.b.emit(name, [self.t], *args)


def _keys(b: Builder, seed: BcValue, dtype: DType) -> tuple[BcValue, BcValue]:
    """The seed as 64 bits, split into its low and high words (i32 scalars)."""
    wide = seed if dtype.bits == 64 else astype(b, seed, dtype, I64)
    i64 = BcTile(Scalar.I64)
    k0 = b.emit("trunci", [I32_TILE], wide, overflow=Overflow.NONE)
    high = b.emit("shri", [i64], wide, b.constant(32, i64), signedness=Signedness.UNSIGNED)
    return k0, b.emit("trunci", [I32_TILE], high, overflow=Overflow.NONE)


def _counter(c: OpCtx, e: _Emit, zero: BcValue) -> tuple[BcValue, BcValue]:
    """The offsets' low and high 32-bit words (the high one 0 for 32-bit offsets)."""
    offsets = c.args[1]
    if c.dtype(1).bits == 32:
        return offsets, zero
    wide = BcTile(Scalar.I64, e.t.shape)
    high = c.b.emit("shri", [wide], offsets, c.b.constant(32, wide),
                    signedness=Signedness.UNSIGNED)
    return (c.b.emit("trunci", [e.t], offsets, overflow=Overflow.NONE),
            c.b.emit("trunci", [e.t], high, overflow=Overflow.NONE))


def _lower(c: OpCtx) -> list[BcValue]:
    out = c.out
    e = _Emit(c.b, out.shape)
    k0, k1 = _keys(c.b, c.args[0], c.dtype(0))
    zero = e.const(0)
    w = [*_counter(c, e, zero), zero, zero]
    for r in range(ROUNDS):
        if r:
            k0 = c.b.emit("addi", [I32_TILE], k0, c.b.constant(_i32(KEY_A), I32_TILE))
            k1 = c.b.emit("addi", [I32_TILE], k1, c.b.constant(_i32(KEY_B), I32_TILE))
        a, bm = e.const(ROUND_A), e.const(ROUND_B)
        hi0, lo0 = e.op("mulhii", a, w[0]), e.op("muli", a, w[0])
        hi1, lo1 = e.op("mulhii", bm, w[2]), e.op("muli", bm, w[2])
        w = [e.op("xori", e.op("xori", hi1, w[1]), e.splat(k0)), lo1,
             e.op("xori", e.op("xori", hi0, w[3]), e.splat(k1)), lo0]
    word = w[0]
    if c.attrs["kind"] == "randint":
        return [word]
    neg = c.b.emit("cmpi", [BcTile(Scalar.I1, out.shape)], word, zero,
                   comparison_predicate=CmpPredicate.LT, signedness=Signedness.SIGNED)
    folded = c.b.emit("select", [e.t], neg, e.op("xori", word, e.const(MASK)), word)
    f = c.b.emit("itof", [out], folded, signedness=Signedness.SIGNED,
                 rounding_mode=RoundingMode.NEAREST_EVEN)
    return [c.b.emit("mulf", [out], f, c.b.constant(SCALE, out))]


ir_op("philox", _interp, _lower)
