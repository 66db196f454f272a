"""fma contraction (compiler/lower/contract.py): a single-use float product feeding an add/sub
in the same block becomes one `fma`; everything else keeps its separate ops. Every kernel also
assembles with tileiras and round-trips through tileirdisasm."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from lower_util import ROOT, module, spec_for
from test_compile_all import _roundtrip, check_cubin

from cutile.compiler.bytecode import Block, Op
from cutile.compiler.bytecode.types import TileType
from cutile.compiler.compile import compile_kernel, lower_kernel
from cutile.compiler.toolchain import KernelCompiler

KERNELS = ROOT / "tests" / "lower" / "contract_kernels.py"
COUNTED = ("fma", "mulf", "negf", "addf", "subf", "muli", "addi")

# kernel -> how many of each op its Tile IR text holds (others: 0)
EXPECT: dict[str, dict[str, int]] = {
    "add_mul": {"fma": 1},
    "mul_sub": {"fma": 1, "negf": 1},
    "sub_mul": {"fma": 1, "negf": 1},
    "two_uses": {"mulf": 1, "addf": 2},
    "not_fused": {"mulf": 1, "addf": 1, "muli": 1, "addi": 1},
    "broadcasts": {"fma": 2, "mulf": 1, "subf": 1, "addf": 2},
    "narrow_and_wide": {"fma": 3, "negf": 2},
    "loops": {"fma": 1, "mulf": 2, "addf": 3},
}


def _counts(tileir: str) -> Counter[str]:
    return Counter(re.findall(r"=\s*([a-z_]+)\b", tileir))


def _ops(block: Block) -> list[Op]:
    out: list[Op] = []
    for op in block.ops:
        out.append(op)
        for region in op.regions:
            out += _ops(region)
    return out


def _lowered_ops(name: str) -> list[Op]:
    info = module(KERNELS)
    return _ops(lower_kernel(info, name, spec_for(info, name, {})).module.functions[0].body)


@pytest.mark.parametrize("name", sorted(EXPECT))
def test_contraction_in_tileir(compiler: KernelCompiler, name: str) -> None:
    info = module(KERNELS)
    c = compile_kernel(info, name, spec_for(info, name, {}), compiler=compiler)
    check_cubin(c.cubin, name)
    _roundtrip(c.bytecode, c.tileir, name)
    got = _counts(c.tileir)
    assert {op: got[op] for op in COUNTED} == {op: EXPECT[name].get(op, 0) for op in COUNTED}, \
        c.tileir


@pytest.mark.parametrize(("name", "negated"), [("mul_sub", 2), ("sub_mul", 0)])
def test_subtraction_negates_one_operand(name: str, negated: int) -> None:
    """x*y - c is fma(x, y, -c); c - x*y is fma(-x, y, c): no other sign changes."""
    ops = _lowered_ops(name)
    (neg,) = [op for op in ops if op.name == "negf"]
    (fma,) = [op for op in ops if op.name == "fma"]
    operands = fma.flat_operands()
    assert [i for i, v in enumerate(operands) if v is neg.result] == [negated]
    loads = [op.results[0] for op in ops if op.name == "load_view_tko"]
    assert neg.flat_operands()[0] is loads[2 if name == "mul_sub" else 0]


def test_broadcast_operands_have_the_result_shape() -> None:
    """The product's operands and the addend are broadcast to the sum's shape first, exactly
    as the separate mulf/addf would see them."""
    fmas = [op for op in _lowered_ops("broadcasts") if op.name == "fma"]
    shapes = [[v.type.shape for v in (*op.flat_operands(), op.result)
               if isinstance(v.type, TileType)] for op in fmas]
    assert shapes == [[(64, 32)] * 4, [()] * 4]
