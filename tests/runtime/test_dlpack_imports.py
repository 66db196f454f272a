"""`ct.from_dlpack` imports: DLPack 1.x (read-only memory is read, never written), copies made
with positive strides, and writes to a copied import warn (CT413) on the CUDA backend (fake
driver: device memory is host memory, so the copies are real) but not on the interpreter, whose
import shares the producer's memory."""

from __future__ import annotations

import ctypes
import warnings
from collections.abc import Iterator
from typing import Any

import at_kernels as ak
import numpy as np
import pytest
import rt_kernels as k
from rt_util import line_of

import cutile as ct
from cutile import f32


@pytest.fixture
def cuda() -> Iterator[Any]:
    pytest.importorskip("cuda.bindings")
    from fake_cuda import FakeDriver, fake_cuda_backend

    class FillingDriver(FakeDriver):
        """Strided fills (`fill_`) are real too."""

        def memset2d(self, dst: int, pitch: int, word: int, unit: int, count: int, rows: int,
                     stream: int) -> None:
            for r in range(rows):
                row = (ctypes.c_uint8 * (count * unit)).from_address(dst + r * pitch)
                np.ctypeslib.as_array(row).view(f"u{unit}")[:] = word

    with fake_cuda_backend(FillingDriver(), calls=("memset2d",)) as drv:
        yield drv


class LegacyProducer:
    """A producer from before DLPack 1.0: `__dlpack__` takes no `max_version`."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)

    def __dlpack__(self, stream: int | None = None) -> Any:
        return self.array.__dlpack__()


class CorruptStrides(LegacyProducer):
    """Exports `array` (1-D, negative stride) with the stride CuPy's export gave such a view on
    the H200: the byte stride divided by the item size as unsigned numbers (-1 -> 2**62 - 1)."""

    def __dlpack__(self, stream: int | None = None) -> Any:
        from cutile.runtime.dlpack import DLManagedTensor

        capsule = self.array.__dlpack__()
        addr = ctypes.pythonapi.PyCapsule_GetPointer(ctypes.py_object(capsule), b"dltensor")
        dl = DLManagedTensor.from_address(addr).dl_tensor
        dl.strides[0] = ((1 << 64) + dl.strides[0] * self.array.itemsize) // self.array.itemsize
        return capsule


def test_strides_that_reach_past_any_address_space_are_refused() -> None:
    ctypes.pythonapi.PyCapsule_GetPointer.restype = ctypes.c_void_p
    ctypes.pythonapi.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    with pytest.raises(ct.LaunchError) as err:
        ct.from_dlpack(CorruptStrides(np.arange(64, dtype=np.float32)[::-1]))
    (d,) = err.value.diagnostics
    assert d.code == "CT406" and "are not real" in d.message and "4611686018427387903" in d.message
    assert d.span.line == line_of("ct.from_dlpack(CorruptStrides")


def _read_by_a_kernel(x: ct.Tensor, want: np.ndarray) -> None:
    """A launch reads `x` (on the fake driver it is packed, not run: then the tensor's own
    values are compared)."""
    z, x, _ = k.scale(ct.zeros(x.shape, f32).partition((16,)), x, 1.0).sync()
    got = z.unpartition().numpy() if ct.backend_name() == "interpreter" else x.numpy()
    np.testing.assert_array_equal(got, want)


# -- read-only memory ---------------------------------------------------------------------------
def _read_only_arrays() -> list[np.ndarray]:
    row = np.arange(64, dtype=np.float32)
    return [np.broadcast_to(row, (4, 64))[1], np.frombuffer(row.tobytes(), dtype=np.float32),
            np.arange(64, dtype=np.float32).copy()]


@pytest.mark.parametrize("backend_kind", ["interpreter", "cuda"])
def test_read_only_arrays_are_read_by_kernels(backend_kind: str,
                                              request: pytest.FixtureRequest) -> None:
    if backend_kind == "cuda":
        request.getfixturevalue("cuda")
    a, b, c = _read_only_arrays()
    c.flags.writeable = False
    for arr in (a, b, c):
        _read_by_a_kernel(ct.from_dlpack(arr), arr)


def test_read_only_broadcast_import_is_read_in_2d() -> None:
    row = np.arange(80, dtype=np.float32)
    x = ct.from_dlpack(np.broadcast_to(row, (37, 80)))  # stride 0: the hpc probe's case
    assert x.strides == (0, 1)
    np.testing.assert_array_equal(x.numpy(), np.broadcast_to(row, (37, 80)))


@pytest.mark.parametrize("backend_kind", ["interpreter", "cuda"])
def test_writes_to_read_only_imports_are_refused_at_the_users_line(
        backend_kind: str, request: pytest.FixtureRequest) -> None:
    if backend_kind == "cuda":
        request.getfixturevalue("cuda")
    arr = np.frombuffer(np.arange(64, dtype=np.float32).tobytes(), dtype=np.float32)
    x = ct.from_dlpack(arr)
    with pytest.raises(ct.LaunchError) as err:
        x.partition((16,))  # marker: partition
    d = err.value.diagnostics[0]
    assert d.code == "CT408" and d.span.line == line_of("marker: partition")
    assert d.message.startswith("'x' is read-only memory (a numpy.ndarray imported with "
                                "ct.from_dlpack) and cannot be partitioned")
    with pytest.raises(ct.LaunchError) as err:
        x.fill_(1.0)  # marker: fill
    d = err.value.diagnostics[0]
    assert d.code == "CT406" and d.span.line == line_of("marker: fill")
    assert "cannot be filled" in d.message
    with pytest.raises(ct.LaunchError) as err:
        ak.tally(x, B=16, grid=(4,)).sync()  # marker: acc
    d = err.value.diagnostics[0]
    assert d.code == "CT406" and d.span.line == line_of("marker: acc")
    assert d.message.startswith("'x' is read-only memory") and "passed to an Acc parameter" in \
        d.message
    assert (d.span.col, d.span.end_col) == (17, 18)  # the argument
    np.testing.assert_array_equal(arr, np.arange(64))  # nothing was written
    _read_by_a_kernel(x, arr)  # the tensor stays usable as an input


def test_views_of_a_read_only_import_are_read_only() -> None:
    x = ct.from_dlpack(np.frombuffer(np.zeros(64, np.float32).tobytes(), dtype=np.float32))
    with pytest.raises(ct.LaunchError, match="CT408"):
        x[16:32].partition((16,))


def test_a_producer_without_max_version_is_imported_the_legacy_way() -> None:
    arr = np.arange(64, dtype=np.float32)
    x = ct.from_dlpack(LegacyProducer(arr))
    assert x.data_ptr == arr.ctypes.data  # zero copy, and writable
    k.inc(x.partition((16,))).sync()
    np.testing.assert_array_equal(arr, np.arange(64) + 1)


# -- copies ------------------------------------------------------------------------------------
def test_a_copied_negative_stride_import_has_positive_strides(cuda: Any) -> None:
    a = np.arange(100, dtype=np.float32)
    x = ct.from_dlpack(a[::-1])
    assert x.strides == (1,) and x.data_ptr != a.ctypes.data  # a copy, compact
    np.testing.assert_array_equal(x.numpy(), a[::-1])
    k.scale(ct.zeros((100,), f32).partition((32,)), x, 1.0).sync()  # no CT508
    assert len(cuda.launches) == 1
    b = np.arange(60, dtype=np.float32).reshape(6, 10)
    for view in (b[::-1, ::-2], b.T, b[1:5, 2:9:3]):
        t = ct.from_dlpack(view)
        assert t.is_contiguous()
        np.testing.assert_array_equal(t.numpy(), view)


def test_a_copied_broadcast_import_keeps_its_stride_0(cuda: Any) -> None:
    row = np.arange(8, dtype=np.float32)[::-1]
    x = ct.from_dlpack(np.broadcast_to(row, (5, 8)))
    assert x.strides == (0, 1)  # one row copied, not five
    np.testing.assert_array_equal(x.numpy(), np.broadcast_to(row, (5, 8)))


def test_an_empty_import_is_copied(cuda: Any) -> None:
    x = ct.from_dlpack(np.zeros((0, 3), np.float32))
    assert x.shape == (0, 3) and x.numpy().shape == (0, 3)


# -- writes to a copy ----------------------------------------------------------------------------
def test_writes_to_a_copied_import_warn_at_the_users_line(cuda: Any) -> None:
    out = np.zeros(64, np.float32)
    t = ct.from_dlpack(out)
    with pytest.warns(ct.CopiedImportWarning) as caught:
        p = t.partition((16,))  # marker: partition
    w = caught[0]
    assert w.lineno == line_of("marker: partition") and w.filename == __file__
    text = str(w.message)
    assert text.startswith("CT413 't' is a copy of the numpy.ndarray imported with "
                           "ct.from_dlpack (the cuda backend cannot compute on that memory)")
    assert "read the results back with .numpy()" in text
    p, = k.inc(p).sync()
    t = p.unpartition()
    assert t.data_ptr != out.ctypes.data and len(cuda.launches) == 1  # it wrote the copy
    with pytest.warns(ct.CopiedImportWarning, match="CT413 't' .* filled here"):
        t.fill_(2.0)
    np.testing.assert_array_equal(t.numpy(), np.full(64, 2.0))  # the copy has it...
    assert not out.any()  # ...and `out` never will
    h = ct.from_dlpack(np.zeros(64, np.float32))
    with pytest.warns(ct.CopiedImportWarning, match="passed to an Acc parameter here") as caught:
        ak.tally(h, B=16, grid=(4,)).sync()  # marker: acc
    assert caught[0].lineno == line_of("marker: acc")


def test_writes_to_a_shared_import_do_not_warn() -> None:
    out = np.zeros(64, np.float32)
    t = ct.from_dlpack(out)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p, = k.inc(t.partition((16,))).sync()
        p.unpartition().fill_(3.0)
        ak.tally(ct.from_dlpack(out), B=16, grid=(4,)).sync()
    np.testing.assert_array_equal(out, np.full(64, 4.0))  # the interpreter writes through


def test_reads_of_a_copied_import_do_not_warn(cuda: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x = ct.from_dlpack(np.ones(64, np.float32))
        _read_by_a_kernel(x, np.ones(64))
        ct.zeros((64,), f32).partition((16,))  # cutile's own memory


@pytest.mark.parametrize("consumer", [ct, np], ids=["ct", "np"])
def test_importing_a_moved_tensor_names_the_argument(consumer: Any) -> None:
    """`ct.from_dlpack(t)` (or NumPy's) of a moved `t`: CT301 names `t` and points at it, as
    the checker does (not `ct`, the call's receiver, at the whole call)."""
    t = ct.arange(8, f32)
    t.partition((4,))
    with pytest.raises(ct.OwnershipError) as info:
        consumer.from_dlpack(t)  # CT301 here
    (d,) = info.value.diagnostics
    line = line_of("consumer.from_dlpack(t)  # CT301 here")
    assert d.code == "CT301" and "'t' was moved" in d.message
    assert (d.span.line, d.span.col, d.span.end_col) == (line, 29, 30)
