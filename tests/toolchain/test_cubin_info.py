"""`Compiled.resources`: registers, CTA size and memory read from real cubins, on the CPU."""

from __future__ import annotations

import importlib.util
import re
import shutil
import struct
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

import cutile as ct
from cutile import bf16, f32
from cutile.compiler.compile import Compiled
from cutile.compiler.toolchain import Toolchain
from cutile.compiler.toolchain import nvinfo as nv
from cutile.compiler.toolchain.cubin_info import cubin_resources
from cutile.compiler.toolchain.elf import read_elf
from cutile.diagnostics.errors import CompileError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _module(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _add() -> Compiled:
    add = _module(EXAMPLES / "add.py", "cutile_cubin_info_add").add
    z = ct.meta((1 << 20,), f32).partition((1024,))
    out: Compiled = add.compile(z, ct.meta((1 << 20,), f32), ct.meta((1 << 20,), f32))
    return out


def _attention(tmp_path: Path, decorator: str) -> Compiled:
    """examples/attention.py with its kernel decorator replaced (a test-local kernel source)."""
    src = (EXAMPLES / "attention.py").read_text()
    src, n = re.subn(r"@ct\.kernel(\([^)]*\))?\ndef attention", f"{decorator}\ndef attention", src)
    assert n == 1
    tag = re.sub(r"\W", "_", decorator)
    path = tmp_path / f"attention{tag}.py"
    path.write_text(src)
    attention = _module(path, f"cutile_cubin_info_attention{tag}").attention
    t = (8, 1024, 64)
    out: Compiled = attention.compile(ct.meta(t, bf16).partition((1, 64, 64)), ct.meta(t, bf16),
                                      ct.meta(t, bf16), ct.meta(t, bf16), 0.125, BN=64,
                                      CAUSAL=False)
    return out


def _sane(threads: int | None, registers: int) -> int:
    assert threads is not None and threads % 32 == 0 and 32 <= threads <= 1024
    assert 0 < registers <= 255
    return threads


def test_vector_add(toolchain: Toolchain) -> None:
    r = _add().resources
    _sane(r.threads, r.registers)
    assert r.kernel == "add" and r.block is not None and r.block[1:] == (1, 1)
    assert (r.local_bytes, r.stack_bytes, r.spill_refills, r.shared_bytes) == (0, 0, 0, 0)
    assert r.cluster is None and r.param_bytes > 0
    assert str(r) == f"{r.registers} regs, {r.threads} threads, 0 B smem, 0 B stack, " \
                     "0 spill/refill"


def test_attention_with_and_without_an_occupancy_hint(toolchain: Toolchain,
                                                      tmp_path: Path) -> None:
    plain = _attention(tmp_path, "@ct.kernel").resources
    _sane(plain.threads, plain.registers)
    assert plain.shared_bytes > 0 and plain.max_registers == 255
    two = _attention(tmp_path, "@ct.kernel(occupancy=2)").resources
    threads = _sane(two.threads, two.registers)
    assert threads == 256 and two.registers <= 128
    assert two.registers <= 65536 // (2 * threads) and two.max_registers == 128


def test_sm80_register_count_agrees_with_the_text_header(toolchain: Toolchain) -> None:
    """sm_80 cubins also keep the count in `.text.<fn>` sh_info bits 24-31 (the fallback)."""
    gemm = _module(EXAMPLES / "gemm.py", "cutile_cubin_info_gemm").gemm
    c = gemm.compile(ct.meta((512, 512), bf16).partition((64, 64)), ct.meta((512, 256), bf16),
                     ct.meta((256, 512), bf16), arch="sm_80", BK=32)
    text = read_elf(c.cubin).section(".text.gemm")
    assert text is not None and text.info >> 24 == c.resources.registers
    assert c.resources.tma is None  # sm_80 cubins have no .nv.compat section


@pytest.mark.parametrize("data, words", [
    (b"", "not an ELF file"),
    (b"\x7fELF" + b"\0" * 12, "not an ELF file"),
    (b"\x7fELF\x01\x01" + b"\0" * 80, "64-bit"),
])
def test_bad_bytes_are_ct506(data: bytes, words: str) -> None:
    with pytest.raises(CompileError) as err:
        cubin_resources(data)
    assert err.value.diagnostics[0].code == "CT506" and words in str(err.value)


def test_truncated_cubin_and_unknown_kernel_are_ct506(toolchain: Toolchain) -> None:
    cubin = _add().cubin
    for data in (cubin[:len(cubin) // 2], cubin[:200]):
        with pytest.raises(CompileError) as err:
            cubin_resources(data)
        assert err.value.diagnostics[0].code == "CT506"
    with pytest.raises(CompileError, match=r"no kernel named 'nope'.*entry points: add"):
        cubin_resources(cubin, "nope")


def test_attribute_records() -> None:
    data = (bytes([nv.EIFMT_NVAL, nv.REG_RECONFIG, 0, 0])
            + bytes([nv.EIFMT_BVAL, nv.NUM_BARRIERS, 2, 0])
            + bytes([nv.EIFMT_HVAL, nv.MAXREG_COUNT]) + struct.pack("<H", 128)
            + bytes([nv.EIFMT_SVAL, nv.REQNTID]) + struct.pack("<H3I", 12, 128, 1, 1)
            + bytes([nv.EIFMT_SVAL, nv.ANNOTATIONS]) + struct.pack("<H4I", 16, 1, 0x20, 1, 0x40))
    attrs = nv.parse_attrs(data)
    assert (attrs[0].fmt, attrs[0].id) == (nv.EIFMT_NVAL, nv.REG_RECONFIG)
    assert [a.number() for a in attrs[1:3]] == [2, 128]
    assert attrs[3].words() == (128, 1, 1) and nv.spill_refills(attrs) == 2
    with pytest.raises(ValueError, match="runs past"):
        nv.parse_attrs(bytes([nv.EIFMT_SVAL, nv.REQNTID, 12, 0, 1, 2]))


def test_matches_cuobjdump_when_installed(toolchain: Toolchain, tmp_path: Path) -> None:
    tool = shutil.which("cuobjdump")
    if tool is None:
        pytest.skip("cuobjdump is not on PATH")
    for c in (_add(), _attention(tmp_path, "@ct.kernel(occupancy=2)")):
        path = tmp_path / f"{c.name}.cubin"
        path.write_bytes(c.cubin)
        out = subprocess.run([tool, "--dump-resource-usage", str(path)], capture_output=True,
                             text=True, check=True).stdout
        usage = dict(re.findall(r"(\w+):(\d+)", out.split("Function")[1]))
        r = c.resources
        assert (r.registers, r.stack_bytes, r.shared_bytes, r.local_bytes) == (
            int(usage["REG"]), int(usage["STACK"]), int(usage["SHARED"]), int(usage["LOCAL"]))
