"""`ct.autotune` on a real GPU (`pytest -m gpu`): CUDA-event timing, the choice on disk, the
result of the chosen config; skips cleanly without a GPU."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import cutile as ct
from cutile import bf16

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("use_cuda")]
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _softmax() -> Any:
    spec = importlib.util.spec_from_file_location("cutile_at_softmax", EXAMPLES / "softmax.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_autotune_times_on_the_device_and_caches(tmp_path: Path) -> None:
    mod = _softmax()
    configs = [ct.Config(tile=(1, 4096), occupancy=4), ct.Config(tile=(2, 4096), occupancy=2),
               ct.Config(tile=(2, 4096), occupancy=2, worker_warps=8),
               ct.Config(tile=(4, 4096), occupancy=2, worker_warps=8)]
    tuned = ct.autotune(mod.softmax, configs=configs, key=["x"], cache_dir=tmp_path)
    x = ct.randn((4096, 4096), bf16, seed=0)
    out = ct.zeros((4096, 4096), bf16).partition((4, 4096))
    out, x = tuned(out, x).sync()
    (times,) = tuned.timings.values()
    assert all(0 < t < 0.01 for t in times), times  # seconds per launch, ~10-100 us here
    best = tuned.best(out, x)
    assert times[configs.index(best)] == min(times) and out.tile == best.tile
    got = out.unpartition().numpy().astype(np.float32)
    np.testing.assert_allclose(got, mod.reference(x.numpy().astype(np.float32)), atol=2e-3)
    again = ct.autotune(mod.softmax, configs=configs, key=["x"], cache_dir=tmp_path)
    assert again.best(ct.meta((4096, 4096), bf16).partition((4, 4096)), x) == best
    assert again.timings == {}  # read from disk


def test_cold_l2_timing_is_slower_than_warm_on_an_input_that_fits_in_l2(tmp_path: Path) -> None:
    """A 16 MB softmax fits in the H200's 50 MB L2: replayed back to back it reads from L2; with
    the cache emptied before each launch it reads from HBM, so it must time slower."""
    mod = _softmax()
    configs = [ct.Config(tile=(2, 4096), occupancy=2), ct.Config(tile=(1, 4096), occupancy=4)]
    x = ct.randn((2048, 4096), bf16, seed=1)
    out = ct.zeros((2048, 4096), bf16).partition((2, 4096))
    times = []
    for cold in (False, True):
        tuned = ct.autotune(mod.softmax, configs=configs, cache_dir=tmp_path, cold_l2=cold)
        out, x = tuned(out, x).sync()
        (per_config,) = tuned.timings.values()  # each setting tuned: no shared disk entry
        times.append(min(per_config))
    warm, cold_time = times
    assert 0 < warm < cold_time < 0.01, times
    got = out.unpartition().numpy().astype(np.float32)
    np.testing.assert_allclose(got, mod.reference(x.numpy().astype(np.float32)), atol=2e-3)
