"""Slabs larger than a tile compile through tileiras (design.md §3). Tensor views are made only in
the prologue, from the parameters: a view made per block would have tileiras write a TMA
descriptor to global scratch memory inside the kernel. An in-slab tile aligned to its slab (or a
slab spanning its axis) uses the tensor's own partition view; any other is masked pointers."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from lower_util import example

import cutile as ct
from cutile import f32, i32

sys.path.insert(0, str(Path(__file__).parents[1] / "runtime"))
import slab_kernels as k
import slab_like_kernels as like

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
    kernel = example("softmax_rows").softmax_rows
    for width in (32000, 1000):
        c = kernel.compile(ct.meta((8, width), f32).partition((1, width)),
                           ct.meta((8, width), f32), arch="sm_90", BN=1024)
        assert c.cubin[:4] == b"\x7fELF"


# ---- a tensor read over a slab whose extents are not powers of two -------------------------

LIKE_CASES: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {
    "rms_norm": ((ct.meta((6, 1000), f32).partition((2, 1000)), ct.meta((6, 1000), f32),
                  ct.meta((1000,), f32), 1e-6), {}),
    "layer_norm": ((ct.meta((4, 100), f32).partition((1, 100)), ct.meta((4, 100), f32),
                    ct.meta((100,), f32), ct.meta((100,), f32), 1e-5), {}),
    "decode_attention": ((ct.meta((2, 3, 80), f32).partition((1, 1, 80)),
                          ct.meta((2, 3, 80), f32), ct.meta((2, 50, 80), f32),
                          ct.meta((2, 50, 80), f32), 0.1), {"BS": 16}),
    "shift_blocks": ((ct.meta((50, 70), f32).partition((20, 30), blocks=3),
                      ct.meta((50, 70), f32)), {}),
    "add_blocks": ((ct.meta((50, 70), f32).partition((20, 30), blocks=3),
                    ct.meta((50, 70), f32)), {}),
    "layer_norm_backward": ((ct.meta((6, 100), f32).partition((1, 100)),
                             ct.meta((1, 100), f32), ct.meta((1, 100), f32),
                             ct.meta((6, 100), f32), ct.meta((6, 100), f32),
                             ct.meta((100,), f32), ct.meta((6, 1), f32),
                             ct.meta((6, 1), f32)), {}),
    "scale1": ((ct.meta((950,), f32).partition((100,)), ct.meta((1000,), f32), 2.0), {}),
    "slab_sum2": ((ct.meta((10, 25), f32).partition((3, 10)), ct.meta((10, 25), f32)), {}),
    "slab_sum4": ((ct.meta((3, 7, 11, 13), f32).partition((1, 3, 5, 6)),
                   ct.meta((3, 7, 11, 13), f32)), {}),
    "slab_sum5": ((ct.meta((2, 3, 7, 11, 13), f32).partition((1, 2, 3, 5, 6)),
                   ct.meta((2, 3, 7, 11, 13), f32)), {}),
    "padded_row": ((ct.meta((3, 100), f32).partition((1, 100)), ct.meta((3, 300), f32)), {}),
}
# Whether reading x over the slab takes masked pointers (the slab is not a run of whole tiles
# of x's partition view) or x's own view and a select on the slab's extents.
LIKE_POINTERS = {"rms_norm": False, "layer_norm": False, "decode_attention": False,
                 "shift_blocks": True, "add_blocks": True, "scale1": True, "slab_sum2": True,
                 "slab_sum4": True, "slab_sum5": True, "padded_row": False}


@pytest.mark.parametrize("name", sorted(LIKE_CASES))
def test_load_like_over_odd_slabs_compiles(name: str) -> None:
    args, consts = LIKE_CASES[name]
    c = getattr(like, name).compile(*args, arch="sm_90", **consts)
    assert c.cubin[:4] == b"\x7fELF"
    tensors = sum(1 for a in args if not isinstance(a, (int, float)))
    assert c.tileir.count("make_tensor_view") == tensors  # never a view per block


@pytest.mark.parametrize("name", sorted(LIKE_POINTERS))
def test_load_like_takes_views_when_the_slab_spans_its_axes(name: str) -> None:
    args, consts = LIKE_CASES[name]
    tileir = getattr(like, name).compile(*args, arch="sm_90", **consts).tileir
    assert ("load_ptr_tko" in tileir) == LIKE_POINTERS[name]
    if not LIKE_POINTERS[name]:  # x may go on past the slab: a select keeps the padding
        assert "select" in tileir


def test_load_like_over_a_power_of_two_slab_is_one_view_load() -> None:
    """The fast path is unchanged: x's tile at the slab's tile index, one load_view_tko and
    nothing masked (the slab is exactly one tile of x's partition view)."""
    c = like.rms_norm.compile(ct.meta((8, 1024), f32).partition((2, 1024)),
                              ct.meta((8, 1024), f32), ct.meta((1024,), f32), 1e-6,
                              arch="sm_90")
    assert c.tileir.count("load_view_tko") == 2  # x over y's slab, and w
    assert "load_ptr_tko" not in c.tileir and "select" not in c.tileir


def test_load_like_over_host_view_slabs_compiles() -> None:
    """A Mut partition of a column window and of a permuted (strided) view, read over from
    views: the views' offsets and strides are launch arguments, nothing is made per block."""
    strided = like.slab_sum2.compile(
        ct.meta((25, 10), f32).permute((1, 0)).partition((3, 10)),
        ct.meta((25, 10), f32).permute((1, 0)), arch="sm_90")
    window = like.padded_row.compile(
        ct.meta((6, 300), f32)[:, 100:200].partition((1, 100)),
        ct.meta((6, 400), f32)[:, 150:250], arch="sm_90")
    for c in (strided, window):
        assert c.cubin[:4] == b"\x7fELF" and c.tileir.count("make_tensor_view") == 2
    assert "load_ptr_tko" in strided.tileir and "load_ptr_tko" not in window.tileir
