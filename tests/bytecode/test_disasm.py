"""tileirdisasm is the oracle: it must read every program, show the same op structure, and
match the golden texts (regenerate with CUTILE_UPDATE_GOLDEN=1 after a deliberate change)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from bc_programs import PROGRAMS

from cutile.compiler.bytecode import V13_3, V13_4, Module, Version, encode
from cutile.compiler.bytecode.ir import Op
from cutile.compiler.toolchain import Toolchain, disassemble

GOLDEN = Path(__file__).parent / "golden"
_OP_LINE = re.compile(r"^(?:%[\w#:]+(?:, %[\w#:]+)* = )?([a-z_][a-z0-9_]*)\b")


def structure(mod: Module) -> list[str]:
    """Op names in program order with nesting depth; operand-less yields are implicit in text."""
    out: list[str] = []

    def walk(ops: list[Op], depth: int) -> None:
        for op in ops:
            if op.name == "yield" and not op.flat_operands():
                continue
            out.append(f"{depth}:{op.name}")
            for block in op.regions:
                walk(block.ops, depth + 1)
    for fn in mod.functions:
        out.append(f"0:entry @{fn.name}")
        walk(fn.body.ops, 1)
    return out


def disasm_structure(text: str) -> list[str]:
    out: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        depth = (len(line) - len(line.lstrip())) // 2
        if stripped.startswith("entry @"):
            out.append(f"0:entry @{stripped[7:].split('(')[0]}")
            continue
        m = _OP_LINE.match(stripped)
        if m:
            out.append(f"{depth}:{m.group(1)}")
    return out


@pytest.mark.parametrize("version", [V13_3, V13_4], ids=str)
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_tileirdisasm_reads_the_same_structure(disasm_toolchain: Toolchain, name: str,
                                               version: Version) -> None:
    mod = PROGRAMS[name]()
    text = disassemble(disasm_toolchain, encode(mod, version))
    assert disasm_structure(text) == structure(mod)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_golden_text(disasm_toolchain: Toolchain, name: str) -> None:
    text = disassemble(disasm_toolchain, encode(PROGRAMS[name](), V13_4))
    path = GOLDEN / f"{name}.tileir"
    if os.environ.get("CUTILE_UPDATE_GOLDEN"):
        path.write_text(text)
    assert path.exists(), f"missing golden {path.name}; run with CUTILE_UPDATE_GOLDEN=1"
    assert text == path.read_text()


def test_disasm_details(disasm_toolchain: Toolchain) -> None:
    """Attributes the structure check cannot see: hints, assumptions, padding, reduce identity."""
    text = disassemble(disasm_toolchain, encode(PROGRAMS["softmax"](), V13_4))
    assert "optimization_hints=<default = {occupancy = 2}>" in text
    assert "assume div_by<16>" in text and "padding_value = neg_inf" in text
    assert "0xFF800000" in text or "-inf" in text.lower()
    text = disassemble(disasm_toolchain, encode(PROGRAMS["assumptions"](), V13_4))
    assert "bounded<0, 1073741824>" in text and "permute" in text and "scan" in text
