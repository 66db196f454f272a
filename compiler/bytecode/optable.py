"""THE op table: every Tile IR op we write or read, its opcode and its field layout.

Opcodes are frozen by the format. Layout facts (flag bits, attribute order, which ops count
their results or operands) follow the format's op registry; `since` marks version gates.
Reading order of each row: results, attributes (inline, in wire order), operands, regions.
"""

from __future__ import annotations

from .attrs import (
    AtomicMode,
    CmpOrdering,
    CmpPredicate,
    MemoryOrdering,
    MemoryScope,
    Overflow,
    RoundingMode,
    Signedness,
)
from .opspec import A, Attr, O, Operand, OpSpec
from .version import V13_2, V13_3, V13_4

# ---- reusable fields ----
FTZ = Attr("flush_to_zero", A.UNIT, flag=0)
ROUND = Attr("rounding_mode", A.ENUM, RoundingMode, default=RoundingMode.NEAREST_EVEN)
OVERFLOW = Attr("overflow", A.ENUM, Overflow, default=Overflow.NONE)
SIGNED = Attr("signedness", A.ENUM, Signedness, default=Signedness.SIGNED)
ORDERING = Attr("memory_ordering", A.ENUM, MemoryOrdering, default=MemoryOrdering.WEAK)
SCOPE_REQ = Attr("memory_scope", A.ENUM, MemoryScope, default=MemoryScope.DEVICE)
MODE = Attr("mode", A.ENUM, AtomicMode)

SRC = (Operand("source"),)
BIN = (Operand("lhs"), Operand("rhs"))
REST = (Operand("operands", O.REST),)


def _unary(name: str, opcode: int, *attrs: Attr) -> OpSpec:
    return OpSpec(name, opcode, attrs=attrs, operands=SRC)


def _binary(name: str, opcode: int, *attrs: Attr) -> OpSpec:
    return OpSpec(name, opcode, attrs=attrs, operands=BIN)


def _terminator(name: str, opcode: int) -> OpSpec:
    return OpSpec(name, opcode, results=0, counted_results=True, operands=REST,
                  counted_operands=True)


def _view_access(name: str, opcode: int, results: int, value_first: bool) -> OpSpec:
    """load_view_tko / store_view_tko: flags scope 0, hints 1, token 2; 13.4 adds inbounds."""
    operands = ((Operand("tile"),) if value_first else ()) + (
        Operand("view"), Operand("index", O.SIZED), Operand("token", O.OPT, flag=2))
    return OpSpec(name, opcode, results=results, counted_results=True, attrs=(
        ORDERING,
        Attr("memory_scope", A.ENUM, MemoryScope, flag=0),
        Attr("optimization_hints", A.HINTS, flag=1),
        Attr("inbounds", A.BOOLS, since=V13_4, default=(), sized_like="index"),
    ), operands=operands)


def _minmaxf(name: str, opcode: int) -> OpSpec:
    return OpSpec(name, opcode, attrs=(Attr("propagate_nan", A.UNIT, flag=0),
                                       Attr("flush_to_zero", A.UNIT, flag=1)), operands=BIN)


_SPECS: tuple[OpSpec, ...] = (
    # -- elementwise float arithmetic --
    _unary("absf", 0x00),
    _binary("addf", 0x02, FTZ, ROUND),
    _binary("subf", 0x67, FTZ, ROUND),
    _binary("mulf", 0x4C, FTZ, ROUND),
    _binary("divf", 0x14, FTZ, ROUND),
    OpSpec("fma", 0x28, attrs=(FTZ, ROUND), operands=(*BIN, Operand("acc"))),
    _unary("negf", 0x4F),
    _binary("remf", 0x59),
    _minmaxf("maxf", 0x45),
    _minmaxf("minf", 0x47),
    _binary("pow", 0x54),
    _binary("atan2", 0x6E),
    OpSpec("fpowi", 0x79, operands=(Operand("source"), Operand("exponent")), since=V13_4),
    # -- math functions --
    _unary("ceil", 0x0D),
    _unary("floor", 0x27),
    _unary("cos", 0x12),
    _unary("cosh", 0x13),
    _unary("sin", 0x62),
    _unary("sinh", 0x63),
    _unary("tan", 0x69),
    _unary("log", 0x3F),
    _unary("log2", 0x40),
    _unary("exp", 0x17, Attr("rounding_mode", A.ENUM, RoundingMode, since=V13_3,
                             default=RoundingMode.FULL)),
    _unary("exp2", 0x18, FTZ),
    _unary("rsqrt", 0x5D, FTZ),
    _unary("sqrt", 0x64, FTZ, ROUND),
    _unary("tanh", 0x6A, Attr("rounding_mode", A.ENUM, RoundingMode, since=V13_2,
                              default=RoundingMode.FULL)),
    # -- integer arithmetic and bits --
    _unary("absi", 0x01),
    _binary("addi", 0x03, OVERFLOW),
    _binary("subi", 0x68, OVERFLOW),
    _binary("muli", 0x4E, OVERFLOW),
    _binary("shli", 0x60, OVERFLOW),
    _binary("shri", 0x61, SIGNED),
    _binary("divi", 0x15, SIGNED, Attr("rounding", A.ENUM, RoundingMode,
                                       default=RoundingMode.ZERO)),
    _binary("remi", 0x5A, SIGNED),
    _binary("maxi", 0x46, SIGNED),
    _binary("mini", 0x48, SIGNED),
    _binary("mulhii", 0x4D),
    _binary("andi", 0x04),
    _binary("ori", 0x52),
    _binary("xori", 0x6C),
    _unary("negi", 0x50, Attr("overflow", A.ENUM, Overflow, since=V13_2, default=Overflow.NONE)),
    # -- comparison and selection --
    _binary("cmpf", 0x0E, Attr("comparison_predicate", A.ENUM, CmpPredicate),
            Attr("comparison_ordering", A.ENUM, CmpOrdering, default=CmpOrdering.ORDERED)),
    _binary("cmpi", 0x0F, Attr("comparison_predicate", A.ENUM, CmpPredicate), SIGNED),
    OpSpec("select", 0x5F, operands=(Operand("cond"), Operand("val_if_true"),
                                     Operand("val_if_false"))),
    # -- conversions --
    _unary("ftof", 0x2A, ROUND),
    _unary("itof", 0x3B, SIGNED, ROUND),
    _unary("ftoi", 0x2B, Attr("saturating", A.UNIT, flag=0, since=V13_4), SIGNED,
           Attr("rounding_mode", A.ENUM, RoundingMode, default=RoundingMode.NEAREST_INT_TO_ZERO)),
    _unary("exti", 0x25, SIGNED),
    _unary("trunci", 0x6B, OVERFLOW),
    _unary("bitcast", 0x09),
    _unary("int_to_ptr", 0x33),
    _unary("ptr_to_int", 0x56),
    _unary("ptr_to_ptr", 0x57),
    OpSpec("offset", 0x51, operands=(Operand("ptr"), Operand("offset"))),
    _unary("pack", 0x6F),
    _unary("unpack", 0x70),
    # -- shapes and creation --
    _unary("broadcast", 0x0B),
    _unary("reshape", 0x5B),
    _unary("permute", 0x53, Attr("permutation", A.I32S)),
    _binary("cat", 0x0C, Attr("dim", A.INT)),
    OpSpec("iota", 0x3A),
    OpSpec("constant", 0x10, attrs=(Attr("value", A.DENSE),)),
    OpSpec("extract", 0x26, counted_results=True,
           operands=(Operand("source"), Operand("indices", O.REST)), counted_operands=True),
    OpSpec("insert", 0x76, counted_results=True, since=V13_4,
           operands=(Operand("source"), Operand("destination"), Operand("indices", O.REST)),
           counted_operands=True),
    # -- matrix multiply --
    OpSpec("mmaf", 0x49, attrs=(Attr("fast_acc", A.UNIT, flag=0, since=V13_3),),
           operands=(*BIN, Operand("acc"))),
    OpSpec("mmai", 0x4A, attrs=(Attr("signedness_lhs", A.ENUM, Signedness,
                                     default=Signedness.SIGNED),
                                Attr("signedness_rhs", A.ENUM, Signedness,
                                     default=Signedness.SIGNED)),
           operands=(*BIN, Operand("acc"))),
    OpSpec("mmaf_scaled", 0x72, since=V13_3, operands=(
        *BIN, Operand("acc"), Operand("lhs_scale"), Operand("rhs_scale"))),
    # -- reductions and scans: one region (elem_i, acc_i block args), ends in yield --
    OpSpec("reduce", 0x58, results=None, counted_results=True,
           attrs=(Attr("dim", A.INT), Attr("identities", A.TAGGED_LIST)),
           operands=REST, counted_operands=True, regions=1),
    OpSpec("scan", 0x5E, results=None, counted_results=True,
           attrs=(Attr("dim", A.INT), Attr("reverse", A.BOOL, default=False),
                  Attr("identities", A.TAGGED_LIST)),
           operands=REST, counted_operands=True, regions=1),
    # -- control flow --
    OpSpec("for", 0x29, results=None, counted_results=True,
           attrs=(Attr("unsigned_cmp", A.UNIT, flag=0, since=V13_2),),
           operands=(Operand("lower_bound"), Operand("upper_bound"), Operand("step"),
                     Operand("init_values", O.REST)), counted_operands=True, regions=1),
    OpSpec("loop", 0x41, results=None, counted_results=True,
           operands=(Operand("init_values", O.REST),), counted_operands=True, regions=1),
    OpSpec("if", 0x32, results=None, counted_results=True, operands=(Operand("condition"),),
           regions=2),
    _terminator("yield", 0x6D),
    _terminator("continue", 0x11),
    _terminator("break", 0x0A),
    _terminator("return", 0x5C),
    # -- blocks, views, memory, tokens --
    OpSpec("get_tile_block_id", 0x30, results=3),
    OpSpec("get_num_tile_blocks", 0x2E, results=3),
    OpSpec("make_token", 0x44),
    OpSpec("join_tokens", 0x3C, counted_results=True,
           operands=(Operand("tokens", O.REST),), counted_operands=True),
    OpSpec("make_tensor_view", 0x43, counted_results=True, operands=(
        Operand("base"), Operand("dynamic_shape", O.SIZED), Operand("dynamic_strides", O.SIZED))),
    OpSpec("make_partition_view", 0x42, operands=(Operand("tensor_view"),)),
    OpSpec("make_gather_scatter_view", 0x73, operands=(Operand("tensor_view"),), since=V13_3),
    OpSpec("make_strided_view", 0x74, operands=(Operand("tensor_view"),), since=V13_3),
    OpSpec("get_index_space_shape", 0x2D, results=None, counted_results=True,
           operands=(Operand("src"),)),
    OpSpec("get_tensor_shape", 0x2F, results=None, counted_results=True,
           operands=(Operand("src"),)),
    _view_access("load_view_tko", 0x3E, results=2, value_first=False),
    _view_access("store_view_tko", 0x66, results=1, value_first=True),
    OpSpec("load_ptr_tko", 0x3D, results=2, attrs=(
        ORDERING,
        Attr("memory_scope", A.ENUM, MemoryScope, flag=0),
        Attr("optimization_hints", A.HINTS, flag=1),
    ), operands=(Operand("source"), Operand("mask", O.OPT, flag=2),
                 Operand("padding_value", O.OPT, flag=3), Operand("token", O.OPT, flag=4))),
    OpSpec("store_ptr_tko", 0x65, attrs=(
        ORDERING,
        Attr("memory_scope", A.ENUM, MemoryScope, flag=0),
        Attr("optimization_hints", A.HINTS, flag=1),
    ), operands=(Operand("destination"), Operand("value"), Operand("mask", O.OPT, flag=2),
                 Operand("token", O.OPT, flag=3))),
    OpSpec("atomic_rmw_tko", 0x08, results=2, attrs=(ORDERING, SCOPE_REQ, MODE), operands=(
        Operand("pointers"), Operand("arg"), Operand("mask", O.OPT, flag=0),
        Operand("token", O.OPT, flag=1))),
    OpSpec("atomic_cas_tko", 0x07, results=2, attrs=(ORDERING, SCOPE_REQ), operands=(
        Operand("pointers"), Operand("cmp"), Operand("val"), Operand("mask", O.OPT, flag=0),
        Operand("token", O.OPT, flag=1))),
    OpSpec("atomic_red_view_tko", 0x75, counted_results=True, since=V13_3,
           attrs=(ORDERING, SCOPE_REQ, MODE),
           operands=(Operand("view"), Operand("index", O.SIZED), Operand("value"),
                     Operand("token", O.OPT, flag=0))),
    OpSpec("memory_fence_alias_tko", 0x7A, operands=(Operand("token"),), since=V13_4),
    OpSpec("gdc_launch_dependents_tko", 0x77, operands=(Operand("token", O.OPT, flag=0),),
           since=V13_4),
    OpSpec("gdc_wait_tko", 0x78, operands=(Operand("token", O.OPT, flag=0),), since=V13_4),
    OpSpec("alloca", 0x71, since=V13_3, attrs=(
        Attr("global", A.UNIT, flag=0), Attr("num_elem", A.INT), Attr("alignment", A.INT))),
    OpSpec("get_global", 0x2C, attrs=(Attr("name", A.STR),)),
    # -- assumptions and debugging --
    OpSpec("assume", 0x06, attrs=(Attr("predicate", A.TAGGED),), operands=(Operand("value"),)),
    OpSpec("assert", 0x05, results=0, attrs=(Attr("message", A.STR),),
           operands=(Operand("condition"),)),
    OpSpec("print_tko", 0x55, counted_results=True, attrs=(Attr("str", A.STR),),
           operands=(Operand("args", O.SIZED), Operand("token", O.OPT, flag=0, since=V13_2))),
)

OPS: dict[str, OpSpec] = {s.name: s for s in _SPECS}
BY_OPCODE: dict[int, OpSpec] = {s.opcode: s for s in _SPECS}

# Ops that end a region's block; the builder checks every block ends in one.
TERMINATORS = frozenset({"yield", "continue", "break", "return"})


def _check_table() -> None:
    """Opcodes and names are unique, and flag bits within an op are distinct."""
    assert len(OPS) == len(_SPECS) == len(BY_OPCODE), "duplicate op name or opcode"
    for s in _SPECS:
        fields: list[Attr | Operand] = [*s.attrs, *s.operands]
        bits = [f.flag for f in fields if f.flag is not None]
        assert len(bits) == len(set(bits)), s.name
        assert sum(o.kind is O.REST for o in s.operands) <= 1, s.name
        assert not any(o.kind is O.REST for o in s.operands) or s.counted_operands, s.name


_check_table()
