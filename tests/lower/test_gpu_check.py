"""`pytest -m gpu`: runs gpu_check.py's launches; skips cleanly without a GPU."""

from __future__ import annotations

import pytest


def _has_gpu() -> bool:
    try:
        from cuda.bindings import driver as cu
    except ImportError:
        return False
    try:
        if cu.cuInit(0)[0] != cu.CUresult.CUDA_SUCCESS:
            return False
        err, count = cu.cuDeviceGetCount()
    except Exception:  # no driver library at all
        return False
    return err == cu.CUresult.CUDA_SUCCESS and count > 0


def test_gpu_check_compiles_without_a_gpu() -> None:
    """The script's kernels and specializations compile (this part runs in CI)."""
    import gpu_check

    assert gpu_check.main(["--compile-only"]) == 0


@pytest.mark.gpu
def test_gpu_check(capsys: pytest.CaptureFixture[str]) -> None:
    if not _has_gpu():
        pytest.skip("no CUDA device")
    import gpu_check

    rc = gpu_check.main([])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "FAIL" not in out
