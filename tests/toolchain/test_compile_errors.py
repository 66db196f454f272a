"""tileiras failures become CT502/CT503 CompileErrors that say what to do."""

from __future__ import annotations

from pathlib import Path

import pytest

from cutile.compiler.bytecode import Module, encode, entry
from cutile.compiler.bytecode.types import (
    TOKEN,
    PartitionViewType,
    PtrType,
    Scalar,
    TensorViewType,
    tile,
)
from cutile.compiler.toolchain import Toolchain, compile_cubin, find_toolchain
from cutile.diagnostics.diagnostic import Span
from cutile.diagnostics.errors import CompileError


def ill_typed() -> bytes:
    """Well-formed bytecode that the tileiras verifier rejects (tile shape != view tile)."""
    mod = Module()
    fn, b = entry(mod, "bad", [tile(PtrType(Scalar.F32))])
    tv_t = TensorViewType(Scalar.F32, (64,), (1,))
    tv = b.op("make_tensor_view", [tv_t], fn.params[0], [], []).result
    pv = b.emit("make_partition_view", [PartitionViewType((64,), tv_t, (0,))], tv)
    zero = b.constant(0, tile(Scalar.I32))
    b.op("load_view_tko", [tile(Scalar.F32, 32), TOKEN], pv, [zero])
    b.op("return", [])
    return encode(mod)


def test_rejected_bytecode_is_ct503_and_kept(toolchain: Toolchain, tmp_path: Path) -> None:
    data = ill_typed()
    span = Span("kernels.py", 12, 4, 12, 20)
    with pytest.raises(CompileError) as err:
        compile_cubin(toolchain, data, "sm_90", kernel="bad", keep_dir=tmp_path, span=span)
    diag = err.value.diagnostics[0]
    assert diag.code == "CT503" and diag.span == span
    kept = list(tmp_path.glob("bad-*.tileirbc"))
    assert len(kept) == 1 and kept[0].read_bytes() == data
    assert str(kept[0]) in diag.message
    assert "load_view_tko" in diag.message  # tileiras's own first error line
    assert kept[0].with_suffix(".log").read_text()


def test_foreign_toolkit_failure_is_ct502(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What tileiras does when CUDA_HOME's libnvvm does not match: exit 5, one vague line."""
    tool = tmp_path / "cuda-13.0" / "bin" / "tileiras"
    tool.parent.mkdir(parents=True)
    tool.write_text('#!/bin/sh\ncase "$1" in --list-versions) echo 13.4;; --version) '
                    'echo "release 13.4, V13.4.92";; *) echo "error: failed to compile Tile IR '
                    'program" >&2; exit 5;; esac\n')
    tool.chmod(0o755)
    tc = find_toolchain({"CUTILE_TILEIRAS": str(tool), "CUDA_HOME": str(tool.parents[1])})
    monkeypatch.setenv("CUDA_HOME", str(tool.parents[1]))
    with pytest.raises(CompileError) as err:
        compile_cubin(tc, ill_typed(), "sm_90", keep_dir=tmp_path)
    diag = err.value.diagnostics[0]
    assert diag.code == "CT502"
    assert "CUDA_HOME=" in diag.message and "unset CUDA_HOME" in diag.message


def test_unknown_arch_is_a_value_error(toolchain: Toolchain) -> None:
    with pytest.raises(ValueError, match="sm_91"):
        compile_cubin(toolchain, ill_typed(), "sm_91")
