"""Launch validation (CT4xx before anything runs), Const inference, grids, results."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import rt_kernels as k
from rt_util import line_of

import cutile as ct
from cutile import f16, f32, i32
from cutile.runtime.ownership import State


def _code(err: pytest.ExceptionInfo[ct.CutileError]) -> str:
    (d,) = err.value.diagnostics
    return d.code


def test_const_inferred_from_partition_and_grid() -> None:
    x, y = ct.ones((1000,), f32), ct.arange(1000, f32)
    z = ct.zeros((1000,), f32).partition((128,))
    op = k.add(z, x, y)
    assert op._grid == (8, 1, 1)
    z, x2, y2 = op.sync()
    assert x2 is x and y2 is y
    np.testing.assert_array_equal(z.unpartition().numpy(), 1 + np.arange(1000, dtype=np.float32))


def test_sync_returns_every_positional_argument_but_not_keyword_consts() -> None:
    x, y = ct.ones((256,), f32), ct.ones((256,), f32)
    out = k.add(ct.zeros((256,), f32).partition((128,)), x, y, 128).sync()
    assert len(out) == 4 and out[3] == 128
    out = k.add(ct.zeros((256,), f32).partition((128,)), x, y, B=128).sync()
    assert len(out) == 3
    (z,) = k.inc(ct.zeros((256,), f32).partition((64,))).sync()
    assert isinstance(z, ct.Partition)


def test_explicit_const_disagrees_with_partition() -> None:
    x, y = ct.ones((256,), f32), ct.ones((256,), f32)
    z = ct.zeros((256,), f32).partition((128,))
    with pytest.raises(ct.LaunchError) as err:
        k.add(z, x, y, B=64)  # call-site
    (d,) = err.value.diagnostics
    assert d.code == "CT401"
    assert d.message == ("partition tile shape (128,) does not fit Mut parameter 'z' of 'add', "
                         "which expects (B=64,)")
    assert d.span.line == line_of("# call-site")
    assert z.state is State.LIVE  # a rejected launch moves nothing


def test_static_mut_shape() -> None:
    x = ct.ones((256,), f32)
    with pytest.raises(ct.LaunchError) as err:
        k.fixed(ct.zeros((256,), f32).partition((128,)), x)
    assert _code(err) == "CT401"


def test_static_tensor_shape_dtype_and_rank() -> None:
    z = ct.zeros((256,), f32).partition((64,))
    with pytest.raises(ct.LaunchError) as err:
        k.fixed(z, ct.ones((128,), f32))
    assert _code(err) == "CT406"
    assert "expected a f32 tensor of shape (256,), got a f32 tensor of shape (128,)" in str(
        err.value)
    with pytest.raises(ct.LaunchError, match="got a f16 tensor"):
        k.fixed(z, ct.ones((256,), f16))
    with pytest.raises(ct.LaunchError, match=r"got a f32 tensor of shape \(16, 16\)"):
        k.fixed(z, ct.ones((16, 16), f32))


def test_partition_dtype_mismatch() -> None:
    x, y = ct.ones((256,), f32), ct.ones((256,), f32)
    with pytest.raises(ct.LaunchError, match="expected a partition of f32, got a partition of i32"):
        k.add(ct.zeros((256,), i32).partition((128,)), x, y)


def test_partition_to_read_only_parameter() -> None:
    x = ct.ones((256,), f32).partition((128,))
    y = ct.ones((256,), f32)
    with pytest.raises(ct.LaunchError, match=r"use \.unpartition"):
        k.add(ct.zeros((256,), f32).partition((128,)), x, y)


def test_const_not_inferable() -> None:
    with pytest.raises(ct.LaunchError) as err:
        k.needs_const(ct.zeros((64,), f32).partition((64,)))
    assert _code(err) == "CT405"
    assert "pass it by keyword: K=..." in str(err.value)
    (z, ) = k.needs_const(ct.zeros((64,), f32).partition((64,)), K=3).sync()
    assert z.numpy()[5] == 3.0


def test_const_defaults_fill_in_what_is_neither_given_nor_inferred() -> None:
    """B comes from the partition (its default 32 is not used), K and S from their defaults
    unless given; each value is its own specialization."""
    z = ct.zeros((128,), f32).partition((64,))
    for given, want in (({}, 3 * 0.5), ({"K": 5}, 5 * 0.5), ({"S": 2.0, "K": 1}, 1 * 2.0)):
        (z,) = k.const_defaults(z, **given).sync()
        assert z.numpy().tolist() == [want + 64] * 128


def test_const_type_checked() -> None:
    with pytest.raises(ct.LaunchError, match=r"expected an int, got 2\.5"):
        k.needs_const(ct.zeros((64,), f32).partition((64,)), K=2.5)


def test_scalar_arguments() -> None:
    x = ct.arange(64, f32)
    (z, _, _) = k.scale(ct.zeros((64,), f32).partition((32,)), x, 2.0).sync()
    assert z.numpy()[3] == 6.0
    with pytest.raises(ct.LaunchError, match="expected a f32 number, got str"):
        k.scale(ct.zeros((64,), f32).partition((32,)), x, "2")


def test_argument_count_and_keywords() -> None:
    x = ct.ones((64,), f32)
    z = ct.zeros((64,), f32).partition((32,))
    with pytest.raises(ct.LaunchError, match="takes 4 positional arguments, 5 given"):
        k.add(z, x, x, 32, 1)
    with pytest.raises(ct.LaunchError, match="no parameter named 'w'"):
        k.add(z, x, x, w=1)
    with pytest.raises(ct.LaunchError, match="missing the argument 'y'"):
        k.add(z, x)


def test_grids_agree_as_3d() -> None:
    x = ct.arange(64 * 8, f32).reshape((64, 8))
    a = ct.zeros((64, 8), f32).partition((16, 8))  # grid (4, 1)
    b = ct.zeros((64,), f32).partition((16,))  # grid (4,)
    a, b, x = k.two_outputs(a, b, x).sync()
    ref = np.arange(64 * 8, dtype=np.float32).reshape(64, 8)
    np.testing.assert_array_equal(b.unpartition().numpy(), ref.sum(1))


def test_grid_mismatch_names_both_parameters() -> None:
    """CT402 names the parameters (as every launch error does), with a note at the argument
    that set the first grid."""
    x = ct.ones((64, 8), f32)
    first = ct.zeros((64, 8), f32).partition((16, 8))
    second = ct.zeros((32,), f32).partition((16,))
    with pytest.raises(ct.LaunchError) as err:
        k.two_outputs(first, second, x)
    (d,) = err.value.diagnostics
    assert d.code == "CT402"
    assert d.message == ("Mut parameters of 'two_outputs' need the same grid, but 'a' gets "
                         "(4, 1, 1) and 'b' gets (2, 1, 1)")
    assert d.notes[0].message == "'a' gets the grid (4, 1, 1) from this argument"
    assert d.span.line == d.notes[0].span.line and d.notes[0].span.col < d.span.col


def test_rank4_grids_compare_every_axis() -> None:
    """Tile grids (2, 3, 4, 5, 6) and (2, 3, 4, 6, 5) launch the same 3-D grid (2, 3, 120)
    but own different tiles: CT402."""
    a = ct.zeros((2, 3, 4, 5, 6), f32).partition((1, 1, 1, 1, 1))
    b = ct.zeros((2, 3, 4, 6, 5), f32).partition((1, 1, 1, 1, 1))
    with pytest.raises(ct.LaunchError) as err:
        k.two_rank5(a, b)
    assert _code(err) == "CT402"
    assert "'a' gets (2, 3, 4, 5, 6) and 'b' gets (2, 3, 4, 6, 5)" in str(err.value)
    c = ct.zeros((2, 3, 4, 5, 6), f32).partition((1, 1, 1, 1, 1))
    k.two_rank5(ct.zeros((2, 3, 4, 5, 6), f32).partition((1, 1, 1, 1, 1)), c).sync()


def test_grids_drop_trailing_ones_at_every_rank() -> None:
    """Tile grids (2, 3, 5, 1) and (2, 3, 5) are one grid, as (4, 1) and (4,) are; a 1 that is
    not trailing still counts: (2, 3, 1, 5) is not (2, 3, 5)."""
    ref = np.arange(30, dtype=np.float32).reshape(2, 3, 5)
    x = ct.from_numpy(ref)
    a = ct.zeros((2, 3, 5, 4), f32).partition((1, 1, 1, 4))
    b = ct.zeros((2, 3, 5), f32).partition((1, 1, 1))
    op = k.rank4_rank3(a, b, x)
    assert op._grid == (2, 3, 5)
    a, b, x = op.sync()
    np.testing.assert_array_equal(b.unpartition().numpy(), ref)
    np.testing.assert_array_equal(a.unpartition().numpy(), np.repeat(ref[..., None], 4, -1))
    a = ct.zeros((2, 3, 1, 20), f32).partition((1, 1, 1, 4))  # tile grid (2, 3, 1, 5)
    b = ct.zeros((2, 3, 5), f32).partition((1, 1, 1))
    with pytest.raises(ct.LaunchError) as err:
        k.rank4_rank3(a, b, x)  # call-site
    (d,) = err.value.diagnostics
    assert d.code == "CT402" and d.span.line == line_of("# call-site")
    assert "'a' gets (2, 3, 1, 5) and 'b' gets (2, 3, 5)" in d.message


def test_keyword_errors_point_at_the_keyword_name() -> None:
    """An unknown or repeated keyword is reported at its name (`Q` of `Q=3`), as the checker
    reports it, not at its value."""
    x, y = ct.ones((256,), f32), ct.ones((256,), f32)
    z = ct.zeros((256,), f32).partition((128,))
    for call, key in ((lambda: k.add(z, x, y, Qq=3), "Qq"),  # unknown-kw
                      (lambda: k.add(z, x, y, x=x), "x")):  # repeated-kw
        with pytest.raises(ct.LaunchError) as err:
            call()
        (d,) = err.value.diagnostics
        line = line_of("# unknown-kw" if key == "Qq" else "# repeated-kw")
        text = Path(__file__).read_text().splitlines()[line - 1]
        assert d.code == "CT406" and d.span.line == line
        assert text[d.span.col:d.span.end_col] == key and text[d.span.end_col] == "="


@pytest.mark.parametrize("value", [2.5, "2", True, 64.0, None, np.float32(2.0)])
def test_const_int_refuses_other_literals(value: object) -> None:
    z = ct.zeros((256,), f32).partition((128,))
    with pytest.raises(ct.LaunchError) as err:
        k.add(z, ct.ones((256,), f32), ct.ones((256,), f32), B=value)
    (d,) = err.value.diagnostics
    assert d.code == "CT406" and "argument 'B' of 'add': expected an int" in d.message


def test_partition_problems_point_at_the_argument() -> None:
    """Problems of the tile shape or of blocks= are reported at that argument (as the
    checker reports them)."""
    cases = [(lambda: ct.zeros((1000,), f32).partition((128, 2)), "(128, 2)",  # rank
              "tile shape (128, 2) has rank 2 but the tensor ct.zeros((1000,), f32) has shape "
              "(1000,)"),
             (lambda: ct.zeros((64,), f32).partition(2.5), "2.5",  # kind
              "the tile shape must be an int or a tuple of ints, not 2.5"),
             (lambda: ct.zeros((64,), f32).partition(tile_shape=(0,)), "(0,)",  # zero
              "tile dimensions are positive ints, got 0 in (0,)"),
             (lambda: ct.zeros((64,), f32).partition((16,), blocks=True), "True",  # blocks
              "blocks must be a positive int, not True")]
    lines = Path(__file__).read_text().splitlines()
    for make, arg, message in cases:
        with pytest.raises(ct.LaunchError) as err:
            make()
        (d,) = err.value.diagnostics
        assert d.code == "CT408" and d.message == message
        assert lines[d.span.line - 1][d.span.col:d.span.end_col] == arg


def test_bad_partitions() -> None:
    assert ct.zeros((100,), f32).partition((100,)).grid == (1,)  # slabs of any extent
    with pytest.raises(ct.LaunchError) as err:
        ct.zeros((100,), f32).partition((0,))
    assert _code(err) == "CT408"
    with pytest.raises(ct.LaunchError) as err:
        ct.zeros((2,) * 6, f32).partition((1,) * 6)
    assert _code(err) == "CT403"
    with pytest.raises(ct.LaunchError) as err:
        ct.zeros((64,), f32).partition((16,), order=ct.grouped(4))
    assert _code(err) == "CT408"
    with pytest.raises(ct.LaunchError, match="blocks must be a positive int"):
        ct.zeros((64,), f32).partition((16,), blocks=0)
    with pytest.raises(ct.LaunchError, match="has rank 2 but the tensor"):
        ct.zeros((64,), f32).partition((16, 1))


def test_meta_tensors_cannot_launch() -> None:
    m = ct.meta((64,), f32)
    assert m.is_meta and m.shape == (64,)
    with pytest.raises(ct.LaunchError, match="meta tensor"):
        k.add(ct.zeros((64,), f32).partition((32,)), m, m)
    with pytest.raises(ct.LaunchError, match="cannot be copied to the host"):
        m.numpy()


def test_specialization_facts_drive_the_cache() -> None:
    x, y = ct.ones((256,), f32), ct.ones((256,), f32)
    k.add._executables.clear()
    k.add(ct.zeros((256,), f32).partition((128,)), x, y).sync()
    k.add(ct.zeros((256,), f32).partition((128,)), x, y).sync()
    assert len(k.add._executables) == 1  # same facts: compiled once
    op = k.add(ct.zeros((256,), f32).partition((64,)), x, y)
    assert op._grid == (4, 1, 1)
    spec = k.add.binder().bind((ct.zeros((256,), f32).partition((64,)), x, y), {},
                               op.site).spec
    assert spec.const_values == {"B": 64}
    facts = spec.args[1]
    assert facts.align == 16 and facts.contiguous and facts.shape_div == (16,)
    op.sync()
    assert len(k.add._executables) == 2
