"""Vector add end to end: entry ABI, views, assumptions, the cubin, the cache, dumps."""

from __future__ import annotations

from pathlib import Path

import pytest
from lower_util import EXAMPLES, module, spec_for

from cutile.compiler.compile import compile_kernel, dump
from cutile.compiler.toolchain import KernelCompiler


def test_add_abi_and_text(compiler: KernelCompiler) -> None:
    info = module(EXAMPLES / "add.py")
    c = compile_kernel(info, "add", spec_for(info, "add", {"B": 128}), compiler=compiler)
    # z, x, y: a pointer and a dynamic extent each; the unit stride is static.
    assert [(s.arg, s.field, s.ctype) for s in c.slots] == [
        (0, "ptr", "u64"), (0, "shape", "i32"), (1, "ptr", "u64"), (1, "shape", "i32"),
        (2, "ptr", "u64"), (2, "shape", "i32")]
    assert c.cubin[:4] == b"\x7fELF"
    assert "entry @add(" in c.tileir
    assert c.tileir.count("assume div_by<16>") == 6  # 3 bases, 3 extents
    assert c.tileir.count("load_view_tko") == 2 and "store_view_tko" in c.tileir
    assert "strides=[1]" in c.tileir and "addf" in c.tileir


def test_cache_hit_and_key(compiler: KernelCompiler) -> None:
    info = module(EXAMPLES / "add.py")
    spec = spec_for(info, "add", {"B": 256})
    first = compile_kernel(info, "add", spec, compiler=compiler)
    again = compile_kernel(info, "add", spec, compiler=compiler)
    assert again.source == "memory" and again.cubin == first.cubin
    weaker = compile_kernel(info, "add", spec_for(info, "add", {"B": 256}, align=4),
                            compiler=compiler)
    assert weaker.key.digest() != first.key.digest()
    assert "div_by<16>, %arg0" not in weaker.tileir and "div_by<4>, %arg0" in weaker.tileir


def test_dump(compiler: KernelCompiler, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    info = module(EXAMPLES / "add.py")
    c = compile_kernel(info, "add", spec_for(info, "add", {"B": 128}), compiler=compiler)
    env = {"CUTILE_DUMP": "bytecode,tileir", "CUTILE_DUMP_DIR": str(tmp_path)}
    files = dump(c, str(EXAMPLES / "add.py"), env)
    assert sorted(p.name for p in files) == ["add.sm_90.tileir", "add.sm_90.tileirbc"]
    assert (tmp_path / "add.sm_90.tileirbc").read_bytes() == c.bytecode
    with pytest.raises(ValueError, match="unknown kind"):
        dump(c, str(EXAMPLES / "add.py"), {"CUTILE_DUMP": "ptx"})
    monkeypatch.setenv("CUTILE_DUMP", "tileir")
    monkeypatch.setenv("CUTILE_DUMP_DIR", str(tmp_path / "auto"))
    compile_kernel(info, "add", spec_for(info, "add", {"B": 128}), compiler=compiler)
    assert (tmp_path / "auto" / "add.sm_90.tileir").read_text() == c.tileir
