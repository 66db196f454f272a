"""Host handles as NumPy and torch users expect them: `t.reshape(())` gives a 0-d tensor,
`np.asarray(p)` reads a partition, a 0-d NumPy array is a number for a scalar parameter (and
another 0-d array's message says to pass a number), and `t.copy_(src)` writes host data, another
tensor or a DLPack array into an existing tensor or view."""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import rt_kernels as k
import view_kernels as vk
from rt_util import line_of

import cutile as ct
from cutile import f32


# -- t.reshape(()) -------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(1,), (1, 1), (1, 1, 1)])
def test_reshape_to_an_empty_tuple_is_0d(shape: tuple[int, ...]) -> None:
    t = ct.full(shape, 2.5, ct.f64)
    s = t.reshape(())
    assert s.shape == () and s.strides == () and s.ndim == 0 and s.size == 1
    got = s.numpy()
    assert got.shape == () and got == 2.5
    assert s.reshape((1, 1)).shape == (1, 1)  # and back


def test_reshape_to_0d_of_a_meta_a_view_and_a_strided_tensor() -> None:
    assert ct.meta((1,), f32).reshape(()).shape == ()
    t = ct.from_numpy(np.arange(8, dtype=np.float32))
    v = t[3:4].reshape(())  # a view: same memory, still in t's family
    assert v.shape == () and v.numpy() == 3.0
    s = t[::4][1:2]  # strided, one element: reshaped by a copy
    assert s.reshape(()).numpy() == 4.0


def test_reshape_to_0d_keeps_the_views_region() -> None:
    t = ct.zeros((8,), f32)
    v = t[2:3].reshape(())
    op = vk.inc1(t[0:4].partition((4,)))
    with pytest.raises(ct.OwnershipError) as err:
        v.numpy()  # the pending launch writes element 2
    assert err.value.diagnostics[0].code == "CT307"
    op.sync()
    assert v.numpy() == 1.0


def test_reshape_of_several_elements_to_0d_is_ct406() -> None:
    with pytest.raises(ct.LaunchError, match=r"shape \(2,\) \(2 elements\) to \(\)"):
        ct.zeros((2,), f32).reshape(())


# -- np.asarray(partition) -------------------------------------------------------------------------
def test_numpy_reads_partitions_through_array() -> None:
    a = np.arange(1000, dtype=np.float32)
    p = ct.from_numpy(a).partition((128,))
    for got in (np.asarray(p), np.array(p), np.array(p, copy=True)):
        assert got.dtype == np.float32 and got.shape == (1000,)
        np.testing.assert_array_equal(got, a)
    assert np.asarray(p, dtype=np.float64).dtype == np.float64
    np.testing.assert_allclose(p, a)
    np.testing.assert_allclose(ct.from_numpy(a[:256], dtype=ct.bf16).partition((128,)), a[:256])
    with pytest.raises(ValueError, match=r"cutile partition cannot be viewed .* np.asarray\(p\)"):
        np.asarray(p, copy=False)
    (z,) = k.inc(p).sync()  # still usable
    np.testing.assert_array_equal(np.asarray(z), a + 1)


def test_asarray_of_a_moved_partition_is_ct301_at_the_users_line() -> None:
    p = ct.zeros((8,), f32).partition((4,))
    p.unpartition()
    with pytest.raises(ct.OwnershipError) as err:
        np.asarray(p)  # marker
    d = err.value.diagnostics[0]
    assert d.code == "CT301" and d.span.line == line_of("# marker")


def test_asarray_of_a_partition_a_pending_launch_writes_is_ct307() -> None:
    z = ct.zeros((8,), f32)
    p = z[2:6].partition((4,))
    op = vk.inc1(z[0:4].partition((4,)))
    with pytest.raises(ct.OwnershipError) as err:
        np.asarray(p)  # marker
    d = err.value.diagnostics[0]
    assert d.code == "CT307" and d.span.line == line_of("# marker")
    op.sync()
    np.testing.assert_array_equal(np.asarray(p), [1, 1, 0, 0])


def test_asarray_of_a_meta_partition_is_ct406() -> None:
    with pytest.raises(ct.LaunchError, match="meta tensor"):
        np.asarray(ct.meta((8,), f32).partition((4,)))


# -- a 0-d array for a scalar parameter ------------------------------------------------------------
@pytest.mark.parametrize("s", [np.array(2.0, np.float32), np.array(2.0), np.array(2),
                               np.array(2, np.uint8)], ids=repr)
def test_a_0d_numpy_array_is_the_number_it_holds(s: Any) -> None:
    x = ct.from_numpy(np.arange(256, dtype=np.float32))
    z, x, _ = k.scale(ct.zeros((256,), f32).partition((128,)), x, s).sync()
    np.testing.assert_array_equal(z.unpartition().numpy(), np.arange(256) * float(s))


def test_a_0d_array_is_read_at_the_call() -> None:
    s = np.array(2.0, np.float32)
    x = ct.ones((128,), f32)
    op = k.scale(ct.zeros((128,), f32).partition((128,)), x, s)
    s[()] = 5.0  # after the call: the launch has the number already
    z, _, _ = op.sync()
    np.testing.assert_array_equal(z.unpartition().numpy(), np.full(128, 2.0, np.float32))


def _ct406(launch: Any) -> str:
    with pytest.raises(ct.LaunchError) as err:
        launch()
    d = err.value.diagnostics[0]
    assert d.code == "CT406"
    return d.message


@pytest.mark.parametrize("bad", [2.5, 2**40, -(2**31) - 1])
def test_a_0d_array_has_the_range_rules_of_a_numpy_scalar(bad: float) -> None:
    def shift(s: Any) -> Any:
        return k.shift(ct.zeros((128,), ct.i32).partition((128,)), s)

    shift(np.array(3, np.int32)).sync()  # a plan for 0-d arrays would let the next one through
    want = _ct406(lambda: shift(np.float64(bad) if bad == 2.5 else np.int64(bad)))
    assert _ct406(lambda: shift(np.array(bad))) == want


def test_a_0d_array_past_a_float_range_is_ct406() -> None:
    x = ct.ones((128,), f32)
    want = _ct406(lambda: k.scale(ct.zeros((128,), f32).partition((128,)), x, np.float64(1e39)))
    assert _ct406(lambda: k.scale(ct.zeros((128,), f32).partition((128,)), x,
                                  np.array(1e39))) == want


def test_a_0d_array_is_a_const_value() -> None:
    (z,) = k.needs_const(ct.zeros((64,), f32).partition((64,)), K=np.array(3)).sync()
    np.testing.assert_array_equal(z.unpartition().numpy(), np.full(64, 3.0, np.float32))


def test_other_0d_arrays_are_told_to_pass_a_number() -> None:
    torch = pytest.importorskip("torch")
    x = ct.ones((128,), f32)
    lr = torch.tensor(0.1)
    got = _ct406(lambda: k.scale(ct.zeros((128,), f32).partition((128,)), x, lr))
    assert got == ("argument 's' of 'scale': expected a f32 number, got a torch.Tensor (float32, "
                   "shape ()); pass the number it holds: float(lr) or lr.item()")
    one = np.ones(1, np.float32)
    got = _ct406(lambda: k.scale(ct.zeros((128,), f32).partition((128,)), x, one))
    assert got.endswith("got a numpy.ndarray (float32, shape (1,)); pass the number it holds: "
                        "one.item()")
    got = _ct406(lambda: k.shift(ct.zeros((128,), ct.i32).partition((128,)), torch.tensor(3)))
    assert got.endswith("pass the number it holds: int(torch.tensor(3)) or "
                        "torch.tensor(3).item()")
    many = np.ones(3)
    got = _ct406(lambda: k.scale(ct.zeros((128,), f32).partition((128,)), x, many))
    assert got.endswith("got a numpy.ndarray (float64, shape (3,))")
    got = _ct406(lambda: k.scale(ct.zeros((128,), f32).partition((128,)), x, [1.0]))
    assert got.endswith("got a list of 1 item")


def test_an_array_for_a_tensor_parameter_is_still_told_to_wrap_it() -> None:
    a = np.array(1.0, np.float32)
    got = _ct406(lambda: k.scale(ct.zeros((128,), f32).partition((128,)), a, 1.0))
    assert got.endswith("wrap it with ct.from_numpy(...) (a copy) or ct.from_dlpack(...) (shares "
                        "its memory)")


# -- t.copy_(src) --------------------------------------------------------------------------------
def test_copy_writes_a_numpy_array_and_returns_the_tensor(backend: str) -> None:
    t = ct.zeros((3, 4), f32)
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert t.copy_(a) is t
    np.testing.assert_array_equal(t.numpy(), a)
    t.copy_(np.arange(4))  # broadcast along the rows
    np.testing.assert_array_equal(t.numpy(), np.broadcast_to(np.arange(4), (3, 4)))
    t.copy_(np.float32(7))  # a scalar broadcasts too
    np.testing.assert_array_equal(t.numpy(), np.full((3, 4), 7, np.float32))
    z = ct.zeros((), ct.i32).copy_(np.array(5))
    assert z.numpy() == 5
    ct.zeros((0, 4), f32).copy_(np.zeros((0, 4)))


@pytest.mark.parametrize("dtype", [ct.f16, ct.bf16, ct.f64, ct.i8, ct.u16, ct.bool_, ct.f8e4m3],
                         ids=str)
def test_copy_converts_as_from_numpy_does(backend: str, dtype: ct.DType) -> None:
    a = np.array([[0, 1.5, -2.25, 100], [3, 0.1, 7, 1]])
    if dtype in (ct.u16, ct.i8):
        a = np.abs(np.trunc(a))
    t = ct.zeros((2, 4), dtype)
    t.copy_(a)
    np.testing.assert_array_equal(t.numpy(), ct.from_numpy(a, dtype=dtype).numpy())


def test_copy_values_out_of_range_are_ct406_as_from_numpy_says() -> None:
    t = ct.zeros((3,), ct.i8)
    with pytest.raises(ct.LaunchError) as err:
        t.copy_(np.array([1, 1000, 2]))  # marker
    d = err.value.diagnostics[0]
    assert d.code == "CT406" and d.span.line == line_of("# marker")
    assert d.message == "t.copy_: values from 1 to 1000 do not fit in i8 (-128 to 127)"
    with pytest.raises(ct.LaunchError, match=r"t\.copy_: NaN or infinite values do not fit in i8"):
        t.copy_(np.array([1.0, np.nan, 2.0]))
    np.testing.assert_array_equal(t.numpy(), [0, 0, 0])  # nothing written


@pytest.mark.parametrize(("src", "text"), [
    (np.ones(5), "t.copy_: cannot copy a source of shape (5,) into a tensor of shape (3, 4); the "
                 "source must have the tensor's shape or broadcast to it"),
    (np.ones((4, 4)), "shape (4, 4) into a tensor of shape (3, 4)"),
    (np.array(["a", "b"]), "t.copy_: expected an array of bool, int, uint or float dtype, got "
                           "dtype('<U1')"),
    (None, "t.copy_: expected an array of bool, int, uint or float dtype, got <class 'NoneType'>"),
    ([[1, 2], [3]], "got <class 'list'>"),
])
def test_copy_of_what_is_no_array_of_the_shape_is_ct406(src: Any, text: str) -> None:
    t = ct.zeros((3, 4), f32)
    with pytest.raises(ct.LaunchError) as err:
        t.copy_(src)
    assert err.value.diagnostics[0].code == "CT406"
    assert text in err.value.diagnostics[0].message


def test_copy_into_views_writes_their_elements_only(backend: str) -> None:
    base = np.arange(48, dtype=np.float32).reshape(6, 8)
    t = ct.from_numpy(base)
    want = base.copy()
    t[:, 1::3].copy_(np.full((6, 3), -1.0))
    want[:, 1::3] = -1.0
    t.permute(1, 0)[2].copy_(np.arange(6))  # column 2
    want[:, 2] = np.arange(6)
    t[4].copy_(np.ones(8))  # a contiguous row
    want[4] = 1.0
    lo, _ = t.split_at(0, 2)
    lo.narrow(1, 6, 2).copy_(np.array([[9, 8], [7, 6]]))
    want[0:2, 6:8] = [[9, 8], [7, 6]]
    np.testing.assert_array_equal(t.numpy(), want)


def test_copy_from_a_tensor(backend: str) -> None:
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = ct.zeros((3, 4), f32)
    src = ct.from_numpy(a)
    t.copy_(src)  # same dtype and shape: one device copy
    np.testing.assert_array_equal(t.numpy(), a)
    np.testing.assert_array_equal(src.numpy(), a)  # the source is left as it was
    t.copy_(ct.from_numpy(a * 2, dtype=ct.bf16))  # another dtype: converted
    np.testing.assert_array_equal(t.numpy(), a * 2)
    t.copy_(src[1])  # a view, broadcast to the rows
    np.testing.assert_array_equal(t.numpy(), np.broadcast_to(a[1], (3, 4)))
    t.copy_(src.permute(1, 0).permute(1, 0))
    np.testing.assert_array_equal(t.numpy(), a)
    t[:, 0:2].copy_(src[:, 2:4])  # strided to strided
    np.testing.assert_array_equal(t.numpy()[:, 0:2], a[:, 2:4])


def test_copy_between_overlapping_views_of_one_tensor(backend: str) -> None:
    z = ct.from_numpy(np.arange(6, dtype=np.float32))
    z[1:].copy_(z[:-1])  # the source is read whole before the write, as NumPy copies
    np.testing.assert_array_equal(z.numpy(), [0, 0, 1, 2, 3, 4])
    z[:-1].copy_(z[1:])
    np.testing.assert_array_equal(z.numpy(), [0, 1, 2, 3, 4, 4])
    z.copy_(z)
    np.testing.assert_array_equal(z.numpy(), [0, 1, 2, 3, 4, 4])


def test_copy_from_dlpack_arrays() -> None:
    torch = pytest.importorskip("torch")
    t = ct.zeros((2, 3), f32)
    t.copy_(torch.arange(6, dtype=torch.float64).reshape(2, 3))
    np.testing.assert_array_equal(t.numpy(), np.arange(6).reshape(2, 3))
    src = torch.full((2, 3), 4.0)
    t.copy_(src)
    src.fill_(1.0)  # t holds a copy
    np.testing.assert_array_equal(t.numpy(), np.full((2, 3), 4.0))
    t.copy_(torch.tensor([1.0, 2.0, 3.0]).expand(2, 3))  # a broadcast source (stride 0)
    np.testing.assert_array_equal(t.numpy(), [[1, 2, 3], [1, 2, 3]])


def test_copy_is_ordered_with_launches(backend: str) -> None:
    x = ct.zeros((256, 4), f32)
    x.copy_(np.full((256, 4), 3.0))
    z = ct.zeros((256, 4), f32).partition((128, 4))
    z, x = vk.double2(z, x).sync()
    np.testing.assert_array_equal(z.unpartition().numpy(), np.full((256, 4), 6.0))
    x.copy_(np.ones((256, 4)))  # the launch is done: x is no longer leased
    (z,) = vk.double2(ct.zeros((256, 4), f32).partition((128, 4)), x).sync()[:1]
    np.testing.assert_array_equal(z.unpartition().numpy(), np.full((256, 4), 2.0))


def test_copy_into_a_moved_tensor_is_ct301() -> None:
    t = ct.zeros((128,), f32)
    t.partition((128,))
    with pytest.raises(ct.OwnershipError) as err:
        t.copy_(np.ones(128))
    assert err.value.diagnostics[0].code == "CT301"


def test_copy_while_a_launch_reads_it_is_ct303() -> None:
    x = ct.ones((256, 4), f32)
    op = vk.double2(ct.zeros((256, 4), f32).partition((128, 4)), x)
    with pytest.raises(ct.OwnershipError, match="cannot be written until that launch is synced"):
        x.copy_(np.zeros((256, 4)))
    z, x = op.sync()
    np.testing.assert_array_equal(z.unpartition().numpy(), np.full((256, 4), 2.0))


def test_copy_into_a_region_a_launch_writes_is_ct307() -> None:
    t = ct.zeros((256, 4), f32)
    lo, hi = t.split_at(0, 128)
    op = vk.inc2(lo.partition((128, 4)))
    hi.copy_(np.full((128, 4), 5.0))  # disjoint: fine
    with pytest.raises(ct.OwnershipError) as err:
        t[100:140].copy_(np.ones((40, 4)))
    assert err.value.diagnostics[0].code == "CT307"
    op.sync()
    np.testing.assert_array_equal(t.numpy()[:128], np.ones((128, 4)))
    np.testing.assert_array_equal(t.numpy()[128:], np.full((128, 4), 5.0))


def test_copy_from_a_moved_tensor_is_ct301_at_the_argument() -> None:
    t = ct.zeros((8,), f32)
    src = ct.ones((8,), f32)
    src.partition((4,))
    with pytest.raises(ct.OwnershipError) as err:
        t.copy_(src)  # marker
    d = err.value.diagnostics[0]
    assert d.code == "CT301" and d.span.line == line_of("# marker")
    assert d.message.startswith("'src' was moved by .partition()")
    assert (d.span.col, d.span.end_col) == (16, 19)


def test_copy_from_a_region_a_launch_writes_is_ct307() -> None:
    t = ct.zeros((8,), f32)
    z = ct.zeros((8,), f32)
    op = vk.inc1(z[0:4].partition((4,)))
    t[0:4].copy_(z[4:8])  # disjoint: fine
    with pytest.raises(ct.OwnershipError) as err:
        t.copy_(z)
    d = err.value.diagnostics[0]
    assert d.code == "CT307" and "'z' overlaps a region" in d.message
    op.sync()
    t.copy_(z)
    np.testing.assert_array_equal(t.numpy(), [1, 1, 1, 1, 0, 0, 0, 0])


def test_copy_into_or_from_a_meta_tensor_is_ct406() -> None:
    with pytest.raises(ct.LaunchError, match=r"meta tensor .* cannot be written"):
        ct.meta((4,), f32).copy_(np.ones(4))
    with pytest.raises(ct.LaunchError, match=r"meta tensor .* cannot be copied from"):
        ct.zeros((4,), f32).copy_(ct.meta((4,), f32))


def test_copy_into_read_only_or_broadcast_imports_is_ct406() -> None:
    ro = ct.from_dlpack(np.broadcast_to(np.zeros(1, np.float32), (4,)))
    with pytest.raises(ct.LaunchError, match=r"read-only memory .* cannot be written"):
        ro.copy_(np.ones(4))
    torch = pytest.importorskip("torch")
    expanded = ct.from_dlpack(torch.zeros(1).expand(4))
    with pytest.raises(ct.LaunchError, match=r"has a stride 0 .* share memory"):
        expanded.copy_(np.arange(4))


def test_copy_into_a_tensor_a_graph_holds_is_ct303() -> None:
    """A graph owns its arguments until `g.sync()`, so writing one is refused as `fill_` is."""
    x = ct.ones((256,), f32)
    g = k.scale(ct.zeros((256,), f32).partition((128,)), x, 2.0).graph()
    with pytest.raises(ct.OwnershipError, match="CT303"):
        x.copy_(np.zeros(256))
    g.sync()


def test_the_checker_reports_what_copy_raises(tmp_path: Path) -> None:
    sys.path.insert(0, str(Path(__file__).parents[1] / "checker" / "host"))
    from parity import checker_findings, run_cases_file

    source = '''import numpy as np
import cutile as ct
from cutile import Const, Mut, Tensor, f32


@ct.kernel
def scale(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], s: f32, B: Const[int]) -> None:
    z.store(ct.load_tile_like(x, z) * s)


x = ct.ones((256,), f32)
op = scale(ct.zeros((256,), f32).partition((128,)), x, 2.0)
x.copy_(np.zeros(256))
op.sync()
y = ct.zeros((256,), f32)
p = y.partition((128,))
x.copy_(y)
t = ct.zeros((256,), f32)
lo, hi = t.split_at(0, 128)
op2 = scale(lo.partition((128,)), x, 1.0)
hi.copy_(np.ones(128))
t[100:140].copy_(np.ones(40))
op2.sync()
ct.meta((4,), f32).copy_(np.ones(4))
x.copy_(t).copy_(p)
'''
    path = tmp_path / "copies.py"
    path.write_text(source)
    want = {(13, "CT303"), (17, "CT301"), (22, "CT307"), (24, "CT406")}
    assert checker_findings(source, str(path)) == want
    assert run_cases_file(path).findings == want


# -- the CUDA path over the null driver ------------------------------------------------------------
@pytest.fixture
def null_cuda(toolchain: object) -> Iterator[list[tuple[str, int, bytes | int]]]:
    """The CUDA backend over the null driver, recording the copies it is asked for:
    (kind, device address, the host bytes written or the device source address)."""
    pytest.importorskip("cuda.bindings")
    from benchmarks import launch_overhead
    from cutile.runtime.cuda import driver

    calls: list[tuple[str, int, bytes | int]] = []
    with launch_overhead.null_cuda():
        drv = driver.drv
        htod, dtod = drv.cuMemcpyHtoDAsync, drv.cuMemcpyDtoDAsync

        def record_htod(dst: Any, src: int, n: int, stream: Any) -> Any:
            calls.append(("htod", int(dst), ctypes.string_at(src, n)))
            return htod(dst, src, n, stream)

        def record_dtod(dst: Any, src: Any, n: int, stream: Any) -> Any:
            calls.append(("dtod", int(dst), int(src)))
            return dtod(dst, src, n, stream)

        drv.cuMemcpyHtoDAsync, drv.cuMemcpyDtoDAsync = record_htod, record_dtod
        try:
            yield calls
        finally:
            drv.cuMemcpyHtoDAsync, drv.cuMemcpyDtoDAsync = htod, dtod


def test_copy_on_cuda_writes_each_row_of_a_strided_view(
        null_cuda: list[tuple[str, int, bytes | int]]) -> None:
    t = ct.zeros((3, 8), f32)
    base = t.data_ptr
    null_cuda.clear()
    assert t[:, 2:5].copy_(np.arange(9).reshape(3, 3)) is not None
    assert null_cuda == [("htod", base + (8 * r + 2) * 4,
                          np.arange(3 * r, 3 * r + 3, dtype=np.float32).tobytes())
                         for r in range(3)]
    null_cuda.clear()
    t.copy_(np.ones((3, 8)))  # contiguous: one copy
    assert null_cuda == [("htod", base, np.ones(24, np.float32).tobytes())]


def test_copy_on_cuda_of_a_tensor_is_one_device_copy(
        null_cuda: list[tuple[str, int, bytes | int]]) -> None:
    t = ct.zeros((4, 4), f32)
    src = ct.zeros((4, 4), f32)
    null_cuda.clear()
    t.copy_(src)
    assert null_cuda == [("dtod", t.data_ptr, src.data_ptr)]
    null_cuda.clear()
    t[1].copy_(src[2])
    assert null_cuda == [("dtod", t.data_ptr + 16, src.data_ptr + 32)]


def test_a_0d_array_for_a_scalar_parameter_on_cuda(
        null_cuda: list[tuple[str, int, bytes | int]]) -> None:
    x = ct.ones((256,), f32)
    for s in (np.array(2.0, np.float32), np.array(3.0)):
        k.scale(ct.zeros((256,), f32).partition((128,)), x, s).sync()
