"""`ct.wait_for_predecessor()` lowers to gdc_wait with every later memory access ordered after
it (reads of read-only tensors too), then gdc_launch_dependents; what comes before the wait keeps
the entry token. tileiras 13.4 compiles it for sm_90 (a real cubin, on the CPU). With a CUDA
disassembler at hand (`CUTILE_CUOBJDUMP`, or cuobjdump on PATH with nvdisasm), the SASS has the
weight load before ACQBULK (griddepcontrol.wait), then PREEXIT (griddepcontrol.launch_dependents),
then the load of what the predecessor wrote."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import cutile as ct
from cutile import Mut, Tensor, f32
from cutile.compiler.toolchain import KernelCompiler


@ct.kernel(pdl=True)
def scale(z: Mut[Tensor[f32, (128,)]], w: Tensor[f32, (-1,)], x: Tensor[f32, (-1,)]) -> None:
    wt = ct.load_tile_like(w, z)
    ct.wait_for_predecessor()
    z.store(wt * ct.load_tile_like(x, z))


@ct.kernel(pdl=True)
def accumulate(z: Mut[Tensor[f32, (128,)]], x: Tensor[f32, (-1,)]) -> None:
    z.store(ct.zeros((128,), f32))
    ct.wait_for_predecessor()
    z.store(z.load() + ct.load_tile_like(x, z))


def _args() -> tuple[object, ...]:
    return (ct.meta((1024,), f32).partition((128,)), ct.meta((1024,), f32),
            ct.meta((1024,), f32))


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines()]


def test_later_loads_follow_the_wait_and_dependents_launch_after_it(
        compiler: KernelCompiler) -> None:
    c = scale.compile(*_args(), arch="sm_90")
    lines = _lines(c.tileir)
    at = {name: next(i for i, line in enumerate(lines) if name in line)
          for name in ("gdc_wait_tko", "gdc_launch_dependents_tko")}
    loads = [i for i, line in enumerate(lines) if "load_view_tko" in line]
    assert len(loads) == 2 and loads[0] < at["gdc_wait_tko"] < at["gdc_launch_dependents_tko"]
    wait = re.match(r"(%\w+) = gdc_wait_tko", lines[at["gdc_wait_tko"]])
    assert wait is not None
    assert f"token = {wait.group(1)}" in lines[loads[1]]  # the read after the wait
    assert f"token = {wait.group(1)}" in lines[at["gdc_launch_dependents_tko"]]
    assert "token = %0 " in lines[loads[0]]  # the weight load keeps the entry token
    assert c.cubin[:4] == b"\x7fELF"


def test_a_slab_written_before_the_wait_joins_its_token_with_the_wait(
        compiler: KernelCompiler) -> None:
    c = accumulate.compile(ct.meta((1024,), f32).partition((128,)), ct.meta((1024,), f32),
                           arch="sm_90")
    lines = _lines(c.tileir)
    wait = next(i for i, line in enumerate(lines) if "gdc_wait_tko" in line)
    joins = [i for i, line in enumerate(lines) if "join_tokens" in line]
    assert joins and joins[0] > wait
    assert c.cubin[:4] == b"\x7fELF"


def _cuobjdump() -> str | None:
    found = os.environ.get("CUTILE_CUOBJDUMP") or shutil.which("cuobjdump")
    if found is None:
        return None
    if shutil.which("nvdisasm", path=f"{Path(found).parent}{os.pathsep}"
                    f"{os.environ.get('PATH', '')}") is None:
        return None
    return found


def test_the_sass_waits_before_the_dependent_load(compiler: KernelCompiler,
                                                   tmp_path: Path) -> None:
    tool = _cuobjdump()
    if tool is None:
        pytest.skip("no cuobjdump with nvdisasm (set CUTILE_CUOBJDUMP)")
    cubin = tmp_path / "scale.cubin"
    cubin.write_bytes(scale.compile(*_args(), arch="sm_90").cubin)
    env = dict(os.environ, PATH=f"{Path(tool).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    sass = subprocess.run([tool, "-sass", str(cubin)], capture_output=True, text=True, env=env,
                          check=True).stdout
    ops = [m.group(1) for m in re.finditer(r"/\*[0-9a-f]{4}\*/\s+(?:@!?P\d\s+)?([A-Z][A-Z0-9.]*)",
                                           sass)]
    wait, launch = ops.index("ACQBULK"), ops.index("PREEXIT")
    loads = [i for i, op in enumerate(ops) if op.startswith("LDG")]
    assert loads[0] < wait < launch < loads[1]
