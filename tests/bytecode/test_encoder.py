"""Encoder/decoder: round trips, SSA numbering with region scoping, version gates, errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from bc_programs import F32, IDX, PROGRAMS, vector_add

from cutile.compiler.bytecode import (
    V13_3,
    V13_4,
    BuildError,
    EncodeError,
    Module,
    Version,
    decode,
    encode,
    entry,
    print_module,
    read_version,
)
from cutile.compiler.bytecode.__main__ import main as dump_main
from cutile.compiler.bytecode.ir import Op
from cutile.compiler.bytecode.optable import BY_OPCODE, OPS
from cutile.compiler.bytecode.types import TOKEN, tile
from cutile.compiler.bytecode.wire import BytecodeFormatError


def _ops(mod: Module) -> list[Op]:
    out: list[Op] = []

    def walk(ops: list[Op]) -> None:
        for op in ops:
            out.append(op)
            for block in op.regions:
                walk(block.ops)
    for fn in mod.functions:
        walk(fn.body.ops)
    return out


@pytest.mark.parametrize("version", [V13_3, V13_4], ids=str)
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_round_trip_is_byte_identical(name: str, version: Version) -> None:
    data = encode(PROGRAMS[name](), version)
    assert data[:8] == b"\x7fTileIR\x00" and data[-1] == 0
    assert read_version(data) == version
    again = decode(data)
    assert encode(again, version) == data
    assert [op.name for op in _ops(again)] == [op.name for op in _ops(PROGRAMS[name]())]
    assert encode(PROGRAMS[name](), version) == data  # deterministic


def test_version_deltas_13_3_vs_13_4() -> None:
    """13.4 adds optflags to ptr/tensor_view types and `inbounds` to view loads/stores."""
    new, old = encode(vector_add(), V13_4), encode(vector_add(), V13_3)
    assert len(new) - len(old) == 8  # 1 ptr + 1 tensor_view flag byte, 2 loads + 1 store x 2
    assert b"\x0c\x00" in new  # ptr type: tag 12, optflags 0, then the pointee


def test_region_values_are_scoped() -> None:
    """Values inside a region reuse indices after it; a region op's results come after it."""
    mod = Module()
    fn, b = entry(mod, "k", [IDX])
    (n,) = fn.params
    zero, one = b.constant(0, IDX), b.constant(1, IDX)  # %1, %2
    loop = b.op("for", [IDX], zero, n, one, [zero], regions=[[IDX, IDX]])
    with b.at(loop.regions[0]) as (i, acc):  # %3, %4
        b.op("continue", [], [b.emit("addi", [IDX], acc, i)])  # %5
    after = b.emit("addi", [IDX], loop.result, n)  # loop result %3, then %4
    b.op("return", [])
    data = encode(mod)
    text = print_module(decode(data))
    assert "^(%3: tile<i32>, %4: tile<i32>):" in text
    assert "%5 = addi %4, %3" in text
    assert "} -> %3 : tile<i32>" in text
    assert "%4 = addi %3, %0" in text
    del after


def test_value_used_outside_its_region_is_rejected() -> None:
    mod = Module()
    fn, b = entry(mod, "k", [IDX])
    zero = b.constant(0, IDX)
    loop = b.op("for", [], zero, fn.params[0], zero, [], regions=[[IDX]])
    with b.at(loop.regions[0]) as (i,):
        b.op("continue", [], [])
    b.emit("addi", [IDX], i, zero)
    b.op("return", [])
    with pytest.raises(EncodeError, match="not visible"):
        encode(mod)


def test_missing_terminators_are_rejected() -> None:
    mod = Module()
    _, b = entry(mod, "k", [IDX])
    b.constant(0, IDX)
    with pytest.raises(EncodeError, match="return"):
        encode(mod)


def test_builder_validates_against_the_op_table() -> None:
    mod = Module()
    fn, b = entry(mod, "k", [IDX])
    x = fn.params[0]
    with pytest.raises(BuildError, match="unknown op"):
        b.op("addx", [IDX], x, x)
    with pytest.raises(BuildError, match="2 results"):
        b.op("load_view_tko", [IDX], x, [x])
    with pytest.raises(BuildError, match="needs attribute"):
        b.emit("cmpi", [tile(F32)], x, x)
    with pytest.raises(BuildError, match="no attribute"):
        b.emit("addi", [IDX], x, x, rounding_mode=1)
    with pytest.raises(BuildError, match="must be a Value"):
        b.emit("addi", [IDX], x, [x])


def test_newer_ops_and_attributes_are_refused_for_older_versions() -> None:
    mod = Module()
    fn, b = entry(mod, "k", [IDX, tile(F32)])
    b.emit("fpowi", [tile(F32)], fn.params[1], fn.params[0])  # 13.4 only
    b.op("return", [])
    encode(mod, V13_4)
    with pytest.raises(EncodeError, match=r"fpowi needs bytecode 13\.4"):
        encode(mod, V13_3)
    mod = Module()
    fn, b = entry(mod, "k", [tile(F32)])
    b.emit("ftoi", [IDX], fn.params[0], saturating=True)  # the flag is 13.4 only
    b.op("return", [])
    assert encode(mod, V13_4)
    with pytest.raises(EncodeError, match="saturating"):
        encode(mod, V13_3)


def test_unsupported_version_is_refused() -> None:
    with pytest.raises(EncodeError, match="not supported"):
        encode(vector_add(), Version(13, 5))


def test_decoder_rejects_corrupt_input() -> None:
    data = encode(vector_add())
    with pytest.raises(BytecodeFormatError):
        decode(b"not bytecode")
    with pytest.raises(BytecodeFormatError):
        decode(data[:-20])


def test_op_table_is_consistent() -> None:
    assert OPS["addf"].opcode == 0x02 and OPS["store_view_tko"].opcode == 0x66
    assert BY_OPCODE[0x7A].name == "memory_fence_alias_tko"
    assert all(0 <= s.opcode < 0x80 for s in OPS.values())
    assert OPS["load_view_tko"].has_flags(V13_3)
    assert not OPS["ftoi"].has_flags(V13_3) and OPS["ftoi"].has_flags(V13_4)


def test_tokens_and_print_results_decode() -> None:
    data = encode(PROGRAMS["debug_ops"]())
    prints = [op for op in _ops(decode(data)) if op.name == "print_tko"]
    assert [op.attrs["str"] for op in prints] == ["block %d of n=%d\n", "scale=%f\n"]
    assert all(op.results[0].type == TOKEN for op in prints)
    assert prints[1].operands[1] is prints[0].results[0]


def test_dump_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "vadd.tileirbc"
    path.write_bytes(encode(vector_add()))
    assert dump_main(["--dump", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Tile IR bytecode 13.4" in out and "entry @vadd(" in out and "addf" in out
    path.write_bytes(b"junk")
    assert dump_main(["--dump", str(path)]) == 1


def test_entry_hints_newer_than_the_version_are_left_out() -> None:
    """A key newer than the written version (`Hints.since`: `num_worker_warps_per_cta` exists
    from 13.3 on) is dropped; keys with no version exist since 13.1."""
    from cutile.compiler.bytecode.attrs import Hints
    from cutile.compiler.bytecode.encoder import _hints_at

    since = (("num_worker_warps_per_cta", V13_3),)
    hints = Hints.entry(occupancy=2, num_worker_warps_per_cta=8, since=since)
    assert _hints_at(hints, V13_3) == hints
    old = _hints_at(hints, Version(13, 2))
    assert old is not None and [k for k, _ in old.by_arch[0][1].items] == ["occupancy"]
    assert _hints_at(Hints.entry(num_worker_warps_per_cta=4, since=since), Version(13, 2)) is None
    assert _hints_at(Hints.entry(num_worker_warps_per_cta=4), Version(13, 2)) is not None
    mod = Module()
    _, b = entry(mod, "k", [tile(F32)], hints=hints)
    b.op("return", [])
    got = decode(encode(mod, V13_4)).functions[0].hints
    assert got == hints
