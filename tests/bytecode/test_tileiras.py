"""tileiras assembles every program into a cubin: sm_80/90/100/120 at 13.4, sm_90 at 13.3."""

from __future__ import annotations

import struct

import pytest
from bc_programs import PROGRAMS

from cutile.compiler.bytecode import V13_3, V13_4, Version, encode
from cutile.compiler.toolchain import Toolchain, compile_cubin

EM_CUDA = 190
TARGETS = [(V13_4, "sm_80"), (V13_4, "sm_90"), (V13_4, "sm_100"), (V13_4, "sm_120"),
           (V13_3, "sm_90")]


def check_cubin(cubin: bytes, kernel: str) -> None:
    assert cubin[:4] == b"\x7fELF", "not an ELF file"
    (machine,) = struct.unpack_from("<H", cubin, 18)
    assert machine == EM_CUDA
    assert kernel.encode() + b"\x00" in cubin  # the symbol is the function name, unmangled


@pytest.mark.parametrize(("version", "arch"), TARGETS, ids=[f"{v}-{a}" for v, a in TARGETS])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_compiles(toolchain: Toolchain, name: str, version: Version, arch: str) -> None:
    mod = PROGRAMS[name]()
    out = compile_cubin(toolchain, encode(mod, version), arch, kernel=name)
    check_cubin(out.cubin, mod.functions[0].name)


def test_sm90_gemm_uses_tma_and_tensor_cores(toolchain: Toolchain) -> None:
    """The div_by<16> facts on bases and strides are what let tileiras pick TMA on Hopper."""
    out = compile_cubin(toolchain, encode(PROGRAMS["gemm"]()), "sm_90", kernel="gemm",
                        remarks="all")
    assert "TMA" in out.remarks, out.remarks[:2000]
    assert "SM90" in out.remarks or "wgmma" in out.remarks.lower(), out.remarks[:2000]
