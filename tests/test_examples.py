"""Every example runs (interpreter in CI, CUDA with -m gpu), verifies itself, and checks clean."""

from __future__ import annotations

import functools
import importlib.util
import os
import subprocess
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from cutile.compiler import check_source

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))


def _run(path: Path, backend: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CUTILE_BACKEND": backend}
    return subprocess.run([sys.executable, str(path)], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=600)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_checks_clean(path: Path) -> None:
    assert check_source(path.read_text(), str(path)) == []


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_runs_on_interpreter(path: Path) -> None:
    done = _run(path, "interpreter")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "interpreter" in done.stdout


@pytest.mark.gpu
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_runs_on_gpu(path: Path) -> None:
    done = _run(path, "cuda")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "cuda" in done.stdout


# Every example's main() at ragged shapes: sizes that are no multiple of the tiles, smaller than
# one tile, odd (1, 3, 47, 1000). Each main checks itself against NumPy, so padding that enters
# a reduction (a max, a softmax, a variance) or a loop that misses a last partial tile fails.
RAGGED: dict[str, list[dict[str, Any]]] = {
    "add": [dict(n=1, tile=16), dict(n=47, tile=16), dict(n=1000, tile=64)],
    "async_pipeline": [dict(n=1, tile=16), dict(n=1000, tile=64)],
    "attention": [dict(bh=2, seq=48, d=32, bm=32, bn=32), dict(bh=1, seq=1, d=32, bm=32, bn=32),
                  dict(bh=1, seq=47, d=32, bm=16, bn=32), dict(bh=1, seq=100, d=16, bm=64,
                                                                bn=16)],
    "attention_backward": [dict(bh=1, seq=48, d=32, bm=32, bn=32),
                           dict(bh=1, seq=3, d=16, bm=16, bn=16),
                           dict(bh=1, seq=47, d=16, bm=32, bn=16)],
    "cross_entropy": [dict(cases=((3, 47, 16), (1, 1, 16), (2, 1000, 256)))],
    "cuda_graph": [dict(n=47, tile=16, replays=2)],
    "embedding": [dict(vocab=50, dim=47, tokens=3, bt=32, bd=128),
                  dict(vocab=7, dim=1, tokens=1, bt=16, bd=16)],
    "fp8_gemm": [dict(m=47, n=33, k=128, tiles=(32, 32, 64)),
                 dict(m=1, n=3, k=128, tiles=(16, 16, 128)),
                 dict(m=5, n=17, k=200, tiles=(16, 16, 64))],
    "gemm": [dict(m=47, n=33, k=100, tiles=(32, 32, 32)), dict(m=1, n=1, k=1, tiles=(16, 16, 16)),
             dict(m=3, n=1000, k=5, tiles=(16, 64, 16))],
    "layer_norm": [dict(m=3, n=47, rows_per_block=2), dict(m=1, n=1, rows_per_block=1),
                   dict(m=5, n=1000, rows_per_block=2)],
    "layer_norm_rows": [dict(cases=((3, 47, 16), (1, 1, 16), (2, 1000, 256)))],
    "layernorm_backward": [dict(m=3, n=47, rows_per_block=2), dict(m=1, n=1, rows_per_block=1),
                           dict(m=7, n=100, rows_per_block=4)],
    "moe_gather": [dict(tokens=3, k=64, n=47, experts=2, bm=16, bn=32, bk=32),
                   dict(tokens=47, k=100, n=33, experts=3, bm=16, bn=16, bk=32)],
    "mxfp4": [dict(rows=3, cols=64, br=16), dict(rows=5, cols=47, br=4),
              dict(rows=1, cols=1, br=16)],
    "paged_attention": [dict(lens=(1, 3, 47), q_heads=2, kv_heads=1, d=16, page=16, pool=16)],
    "rms_norm": [dict(m=3, n=47, rows_per_block=2), dict(m=1, n=1, rows_per_block=1),
                 dict(m=5, n=1000, rows_per_block=2)],
    "saxpy": [dict(n=47, tile=16), dict(n=1, tile=2048)],
    "softmax": [dict(m=3, n=47, rows_per_block=2), dict(m=1, n=1, rows_per_block=1),
                dict(m=5, n=1000, rows_per_block=4)],
    "softmax_rows": [dict(cases=((3, 47, 16), (1, 1, 16), (2, 1000, 256)))],
    "splitk_gemm": [dict(m=47, n=33, k=100), dict(m=1, n=1, k=3)],
    "torch_interop": [dict(n=47, tile=16)],
}
RAGGED_CASES = [pytest.param(stem, kwargs, id=f"{stem}-{i}")
                for stem, configs in RAGGED.items() for i, kwargs in enumerate(configs)]


def test_every_example_has_ragged_shapes() -> None:
    assert set(RAGGED) == {p.stem for p in EXAMPLES}


@functools.cache
def _example(stem: str) -> ModuleType:
    """An example loaded as a module (its kernels read their source from the file)."""
    spec = importlib.util.spec_from_file_location(f"example_{stem}", ROOT / "examples" /
                                                  f"{stem}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(params=["interpreter", pytest.param("cuda", marks=pytest.mark.gpu)])
def on_backend(request: pytest.FixtureRequest) -> Iterator[str]:
    from cutile.runtime import context

    if request.param == "interpreter":
        from cutile.runtime.backends.interpreter import InterpreterBackend

        be: Any = InterpreterBackend()
    else:
        from cutile.runtime.backends.cuda import CudaBackend

        be = CudaBackend(0)
    old = context.set_backend(be)
    yield request.param
    context.set_backend(old)


@pytest.mark.parametrize(("stem", "kwargs"), RAGGED_CASES)
def test_example_at_ragged_shapes(on_backend: str, stem: str, kwargs: dict[str, Any],
                                  capsys: pytest.CaptureFixture[str]) -> None:
    _example(stem).main(**kwargs)
    out = capsys.readouterr().out
    assert on_backend in out, out  # it ran where asked (each main asserts its own results)


@pytest.fixture
def null_cuda(toolchain: object) -> Iterator[None]:
    """The CUDA backend over benchmarks/null_driver.py's do-nothing bindings: kernels compile
    with the real tileiras and every launch is packed, but nothing runs."""
    pytest.importorskip("cuda.bindings")
    from benchmarks import launch_overhead

    with launch_overhead.null_cuda():
        yield


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # (NumPy on never-written host copies)
@pytest.mark.parametrize(("stem", "kwargs"), RAGGED_CASES)
def test_example_at_ragged_shapes_lowers_for_sm_90(null_cuda: None, stem: str,
                                                   kwargs: dict[str, Any]) -> None:
    """Each ragged case through the CUDA path without a GPU: every kernel compiles for sm_90
    and every launch's parameters pack. The null driver computes nothing, so the example's own
    NumPy check may fail; nothing else may. (torch_interop's point is the exchange with another
    library's device memory, which a null driver has none of.)"""
    if stem == "torch_interop":
        pytest.skip("DLPack exchange needs real device memory")
    try:
        _example(stem).main(**kwargs)
    except AssertionError as e:  # the example's own check of results never computed, only
        where = traceback.extract_tb(e.__traceback__)[-1].filename
        assert "numpy" in where or f"examples{os.sep}" in where, where
