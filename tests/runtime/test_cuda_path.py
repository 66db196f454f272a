"""The CUDA backend's CPU-testable half: parameters packed by the lowering's entry ABI (on fake
pointers), modules loaded once per cubin, grids from tiling.py, through a fake driver."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
import rt_kernels as k

import cutile as ct
from cutile import f32
from cutile.compiler.compile import lower_kernel
from cutile.compiler.dtypes import F32, DType
from cutile.compiler.lower.abi import EntrySlot
from cutile.runtime import context
from cutile.runtime.backends.base import Buffer, Device
from cutile.runtime.backends.pack import Packer
from cutile.runtime.sites import caller_site
from cutile.runtime.tensor import Tensor, contiguous_strides

pytest.importorskip("cuda.bindings")
from fake_cuda import FakeDriver, decode_params, fake_cuda_backend

GPU = Device("cuda", 0)


def fake_tensor(ptr: int, shape: tuple[int, ...], dtype: DType = F32) -> Tensor:
    buf = Buffer(GPU, ptr, 1 << 20)
    return Tensor(None, buf, 0, shape, contiguous_strides(shape), dtype)


def test_packer_offsets_are_natural() -> None:
    slots = [EntrySlot(0, "ptr", 0, "u64"), EntrySlot(0, "shape", 0), EntrySlot(1, "value", 0,
                                                                               "f64"),
             EntrySlot(2, "value", 0, "i8"), EntrySlot(3, "ptr", 0, "u64")]
    packer = Packer(slots)
    assert packer.offsets == (0, 8, 16, 24, 32) and packer.size == 40
    assert packer.tensor_args == (0, 3)


def test_packing_follows_the_lowering_slots() -> None:
    z = fake_tensor(0x7F00_0000_1000, (1000,)).partition((128,))
    x = fake_tensor(0x7F00_0010_0040, (1000,))
    bound = k.scale.binder().bind((z, x, 2.5), {}, caller_site())
    slots = lower_kernel(k.scale.module(), "scale", bound.spec).slots
    packer = Packer(slots)
    got = decode_params(packer.pack(bound.values), slots)
    want = []
    for s in slots:  # what each slot means, from the ABI's own description
        if s.field == "ptr":
            want.append((0x7F00_0000_1000, 0x7F00_0010_0040)[s.arg])
        elif s.field == "shape":
            want.append(1000)
        elif s.field == "stride":
            want.append(1)
        else:
            want.append(2.5)
    assert got == tuple(want)
    assert [s.field for s in slots if s.arg == 2] == ["value"]  # the f32 scalar
    assert all(s.arg != 3 for s in slots)  # the Const passes nothing


def test_narrow_scalars_are_packed_as_device_bits() -> None:
    slots = (EntrySlot(0, "value", 0, "bf16"), EntrySlot(1, "value", 0, "f16"),
             EntrySlot(2, "value", 0, "bool_"))
    packer = Packer(slots)
    assert decode_params(packer.pack([1.0, 0.5, True]), slots) == (0x3F80, 0.5, True)


@pytest.fixture
def fake() -> Iterator[FakeDriver]:
    with fake_cuda_backend() as drv:
        yield drv


def test_launch_through_the_fake_driver(fake: FakeDriver) -> None:
    x, y = ct.arange(4096, f32), ct.ones((4096,), f32)
    np.testing.assert_array_equal(x.numpy(), np.arange(4096))  # copies are real here
    z = ct.zeros((4096,), f32).partition((1024,))
    z, x, y = k.add(z, x, y).sync()
    z, x, y = k.add(z, x, y).sync()
    assert len(fake.modules) == 1 and len(fake.functions) == 1  # loaded once
    assert fake.functions[0][1] == "add"
    first, second = fake.launches
    assert first.grid == (4, 1, 1) and first.function == second.function
    slots = fake.compiled[0].slots
    ptrs = [v for v, s in zip(first.params, slots, strict=True) if s.field == "ptr"]
    assert ptrs == [z.unpartition().data_ptr, x.data_ptr, y.data_ptr]


def test_orders_launch_the_tiling_grid(fake: FakeDriver) -> None:
    grid = {}
    for order in (ct.row_major, ct.col_major, ct.grouped(2)):
        p = ct.zeros((80, 32), ct.i32).partition((16, 8), order=order)
        k.where_tile(p).sync()
        grid[repr(order)] = fake.launches[-1].grid
    assert grid == {"ct.row_major": (5, 4, 1), "ct.col_major": (20, 1, 1),
                    "ct.grouped(2)": (20, 1, 1)}
    assert len(fake.modules) == 3  # the order is part of the specialization


def test_a_block_used_on_a_second_stream_waits_for_it(fake: FakeDriver) -> None:
    """A buffer knows its allocation stream from the start; a launch or copy on another stream
    adds that stream, and freeing the block then records an event there before reuse."""
    from cutile.runtime.backends.cuda import CudaBackend

    be = context.backend()
    assert isinstance(be, CudaBackend)
    recorded: list[int] = []
    ops = be.allocator._ops
    record = ops.record_event
    ops.record_event = lambda stream: recorded.append(stream) or record(stream)
    main = be.default_stream()
    z, x, y = ct.zeros((4096,), f32).partition((1024,)), ct.ones((4096,), f32), ct.ones((4096,),
                                                                                       f32)
    zbuf, xbuf = z._tensor._buf, x._buf
    assert zbuf is not None and xbuf is not None
    z, x, y = k.add(z, x, y).sync()
    assert zbuf.streams == xbuf.streams == {main}  # the same stream: nothing to add
    side = ct.Stream()
    with side:
        z, x, y = k.add(z, x, y).sync()
    assert fake.launches[-1].stream == side.handle
    assert zbuf.streams == xbuf.streams == {main, side.handle}
    w = be.allocate(64, main)
    be.copy(w, 0, xbuf, 0, 64, side.handle)  # copies are stream work too
    assert w.streams == {main, side.handle}
    before = len(recorded)
    del z, x, y, xbuf, zbuf, w
    assert recorded[before:].count(side.handle) == 4  # z, x, y, w: each waits for the side
    assert main not in recorded[before:]  # the allocation stream is ordered already


def test_launches_from_another_thread_use_their_own_parameters(fake: FakeDriver,
                                                               monkeypatch: pytest.MonkeyPatch
                                                               ) -> None:
    """cuLaunchKernel may release the GIL while it reads the parameters: each thread packs into
    its own buffer, and its first launch makes the context current there."""
    import threading

    from cutile.runtime.cuda import driver

    current: list[int] = []
    monkeypatch.setattr(driver, "set_current", lambda ctx: current.append(threading.get_ident()))
    addresses: list[int] = []
    launch = fake.launch

    def spy(function: int, grid: tuple[int, int, int], stream: int, params: int) -> None:
        addresses.append(params)
        launch(function, grid, stream, params)

    monkeypatch.setattr(fake, "launch", spy)
    z, x, y = ct.zeros((4096,), f32).partition((1024,)), ct.ones((4096,), f32), ct.ones((4096,),
                                                                                       f32)
    z, x, y = k.add(z, x, y).sync()
    z, x, y = k.add(z, x, y).sync()
    out: list[tuple[int, ...]] = []

    def worker() -> None:
        a = ct.zeros((2048,), f32).partition((1024,))
        b, c = ct.ones((2048,), f32), ct.ones((2048,), f32)
        k.add(a, b, c).sync()
        out.append(fake.launches[-1].params)

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert len(out) == 1 and 2048 in out[0]  # the worker's own shapes reached the driver
    assert thread.ident in current  # the context made current in the worker thread
    assert addresses[0] == addresses[1] != addresses[2]  # one buffer per thread
    z, x, y = k.add(z, x, y).sync()
    assert addresses[3] == addresses[0] and 4096 in fake.launches[-1].params


def test_a_failed_launch_raises_the_driver_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from cuda.bindings import driver as drv

    from cutile.diagnostics.errors import DeviceError
    from cutile.runtime.cuda import driver

    error = drv.CUresult.CUDA_ERROR_INVALID_VALUE
    monkeypatch.setattr(drv, "cuLaunchKernel", lambda *args: (error,))
    launch = driver.launcher(0x1234)
    with pytest.raises(DeviceError, match=r"CT505.*cuLaunchKernel.*CUDA_ERROR_INVALID_VALUE"):
        launch((1, 1, 1), 0x5678, 0)


def test_allocation_beyond_device_memory_is_ct410(fake: FakeDriver) -> None:
    with pytest.raises(ct.LaunchError, match=r"CT412 ct.zeros of shape \(1099511627776,\) "
                       r"\(f32\) needs 4\.0 TiB, more than the device's memory \(80\.0 GiB\)"):
        ct.zeros((2**40,), f32)
    assert ct.zeros((1024,), f32).shape == (1024,)  # within the limit: allocated as before
