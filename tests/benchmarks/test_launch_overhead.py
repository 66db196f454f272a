"""`launch_overhead.py --backend cuda-null` runs the CUDA backend's launch path (compile,
parameter blocks, driver wrappers, graph capture and replay) over the do-nothing bindings of
`benchmarks/null_driver.py`, without a GPU, and reports every number."""

from __future__ import annotations

import pytest

from benchmarks import launch_overhead


def test_cuda_null_mode_runs_the_cuda_launch_path() -> None:
    pytest.importorskip("cuda.bindings")
    from cutile.runtime import context
    from cutile.runtime.backends.cuda import CudaBackend
    from cutile.runtime.cuda import driver

    real = driver.drv
    old = context.backend() if context._backend is not None else None
    try:
        results = launch_overhead.main(["--backend", "cuda-null", "--launches", "300",
                                        "--pieces"])
        assert isinstance(context.backend(), CudaBackend)
        assert driver.drv is not real  # the stand-in took every call
    finally:
        driver.use_binding(real)
        context.set_backend(old)
    for name in ("then_chain_us", "launch+sync_us", "unchecked_then_chain_us",
                 "then_chain_median_us", "graph_replay_us", "linked_us", "enqueue_us"):
        assert 0 < results[name] < 1000, name
    assert results["then_chain_median_us"] >= results["then_chain_us"]
