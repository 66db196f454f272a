"""Slabs larger than a tile compile through tileiras (DESIGN §7). Tensor views are made only in
the prologue, from the parameters: a view made per block would have tileiras write a TMA
descriptor to global scratch memory inside the kernel. An in-slab tile aligned to its slab (or a
slab spanning its axis) uses the tensor's own partition view; any other is masked pointers."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

import cutile as ct
from cutile import f32, i32

sys.path.insert(0, str(Path(__file__).parents[1] / "runtime"))
import slab_kernels as k

CASES: dict[str, tuple[tuple[Any, ...], dict[str, int]]] = {
    "copy_whole": ((ct.meta((7, 12), f32).partition((3, 5)), ct.meta((4, 8), f32)), {}),
    "shape_of": ((ct.meta((7, 12), f32).partition((3, 5)),
                  ct.meta((3, 3), i32).partition((1, 1))), {}),
    "dynamic_extent": ((ct.meta((3, 50), i32).partition((1, 40)),), {}),
    "row_sum_whole": ((ct.meta((5, 7), f32).partition((2, 6)),
                       ct.meta((5, 2), f32).partition((2, 1))), {}),
    "poke": ((ct.meta((10, 13), f32).partition((4, 6)), ct.meta((2,), i32)), {}),
    "poke_aligned": ((ct.meta((10, 13), f32).partition((4, 6)), ct.meta((2,), i32)), {}),
    "aligned_walk": ((ct.meta((5, 200), f32).partition((2, 64)),), {}),
    "label5": ((ct.meta((2, 4, 3, 4, 8), f32).partition((1, 2, 1, 2, 4)),), {}),
    "peek": ((ct.meta((10, 13), f32).partition((4, 6)), ct.meta((2,), i32)), {}),
    "softmax_rows": ((ct.meta((3, 32000), f32).partition((1, 32000)),
                      ct.meta((3, 32000), f32)), {"BN": 1024}),
    "persistent_fill": ((ct.meta((7, 8), f32).partition((3, 3), blocks=2),), {}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_slab_kernels_compile(name: str) -> None:
    args, consts = CASES[name]
    c = getattr(k, name).compile(*args, arch="sm_90", **consts)
    assert c.cubin[:4] == b"\x7fELF"
    tensors = sum(1 for a in args if not isinstance(a, int))
    assert c.tileir.count("make_tensor_view") == tensors


POINTER_PATH = {"copy_whole": True, "dynamic_extent": True, "row_sum_whole": True,
                "poke": True, "peek": True, "poke_aligned": False,
                "aligned_walk": False, "softmax_rows": False}


@pytest.mark.parametrize("name", sorted(POINTER_PATH))
def test_in_slab_tiles_take_views_when_aligned_else_masked_pointers(name: str) -> None:
    args, consts = CASES[name]
    tileir = getattr(k, name).compile(*args, arch="sm_90", **consts).tileir
    assert ("offset" in tileir) == POINTER_PATH[name]


def test_slab_shapes_specialize_and_stores_are_guarded() -> None:
    """The slab's extents are in the specialization (a dynamic extent too); a store inside a
    slab sits behind the in-slab check, whose false branch writes nothing."""
    pow2 = k.dynamic_extent.compile(ct.meta((3, 50), i32).partition((1, 16)), arch="sm_90")
    odd = k.dynamic_extent.compile(ct.meta((3, 50), i32).partition((1, 40)), arch="sm_90")
    assert pow2.key.digest() != odd.key.digest()
    for c in (pow2, odd):
        assert c.tileir.count("store_view_tko") + c.tileir.count("store_ptr_tko") == 1


def test_persistent_grid_of_odd_slabs_is_ceil_division() -> None:
    """A linear tiling needs the grid: ceil(extent / slab), not a partition view's index
    space (a view's tiles are powers of two)."""
    c = k.persistent_fill.compile(ct.meta((7, 8), f32).partition((3, 3), blocks=2),
                                  arch="sm_90")
    assert "get_index_space_shape" not in c.tileir and "divi" in c.tileir


def test_softmax_rows_example_compiles() -> None:
    from test_kernel_compile import _example

    kernel = _example("softmax_rows").softmax_rows
    for width in (32000, 1000):
        c = kernel.compile(ct.meta((8, width), f32).partition((1, width)),
                           ct.meta((8, width), f32), arch="sm_90", BN=1024)
        assert c.cubin[:4] == b"\x7fELF"
