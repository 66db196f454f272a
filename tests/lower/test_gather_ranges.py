"""Gathers skip the bounds check of an axis whose index is known inside the tensor at compile
time (an `arange` no longer than a static extent): tileiras vectorizes such a row (16-byte loads
instead of one element per load), while every other axis keeps its check, so an id outside the
table still reads the padding. The interpreter's results are the same either way
(tests/benchmarks/test_bench_kernels.py runs these kernels against NumPy)."""

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


@pytest.mark.parametrize("consts", [{"BT": 2, "D": 256}, {"BT": 1, "D": 128}])
def test_the_row_axis_keeps_its_check(consts: dict[str, Any]) -> None:
    """Only the column axis goes: the token ids (data) are checked against the vocabulary."""
    assert _checks("rows", consts) >= 2
