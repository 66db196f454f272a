"""Gathers and `load_at` skip the bounds check of an axis whose index is known inside the tensor
at compile time (compiler/lower/ranges.py: an `arange` no longer than a static extent, a loop's
`k * BK + arange(BK)`, a `load_at` offset of 0): tileiras vectorizes such a row (16-byte loads
instead of one element per load), while every other axis keeps its check, so an id outside the
table still reads the padding. The interpreter's results are the same either way
(tests/benchmarks/test_bench_kernels.py runs the whole-row embedding against NumPy; the MoE and
paged-attention examples, which take this path, check themselves)."""

from __future__ import annotations

from typing import Any

import pytest
from lower_util import module, spec_for

from cutile.compiler.bytecode import print_module
from cutile.compiler.compile import lower_kernel

SOURCE = '''
import cutile as ct
from cutile import Const, Mut, Tensor, bf16, i8, i32


@ct.kernel
def rows(out: Mut[Tensor[bf16, ("BT", "D")]], table: Tensor[bf16, (-1, "D")],
         ids: Tensor[i32, (-1,)], BT: Const[int], D: Const[int]) -> None:
    tok = ids.load_tile((BT,), (out.tile_index()[0],), padding=-1).reshape((BT, 1))
    out.store(ct.gather(table, (tok, ct.arange(D, i32).reshape((1, D)))))


@ct.kernel
def rows_dynamic(out: Mut[Tensor[bf16, ("BT", "D")]], table: Tensor[bf16, (-1, -1)],
                 ids: Tensor[i32, (-1,)], BT: Const[int], D: Const[int]) -> None:
    tok = ids.load_tile((BT,), (out.tile_index()[0],), padding=-1).reshape((BT, 1))
    out.store(ct.gather(table, (tok, ct.arange(D, i32).reshape((1, D)))))


@ct.kernel
def rows_wider(out: Mut[Tensor[bf16, ("BT", "W")]], table: Tensor[bf16, (-1, "D")],
               ids: Tensor[i32, (-1,)], BT: Const[int], W: Const[int], D: Const[int]) -> None:
    tok = ids.load_tile((BT,), (out.tile_index()[0],), padding=-1).reshape((BT, 1))
    out.store(ct.gather(table, (tok, ct.arange(W, i32).reshape((1, W)))))


@ct.kernel
def rows_shifted(out: Mut[Tensor[bf16, ("BT", "D")]], table: Tensor[bf16, (-1, "D")],
                 ids: Tensor[i32, (-1,)], BT: Const[int], D: Const[int]) -> None:
    tok = ids.load_tile((BT,), (out.tile_index()[0],), padding=-1).reshape((BT, 1))
    out.store(ct.gather(table, (tok, ct.arange(D, i32).reshape((1, D)) + 1)))


@ct.kernel
def narrow_iota(out: Mut[Tensor[bf16, (1, 256)]], table: Tensor[bf16, (-1, 256)]) -> None:
    out.store(ct.gather(table, (ct.zeros((1, 1), i32), ct.arange(256, i8).reshape((1, 256)))))


@ct.kernel
def wide_iota(out: Mut[Tensor[bf16, (1, 256)]], table: Tensor[bf16, (-1, 256)]) -> None:
    out.store(ct.gather(table, (ct.zeros((1, 1), i32), ct.arange(256, i32).reshape((1, 256)))))


@ct.kernel
def loop_cols(out: Mut[Tensor[bf16, ("BT", "BK")]], table: Tensor[bf16, (-1, "D")],
              ids: Tensor[i32, (-1,)], BT: Const[int], BK: Const[int], D: Const[int],
              EXTRA: Const[int]) -> None:
    tok = ids.load_tile((BT,), (out.tile_index()[0],), padding=-1).reshape((BT, 1))
    acc = ct.zeros((BT, BK), bf16)
    for k in range(D // BK + EXTRA):
        acc = acc + ct.gather(table, (tok, (k * BK + ct.arange(BK, i32)).reshape((1, BK))))
    out.store(acc)


@ct.kernel
def wrapped(out: Mut[Tensor[bf16, (1, 256)]], table: Tensor[bf16, (-1, 256)]) -> None:
    cols = (ct.arange(256, i32) + 2147483647) - 2147483647  # exact [0, 255], but wraps in i32
    out.store(ct.gather(table, (ct.zeros((1, 1), i32), cols.reshape((1, 256)))))


@ct.kernel
def window(out: Mut[Tensor[bf16, (1, "D")]], table: Tensor[bf16, (-1, "D")],
           ids: Tensor[i32, (-1,)], D: Const[int], AT: Const[int]) -> None:
    row = ct.gather(ids, out.tile_index()[0])
    out.store(table.load_at((1, D), (row, AT)))
'''


def _checks(name: str, consts: dict[str, Any]) -> int:
    """How many integer compares the lowered kernel makes: one pair per checked gather axis
    (0 <= idx, idx < extent), besides the ids load's padding and the slab's grid."""
    info = module("gather_ranges.py", SOURCE)
    return print_module(lower_kernel(info, name, spec_for(info, name, consts)).module).count(
        "cmpi")


def test_an_arange_inside_a_static_width_is_not_checked() -> None:
    known = _checks("rows", {"BT": 2, "D": 256})
    assert _checks("rows_dynamic", {"BT": 2, "D": 256}) == known + 2  # the width is dynamic
    assert _checks("rows_wider", {"BT": 2, "W": 256, "D": 200}) == known + 2  # past the edge
    assert _checks("rows_shifted", {"BT": 2, "D": 256}) == known + 2  # not an arange itself
    # an i8 arange of 256 wraps to negative numbers: checked
    assert _checks("narrow_iota", {}) == _checks("wide_iota", {}) + 2


def test_loop_indices_and_load_at_offsets() -> None:
    base = {"BT": 2, "BK": 64, "D": 256}
    # k * 64 + arange(64) for k < 4 stays inside 256 columns; one more iteration does not
    assert _checks("loop_cols", {**base, "EXTRA": 1}) == _checks(
        "loop_cols", {**base, "EXTRA": 0}) + 2
    # a load_at at column 0 of a static width: only the row (one scalar pair) is checked
    assert _checks("window", {"D": 256, "AT": 1}) == _checks("window", {"D": 256, "AT": 0}) + 2
    assert _checks("wrapped", {}) == _checks("wide_iota", {}) + 2


@pytest.mark.parametrize("consts", [{"BT": 2, "D": 256}, {"BT": 1, "D": 128}])
def test_the_row_axis_keeps_its_check(consts: dict[str, Any]) -> None:
    """Only the column axis goes: the token ids (data) are checked against the vocabulary."""
    assert _checks("rows", consts) >= 2
