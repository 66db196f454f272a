"""NumPy and torch habits on host tensors: NumPy scalar types as dtypes, `np.asarray(t)`,
float-only random constructors, big-endian arrays, `reshape(3, 4)`, and what a launch says
about an array passed where a tensor goes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import rt_kernels as k
from rt_util import line_of

import cutile as ct
from cutile import bf16, f16, f32, i32


# -- dtypes ------------------------------------------------------------------------------------
@pytest.mark.parametrize(("given", "want"), [
    (np.float32, f32), (np.float16, f16), (np.int32, i32), (np.int8, ct.i8), (np.uint16, ct.u16),
    (np.bool_, ct.bool_), (np.float64, ct.f64), (np.dtype("float32"), f32), ("float32", f32),
    ("f32", f32),
])
def test_numpy_scalar_types_are_dtypes_everywhere(given: Any, want: Any) -> None:
    assert ct.zeros((2,), given).dtype == want.dtype
    assert ct.ones((2,), given).dtype == want.dtype
    assert ct.full((2,), 1, given).dtype == want.dtype
    assert ct.empty((2,), given).dtype == want.dtype
    assert ct.arange(3, given).dtype == want.dtype
    assert ct.meta((2,), given).dtype == want.dtype
    assert ct.from_numpy(np.ones(3), dtype=given).dtype == want.dtype


def test_numpy_float_types_are_dtypes_of_random_tensors() -> None:
    assert ct.rand((4,), np.float32, seed=1).dtype == f32.dtype
    assert ct.randn((4,), np.float64, seed=1).dtype == ct.f64.dtype


def test_torch_dtypes_are_dtypes() -> None:
    torch = pytest.importorskip("torch")
    assert ct.zeros((2,), torch.float32).dtype == f32.dtype
    assert ct.from_numpy(np.ones(2), dtype=torch.bfloat16).dtype == bf16.dtype


@pytest.mark.parametrize("bad", [np.floating, float, "float", 10, None])
def test_a_bad_dtype_names_the_accepted_forms(bad: Any) -> None:
    with pytest.raises(ct.LaunchError) as err:
        ct.zeros((2,), bad)  # marker
    d = err.value.diagnostics[0]
    assert d.code == "CT406" and d.span.line == line_of("# marker")
    assert d.message == (f'dtype: expected a dtype: a cutile one (ct.f32), its name ("f32", '
                         f'"float32"), or a NumPy or torch one (np.float32, '
                         f'np.dtype("float32"), torch.float32), got {bad!r}')


def test_a_dtype_const_takes_a_numpy_scalar_type() -> None:
    from cutile.compiler.launch.facts import literal_facts

    assert literal_facts(np.float16).value == f16.dtype


# -- np.asarray(t) -----------------------------------------------------------------------------
def test_numpy_reads_tensors_through_array() -> None:
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = ct.from_numpy(a)
    for got in (np.asarray(t), np.array(t), np.array(t, copy=True)):
        assert got.dtype == np.float32 and got.shape == (3, 4)
        np.testing.assert_array_equal(got, a)
    got = np.asarray(t[:, 1::2])  # a strided view: its elements only
    np.testing.assert_array_equal(got, a[:, 1::2])
    assert np.asarray(t, dtype=np.float64).dtype == np.float64
    np.testing.assert_allclose(t, a)  # NumPy's testing helpers take tensors
    np.testing.assert_allclose(ct.from_numpy(a, dtype=bf16), a)  # bf16 reads as float32
    copy = np.asarray(t)
    copy[0, 0] = 99.0
    assert t.numpy()[0, 0] == 0.0  # a copy, as numpy() gives


def test_a_view_without_copy_is_a_value_error() -> None:
    t = ct.zeros((3,), f32)
    with pytest.raises(ValueError, match="cannot be viewed as a NumPy array without a copy"):
        np.asarray(t, copy=False)


def test_asarray_of_a_moved_tensor_is_ct301_at_the_users_line() -> None:
    t = ct.zeros((8,), f32)
    t.partition((4,))
    with pytest.raises(ct.OwnershipError) as err:
        np.asarray(t)  # marker
    d = err.value.diagnostics[0]
    assert d.code == "CT301" and d.span.line == line_of("# marker")


def test_asarray_waits_for_a_pending_write_rule() -> None:
    z = ct.zeros((8,), f32)
    view = z[0:4]
    op = k.inc(view.partition((4,)))
    op.start()
    with pytest.raises(ct.OwnershipError, match="CT307"):
        np.asarray(z)  # overlaps what the pending launch writes
    op.sync()
    np.testing.assert_array_equal(np.asarray(z), [1, 1, 1, 1, 0, 0, 0, 0])


# -- random constructors take float dtypes ------------------------------------------------------
@pytest.mark.parametrize("make", [ct.rand, ct.randn])
@pytest.mark.parametrize("dtype", [i32, ct.u8, ct.bool_, np.int64])
def test_random_constructors_refuse_non_float_dtypes(make: Any, dtype: Any) -> None:
    with pytest.raises(ct.LaunchError) as err:
        make((8,), dtype, seed=0)  # marker
    d = err.value.diagnostics[0]
    name = make.__name__
    assert d.code == "CT406" and d.span.line == line_of("# marker")
    got = ct.from_numpy(np.zeros(1), dtype=dtype).dtype.name
    assert d.message == (f"ct.{name} dtype: expected a float dtype (f16, bf16, tf32, f32, f64, "
                         "f8e4m3, f8e5m2, f4e2m1, f8e8m0); for random integers use ct.randint "
                         f"in a kernel, got {got!r}")


# -- big-endian arrays ---------------------------------------------------------------------------
@pytest.mark.parametrize("dt", [">f4", ">i2", ">f8", ">u4", "<f4"])
def test_from_numpy_swaps_big_endian_arrays_while_copying(dt: str) -> None:
    a = np.arange(-3, 5).astype(dt)
    t = ct.from_numpy(a)
    want = np.dtype(dt).newbyteorder("=")
    assert t.numpy().dtype == want
    np.testing.assert_array_equal(t.numpy(), a)
    np.testing.assert_array_equal(ct.from_numpy(a.reshape(2, 4)[:, ::2]).numpy(),
                                  a.reshape(2, 4)[:, ::2])


def test_from_numpy_converts_big_endian_arrays() -> None:
    a = np.array([1.5, -2.25, 300.0], dtype=">f8")
    np.testing.assert_array_equal(ct.from_numpy(a, dtype=f16).numpy(), a.astype(np.float16))
    np.testing.assert_array_equal(ct.from_numpy(a, dtype=i32).numpy(), [1, -2, 300])


# -- reshape(3, 4) ---------------------------------------------------------------------------
def test_reshape_and_view_take_separate_ints() -> None:
    a = np.arange(12, dtype=np.float32)
    t = ct.from_numpy(a).reshape(3, 4)
    assert t.shape == (3, 4)
    t = t.reshape(-1, 6)
    assert t.shape == (2, 6)
    assert t.reshape((12,)).shape == (12,)
    t = ct.from_numpy(a)
    assert t.view(2, 6).shape == (2, 6) and t.view(12).shape == (12,)
    assert t.view(shape=(4, 3)).shape == (4, 3)
    np.testing.assert_array_equal(t.view(4, -1).numpy(), a.reshape(4, 3))
    with pytest.raises(ct.LaunchError, match="CT406"):
        ct.from_numpy(a).reshape(5, 3)


# -- arrays where a tensor goes --------------------------------------------------------------
def test_an_array_argument_is_shown_by_type_dtype_and_shape() -> None:
    z = ct.zeros((100,), f32).partition((32,))
    x = np.arange(100, dtype=np.float32)
    with pytest.raises(ct.LaunchError) as err:
        k.scale(z, x, 2.0)  # marker
    d = err.value.diagnostics[0]
    assert d.code == "CT406" and d.span.line == line_of("# marker")
    assert d.message == ("argument 'x' of 'scale': expected a f32 tensor, got a numpy.ndarray "
                         "(float32, shape (100,)); wrap it with ct.from_numpy(...) (a copy) or "
                         "ct.from_dlpack(...) (shares its memory)")
    assert "\n" not in d.message


def test_a_torch_tensor_or_a_list_argument_is_shown_without_its_values() -> None:
    z = ct.zeros((100,), f32).partition((32,))
    with pytest.raises(ct.LaunchError) as err:
        k.scale(z, [1.0] * 100, 2.0)
    assert err.value.diagnostics[0].message.endswith(
        "got a list of 100 items; wrap it with ct.from_numpy(np.array(...)) (a copy)")
    torch = pytest.importorskip("torch")
    with pytest.raises(ct.LaunchError) as err:
        k.scale(z, torch.ones(100, 2), 2.0)
    assert err.value.diagnostics[0].message.endswith(
        "got a torch.Tensor (float32, shape (100, 2)); wrap it with ct.from_numpy(...) (a copy) "
        "or ct.from_dlpack(...) (shares its memory)")


def test_from_dlpack_of_a_big_endian_array_names_the_byte_order() -> None:
    with pytest.raises(ct.LaunchError) as err:
        ct.from_dlpack(np.arange(4, dtype=">f4"))
    assert err.value.diagnostics[0].message == (
        "from_dlpack: DLPack only supports native byte order. (its dtype >f4 is big-endian; "
        "ct.from_numpy copies it with the bytes swapped to the host's order)")


def test_numpy_reads_tensors_on_the_cuda_backend_too() -> None:
    pytest.importorskip("cuda.bindings")
    from fake_cuda import fake_cuda_backend

    with fake_cuda_backend():  # device memory is host memory: the copies are real
        t = ct.from_numpy(np.arange(6, dtype=np.float32).reshape(2, 3))
        np.testing.assert_array_equal(np.asarray(t), np.arange(6).reshape(2, 3))
        assert np.asarray(t.permute(1, 0), dtype=np.int64).tolist() == [[0, 3], [1, 4], [2, 5]]


def test_arange_is_i32_unless_a_dtype_is_given() -> None:
    """As the kernel op and NumPy's habit of a default: `ct.arange(5)` needs no dtype."""
    t = ct.arange(5)
    assert t.dtype == ct.i32 and ct.i32 == t.dtype and t.dtype != ct.f32
    np.testing.assert_array_equal(t.numpy(), np.arange(5, dtype=np.int32))
    np.testing.assert_array_equal(ct.arange(3, ct.f32).numpy(), [0.0, 1.0, 2.0])
