"""Host views on a real GPU (`pytest -m gpu`): strided inputs and Mut partitions of views
compiled by tileiras, compared with NumPy; torch strided tensors through DLPack both ways."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import view_kernels as vk

import cutile as ct
from cutile import f32

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("use_cuda")]


def _grid(shape: tuple[int, ...]) -> np.ndarray:
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)


def test_strided_inputs_match_numpy(cuda: Any) -> None:
    a = _grid((64, 48))
    t = ct.from_numpy(a)
    assert str(t.device) == "cuda:0"
    for v, want in [(t[::2, 1::2], a[::2, 1::2]), (t.permute(1, 0)[0:32], a.T[0:32]),
                    (t[3:35, 5:37], a[3:35, 5:37]), (t[:, 8:40], a[:, 8:40])]:
        out = ct.zeros(want.shape, f32)
        (o, _) = vk.double2(out.partition((16, 8)), v).sync()
        np.testing.assert_array_equal(o.unpartition().numpy(), 2 * want)


def test_mut_partitions_of_views_match_numpy(cuda: Any) -> None:
    a = _grid((48, 40))
    t = ct.from_numpy(a)
    want = a.copy()
    vk.inc2(t.permute(1, 0)[2:34, 1:45].partition((16, 16))).sync()
    want.T[2:34, 1:45] += 1
    vk.inc2(t[::3, 1::2].partition((4, 8))).sync()
    want[::3, 1::2] += 1
    left, right = t.split_at(1, 20)  # 20 columns each: both halves give a (3, 3) grid
    vk.pair2(left.partition((16, 8)), right.partition((16, 8))).sync()
    want[:, :20], want[:, 20:] = 1.0, 2.0
    np.testing.assert_array_equal(t.numpy(), want)


def test_disjoint_views_in_two_pending_launches(cuda: Any) -> None:
    a = _grid((64, 32))
    t = ct.from_numpy(a)
    out = ct.zeros((32, 32), f32)
    reader = vk.double2(out.partition((16, 16)), t[0:32])
    writer = vk.inc2(t[32:64].partition((16, 16)))
    (o, _) = reader.sync()
    writer.sync()
    np.testing.assert_array_equal(o.unpartition().numpy(), 2 * a[0:32])
    np.testing.assert_array_equal(t.numpy()[32:], a[32:] + 1)


def test_torch_strided_both_ways(cuda: Any) -> None:
    torch = pytest.importorskip("torch")
    x = torch.arange(64 * 48, dtype=torch.float32, device="cuda").reshape(64, 48)
    out = torch.zeros(48, 64, dtype=torch.float32, device="cuda")
    cx = ct.from_dlpack(x.t())  # (48, 64), strides (1, 48): zero copy
    assert cx.strides == (1, 48) and cx.data_ptr == x.data_ptr()
    cout = ct.from_dlpack(out)
    (o, _) = vk.double2(cout[:, 0:32].partition((16, 16)), cx[:, 0:32]).sync()
    assert torch.equal(out[:, 0:32], 2 * x.t()[:, 0:32])
    back = torch.from_dlpack(o.unpartition().permute(1, 0))  # a strided view out
    assert back.stride() == (1, 64) and back.data_ptr() == out.data_ptr()
    assert torch.equal(back, out[:, 0:32].t())


def test_negative_strides_on_the_gpu(cuda: Any) -> None:
    """TMA reads only positive strides (on the H200 such a launch made an illegal address).
    A NumPy view with negative strides is host memory, so the import copies it compact and it
    runs; device memory with negative strides (a CuPy view, zero copy) is CT508 at the launch."""
    a = _grid((32, 32))
    src = ct.from_dlpack(a[::-1, ::-1])
    assert src.strides == (32, 1)  # the copy
    (o, _) = vk.double2(ct.zeros((32, 32), f32).partition((16, 16)), src).sync()
    np.testing.assert_array_equal(o.unpartition().numpy(), 2 * a[::-1, ::-1])
    cp = pytest.importorskip("cupy")
    with pytest.raises(ct.CutileError) as err:  # never a launch over these strides
        dev = ct.from_dlpack(cp.asarray(a)[::-1, ::-1])
        assert dev.strides == (-32, -1)
        vk.double2(ct.zeros((32, 32), f32).partition((16, 16)), dev).sync()
    # CT508 at the launch; or CT406 at the import where CuPy's export makes the negative
    # strides huge positive ones (on the H200: 2**62 - 32 for -32)
    assert err.value.diagnostics[0].code in ("CT508", "CT406"), err.value
