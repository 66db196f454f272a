"""User code written in the kernel language passes `mypy --strict` (annotations stay valid types).

The file is also checked by the frontend, so what mypy accepts here is a real, clean kernel.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cutile.compiler import check_source

USER_FILE = '''\
"""A user's module: the quick start, a GEMM with a K loop, and a row reduction."""
from __future__ import annotations

import cutile as ct
from cutile import Const, Mut, Tensor, f16, f32


@ct.kernel
def add(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], y: Tensor[f32, (-1,)],
        B: Const[int]) -> None:
    tx = ct.load_tile_like(x, z)
    ty = ct.load_tile_like(y, z)
    z.store(tx + ty)


@ct.function
def scaled(t: ct.TileValue, factor: float = 2.0) -> ct.TileValue:
    return t * factor


@ct.kernel
def gemm(z: Mut[Tensor[f16, ("BM", "BN")]], a: Tensor[f16, (-1, -1)], b: Tensor[f16, (-1, -1)],
         BM: Const[int], BN: Const[int], BK: Const[int]) -> None:
    i, j = z.tile_index()
    pa = a.partition((BM, BK))
    pb = b.partition((BK, BN))
    acc = ct.zeros((BM, BN), f32)
    for k in range(ct.num_tiles(pa, 1)):
        acc = ct.mma(pa.load((i, k)), pb.load((k, j)), acc)
    z.store(scaled(acc, 0.5).astype(f16))


@ct.kernel
def row_sums(z: Mut[Tensor[f32, (16,)]], x: Tensor[f16, (-1, 64)]) -> None:
    t = x.load_tile((16, 64), (ct.block_id(0), 0)).astype(f32)
    s = ct.sum(t, 1)
    m = ct.max(t, axis=1)
    ct.printf("row max %f", ct.max(m, 0))
    z.store(ct.where(s > 0.0, s, ct.exp(m)))
'''


ROOT = Path(__file__).resolve().parents[1]  # mypy finds `cutile` here (editable installs use an
# import hook that mypy does not follow)


def run_mypy(path: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MYPY")}
    env["MYPYPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental",
         "--cache-dir", str(tmp_path / ".mypy_cache"), str(path)],
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)


def test_the_user_file_is_a_clean_kernel_module() -> None:
    assert check_source(USER_FILE, "user.py") == []


@pytest.mark.slow
def test_user_code_passes_mypy_strict(tmp_path: Path) -> None:
    path = tmp_path / "user_kernels.py"
    path.write_text(USER_FILE)
    proc = run_mypy(path, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Success" in proc.stdout


@pytest.mark.slow
def test_mypy_still_catches_mistakes_in_user_code(tmp_path: Path) -> None:
    path = tmp_path / "user_bad.py"
    path.write_text(USER_FILE + "\n\nwrong: int = ct.block_id\n")
    proc = run_mypy(path, tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    line = len(USER_FILE.splitlines()) + 3
    assert f"user_bad.py:{line}: error: Incompatible types in assignment" in proc.stdout
