"""Persistent kernels (`for zt in z.tiles()`): every slab is visited once, by one block, and the
slab's methods act on it. Runs on the interpreter, and on CUDA under `pytest -m gpu`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import rt_kernels as k

import cutile as ct
from cutile import f32
from cutile.compiler.api import check_source


@pytest.mark.parametrize("blocks", [1, 3, 8, 20])
def test_each_slab_of_a_block_is_its_own(backend: str, blocks: int) -> None:
    # The program: with the old form every block kept rewriting its first tile.
    z = ct.arange(8, f32).partition((1,), blocks=blocks)
    (z,) = k.persistent_inc(z).sync()
    np.testing.assert_array_equal(z.unpartition().numpy(), np.arange(1, 9, dtype=np.float32))


@pytest.mark.parametrize("how", [{}, {"blocks": 5}, {"order": ct.grouped(2)},
                                 {"order": ct.grouped(2), "blocks": 4},
                                 {"order": ct.col_major, "blocks": 2}, {"order": ct.col_major}])
def test_two_d_slabs_in_every_order(backend: str, how: dict[str, Any]) -> None:
    # A 6x12 tensor in 2x4 slabs: a 3x3 tile grid, also with a 2-D grid of blocks (no blocks=).
    xa = np.arange(72, dtype=np.float32).reshape(6, 12)
    z = ct.zeros((6, 12), f32).partition((2, 4), **how)
    z, _ = k.persistent_scale2d(z, ct.from_numpy(xa)).sync()
    np.testing.assert_array_equal(z.unpartition().numpy(), 2 * xa)


def test_old_form_is_rejected_with_the_checkers_code_and_line(backend: str) -> None:
    z = ct.zeros((8,), f32).partition((1,), blocks=2)
    with pytest.raises(ct.KernelError) as err:
        k.persistent_old_form(z).sync()
    (diag,) = err.value.diagnostics
    source = Path(k.__file__).read_text(encoding="utf-8")
    lines = source.splitlines()
    start = lines.index("def persistent_old_form(z: Mut[Tensor[f32, (1,)]]) -> None:")
    want_line = 1 + next(i for i in range(start, len(lines)) if "z.store(" in lines[i])
    assert (diag.code, diag.span.line) == ("CT409", want_line)
    assert "'for idx in z.tiles()'" in diag.message
    edit_time = [d for d in check_source(source, k.__file__) if d.code == "CT409"]
    assert [(d.code, d.span.line, d.message) for d in edit_time] == [
        (diag.code, diag.span.line, diag.message)]


@pytest.mark.parametrize("kernel", [k.inc, k.add])
def test_persistent_partition_for_a_kernel_without_a_tiles_loop_is_refused(
        backend: str, kernel: Any) -> None:
    # Block b would reach only slab b: slabs past `blocks` would silently stay unwritten.
    z = ct.zeros((64,), f32).partition((16,), blocks=2)
    args = (z,) if kernel is k.inc else (z, ct.ones((64,), f32), ct.ones((64,), f32))
    with pytest.raises(ct.LaunchError) as err:
        kernel(*args).sync()
    (diag,) = err.value.diagnostics  # at the call, with a note at the kernel's access
    assert diag.code == "CT410" and diag.span.path == __file__
    assert "'for slab in z.tiles()'" in diag.message
    assert [n.span.path for n in diag.notes if n.span] == [k.__file__]


def test_a_helper_reaching_one_slab_is_caught_when_the_launch_is_specialized(
        backend: str) -> None:
    # the call-site rule reads the kernel's own body; a helper's access is found in the IR
    z = ct.zeros((64,), f32).partition((16,), blocks=2)
    with pytest.raises(ct.LaunchError) as err:
        k.inc_via_helper(z).sync()
    (diag,) = err.value.diagnostics
    assert diag.code == "CT410" and diag.span.path == k.__file__


def test_without_blocks_the_same_kernels_run() -> None:
    (z,) = k.inc(ct.zeros((64,), f32).partition((16,), order=ct.col_major)).sync()
    np.testing.assert_array_equal(z.unpartition().numpy(), np.ones(64, np.float32))


@pytest.mark.parametrize("blocks", [1, 5])
def test_static_slab_facts_read_before_the_tiles_loop(backend: str, blocks: int) -> None:
    """`z.tile_shape` and a static `z.shape` outside the loop reach no slab: no CT410, at edit
    time or at run time. Block b's rows are the linear tiles b, b + blocks, ... in order."""
    xa = np.random.default_rng(blocks).standard_normal((37, 100)).astype(np.float32)
    z = ct.zeros((37, 100), f32).partition((1, 100), blocks=blocks)
    z, _ = k.persistent_running_sum(z, ct.from_numpy(xa)).sync()
    want = np.empty_like(xa)
    for b in range(blocks):
        want[b::blocks] = np.cumsum(xa[b::blocks], axis=0)
    np.testing.assert_allclose(z.unpartition().numpy(), want, rtol=1e-5, atol=1e-5)
    source = Path(k.__file__).read_text(encoding="utf-8")
    assert not [d for d in check_source(source, k.__file__) if d.code == "CT410"]


@pytest.mark.parametrize("how", [{"blocks": 4}, {"blocks": 1}, {}])
def test_outputs_walked_together_by_zip(backend: str, how: dict[str, Any]) -> None:
    """`zip(y.tiles(), mean.tiles(), rstd.tiles())`: each block writes the same tile of each
    (LayerNorm forward, hidden 80, 37 rows); CT402 when their tile grids differ."""
    xa = np.random.default_rng(7).standard_normal((37, 80)).astype(np.float32)
    y = ct.zeros((37, 80), f32).partition((1, 80), **how)
    mean = ct.zeros((37, 1), f32).partition((1, 1), **how)
    rstd = ct.zeros((37, 1), f32).partition((1, 1), **how)
    y, mean, rstd, _ = k.persistent_layer_norm(y, mean, rstd, ct.from_numpy(xa)).sync()
    mu = xa.mean(1, keepdims=True)
    r = 1 / np.sqrt(xa.var(1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(mean.unpartition().numpy(), mu, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rstd.unpartition().numpy(), r, rtol=1e-4)
    np.testing.assert_allclose(y.unpartition().numpy(), (xa - mu) * r, rtol=1e-4, atol=1e-4)
    short = ct.zeros((36, 1), f32).partition((1, 1), **how)
    with pytest.raises(ct.LaunchError) as err:
        k.persistent_layer_norm(ct.zeros((37, 80), f32).partition((1, 80), **how),
                                ct.zeros((37, 1), f32).partition((1, 1), **how), short,
                                ct.from_numpy(xa)).sync()
    assert err.value.diagnostics[0].code == "CT402"
    source = Path(k.__file__).read_text(encoding="utf-8")
    lines = source.splitlines()
    start = next(i for i, t in enumerate(lines) if "def persistent_layer_norm(" in t) + 1
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("@ct.kernel")) + 1
    assert not [d for d in check_source(source, k.__file__) if start <= d.span.line < end]
