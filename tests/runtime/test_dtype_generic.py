"""Kernels generic over the element dtype (vLLM's scalar_t, Triton's dtype from the pointer):
a tensor annotation's dtype names a `Const[DType]` parameter, each launch infers it from its
argument as shape Consts are inferred, and each dtype is its own specialization."""

from collections.abc import Iterator
from typing import Any, TypeVar

import numpy as np
import pytest

import cutile as ct
from cutile import Acc, Const, DType, Mut, Tensor, bf16, f16, f32, i32, u8


@ct.kernel
def transpose(out: Mut[Tensor["T", ("BM", "BN")]], x: Tensor["T", (-1, -1)],
              T: Const[DType], BM: Const[int], BN: Const[int]) -> None:
    i, j = out.tile_index()
    out.store(x.load_tile((BN, BM), (j, i)).transpose())


@ct.kernel
def scale(z: Mut[Tensor["T", ("B",)]], x: Tensor["T", (-1,)], T: Const[DType],
          B: Const[int]) -> None:
    z.store((ct.load_tile_like(x, z).astype(f32) * 2.0).astype(T))


@ct.kernel
def plus_f32(z: Mut[Tensor["T", ("B",)]], x: Tensor["T", (-1,)], T: Const[DType],
             B: Const[int]) -> None:
    z.store(ct.load_tile_like(x, z) + ct.zeros((B,), f32))  # cutile: ignore[CT202] (f16 below)


@ct.kernel
def counts(h: Acc[Tensor["T", (16,)], "add"], x: Tensor[i32, (-1,)], T: Const[DType]) -> None:
    h.add_at((x.load_tile((16,), (0,)) % 16,), ct.full((16,), 1, T))


# the unquoted spelling, for mypy (a module-level TypeVar of the parameter's name)
S = TypeVar("S", bound=ct.TileValue)


@ct.kernel
def negate(z: Mut[Tensor[S, ("B",)]], x: Tensor[S, (-1,)], S: Const[DType], B: Const[int]
           ) -> None:
    z.store(ct.zeros((B,), S) - ct.load_tile_like(x, z))


DTYPES = (f32, f16, bf16, u8)
NAMES = ["f32", "f16", "bf16", "u8"]


def _input(shape: tuple[int, ...], dt: Any) -> tuple[ct.HostTensor, Any]:
    values = (np.arange(int(np.prod(shape))) % 100).reshape(shape).astype(np.float32)
    t = ct.from_numpy(values, dtype=dt)
    return t, values  # every value is exact in each dtype (and doubled, below 256)


def _run(dt: Any) -> tuple[Any, Any, Any, Any]:
    x, xs = _input((37, 100), dt)
    out = ct.zeros((100, 37), dt).partition((32, 64))
    out, _ = transpose(out, x).sync()
    y, ys = _input((100,), dt)
    z = ct.zeros((100,), dt).partition((64,))
    z, _ = scale(z, y).sync()
    o, w = out.unpartition(), z.unpartition()
    assert o.dtype == dt and w.dtype == dt
    return o.numpy(), xs.T, w.numpy(), ys * 2


@pytest.mark.usefixtures("backend")  # the interpreter; CUDA too under `pytest -m gpu`
@pytest.mark.parametrize("dt", DTYPES, ids=NAMES)
def test_one_kernel_runs_every_dtype(dt: Any) -> None:
    got_t, want_t, got_s, want_s = _run(dt)
    np.testing.assert_array_equal(got_t.astype(np.float32), want_t)
    np.testing.assert_array_equal(got_s.astype(np.float32), want_s)


@pytest.mark.parametrize("dt", (f32, f16, bf16), ids=NAMES[:3])
def test_the_dtype_may_be_named_unquoted(dt: Any) -> None:
    y, ys = _input((100,), dt)
    z, _ = negate(ct.zeros((100,), dt).partition((64,)), y).sync()
    np.testing.assert_array_equal(z.unpartition().numpy().astype(np.float32), -ys)


def test_each_dtype_is_its_own_specialization() -> None:
    fresh = scale.with_hints()  # the same kernel with no executables yet
    for dt in (f16, bf16, f16):
        y, ys = _input((100,), dt)
        z, _ = fresh(ct.zeros((100,), dt).partition((64,)), y).sync()
        np.testing.assert_array_equal(z.unpartition().numpy().astype(np.float32), ys * 2)
    specs = [spec for _, spec in fresh._executables]
    assert sorted(str(dict(s.consts)["T"]) for s in specs) == ["bf16", "f16"]


def test_the_body_is_typed_with_the_dtype_of_the_launch() -> None:
    z, _ = plus_f32(ct.zeros((128,), f32).partition((64,)), ct.ones((128,), f32)).sync()
    np.testing.assert_array_equal(z.unpartition().numpy(), np.ones(128, np.float32))
    with pytest.raises(ct.KernelError, match="cannot add f16 and f32") as err:
        plus_f32(ct.zeros((128,), f16).partition((64,)), ct.ones((128,), f16)).sync()
    assert err.value.diagnostics[0].code == "CT202"


def test_arguments_that_imply_different_dtypes_conflict() -> None:
    z = ct.zeros((100,), bf16).partition((64,))
    with pytest.raises(ct.LaunchError) as err:
        scale(z, ct.ones((100,), f16)).sync()
    (d,) = err.value.diagnostics
    assert (d.code, d.message) == ("CT406", "argument 'x' of 'scale': expected a T=bf16 "
                                   "tensor, got a f16 tensor")
    assert [n.message for n in d.notes] == ["'T' is bf16 here, from argument 'z'"]


def test_a_keyword_that_disagrees_is_a_shape_const_conflict_too() -> None:
    x = ct.ones((100,), f16)
    with pytest.raises(ct.LaunchError) as err:
        scale(ct.zeros((100,), f16).partition((64,)), x, T=bf16).sync()
    assert [(d.code, d.message) for d in err.value.diagnostics] == [
        ("CT406", "argument 'z' of 'scale': expected a partition of T=bf16, got a partition "
                  "of f16"),
        ("CT406", "argument 'x' of 'scale': expected a T=bf16 tensor, got a f16 tensor")]
    with pytest.raises(ct.LaunchError) as shape:  # the shape twin: a keyword B, a tile of 64
        scale(ct.zeros((100,), f16).partition((64,)), x, B=32).sync()
    assert [d.code for d in shape.value.diagnostics] == ["CT401"]  # a Mut's tile: CT401
    z, _ = scale(ct.zeros((100,), f16).partition((64,)), x, T=f16).sync()  # agrees: fine
    np.testing.assert_array_equal(z.unpartition().numpy(), np.full(100, 2, np.float16))


def test_an_acc_op_must_take_the_dtype() -> None:
    h, _ = counts(ct.zeros((16,), f32), ct.arange(16, i32), grid=2).sync()
    np.testing.assert_array_equal(h.numpy(), np.full(16, 2, np.float32))
    with pytest.raises(ct.LaunchError, match='"add" accumulates 32- or 64-bit integers') as err:
        counts(ct.zeros((16,), u8), ct.arange(16, i32), grid=1).sync()
    assert err.value.diagnostics[0].code == "CT406"


@pytest.fixture
def null_cuda(toolchain: object) -> Iterator[None]:
    pytest.importorskip("cuda.bindings")
    from benchmarks import launch_overhead

    with launch_overhead.null_cuda():
        yield


@pytest.mark.parametrize("dt", DTYPES, ids=NAMES)
def test_every_dtype_compiles_for_sm90(null_cuda: None, dt: Any) -> None:
    """Through the null driver: the real tileiras compiles each dtype's specialization for
    sm_90 and the launch packs (nothing runs, so the results are not read)."""
    _run(dt)


def test_compiled_code_is_per_dtype(toolchain: object) -> None:
    texts = {dt: transpose.compile(ct.meta((100, 37), dt).partition((32, 64)),
                                   ct.meta((37, 100), dt)).tileir for dt in (f16, bf16)}
    assert "bf16" in texts[bf16] and "bf16" not in texts[f16]
    assert "f16" in texts[f16]


MYPY_USER_FILE = """\
from __future__ import annotations

from typing import TypeVar

import cutile as ct
from cutile import Const, DType, Mut, Tensor, f32

T = TypeVar("T", bound=ct.TileValue)


@ct.kernel
def scale(z: Mut[Tensor[T, ("B",)]], x: Tensor[T, (-1,)], T: Const[DType], B: Const[int]
          ) -> None:
    z.store((ct.load_tile_like(x, z).astype(f32) * 2.0).astype(T))
"""


@pytest.mark.slow
def test_the_unquoted_spelling_passes_mypy_strict(tmp_path: Any) -> None:
    import os
    import subprocess
    import sys
    from pathlib import Path

    from cutile.compiler import check_source

    assert check_source(MYPY_USER_FILE, "user.py") == []
    path = tmp_path / "user_generic.py"
    path.write_text(MYPY_USER_FILE)
    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if not k.startswith("MYPY")}
    env["MYPYPATH"] = str(root)
    proc = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental",
                           "--cache-dir", str(tmp_path / ".mypy_cache"), str(path)],
                          capture_output=True, text=True, cwd=root, env=env, timeout=600)
    assert proc.returncode == 0 and "Success" in proc.stdout, proc.stdout + proc.stderr
