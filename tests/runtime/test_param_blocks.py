"""A launch plan's prebuilt parameter block (`Packer` with the plan's statics, made by
`Executable.planned`) holds, slot for slot, the bytes the per-launch packing of every slot
writes: pointers, i32/i64/f32/f16 scalars, dynamic extents and the strides of views, also after
later launches change the pointers and scalars. Only the per-launch slots are written then."""

from __future__ import annotations

import ctypes
import struct
from collections.abc import Callable
from typing import Any

import numpy as np
import param_kernels as pk
import pytest
import rt_kernels as k

import cutile as ct
from cutile import f32
from cutile.compiler.compile import lower_kernel
from cutile.compiler.dtypes import F16, F32, DType
from cutile.compiler.lower.abi import EntrySlot
from cutile.runtime.backends.base import Buffer, Device
from cutile.runtime.backends.pack import FORMATS, Packer
from cutile.runtime.partition import Partition
from cutile.runtime.plans import statics
from cutile.runtime.sites import caller_site
from cutile.runtime.tensor import Tensor, contiguous_strides

GPU = Device("cuda", 0)


def tensor(ptr: int, shape: tuple[int, ...], dtype: DType = F32) -> Tensor:
    return Tensor(None, Buffer(GPU, ptr, 1 << 24), 0, shape, contiguous_strides(shape), dtype)


def slot_bytes(address: int, slots: tuple[EntrySlot, ...]) -> list[bytes]:
    """Each slot's bytes, read through the `void*[]` as the driver reads them."""
    pointers = (ctypes.c_void_p * len(slots)).from_address(address)
    return [ctypes.string_at(p, struct.calcsize(FORMATS[s.ctype]))
            for p, s in zip(pointers, slots, strict=True)]


# (kernel, arguments for two launches of one plan: same shapes, other pointers and scalars)
Case = tuple[Any, Callable[[int, int], tuple[Any, ...]]]


def _add(base: int, n: int) -> tuple[Any, ...]:
    return (tensor(base, (5000,)).partition((1024,)), tensor(base + 0x10_0000, (5000,)),
            tensor(base + 0x20_0000, (5000,)))


def _mixed(base: int, n: int) -> tuple[Any, ...]:
    return (tensor(base, (3000,)).partition((256,)), tensor(base + 0x10_0000, (3000,)),
            -7 * n, 2**40 + n, 0.1 * n, np.float16(1.5) * n)


def _matmul(base: int, n: int) -> tuple[Any, ...]:
    return (tensor(base, (96, 64)).partition((32, 32)),
            tensor(base + 0x10_0000, (96, 48), F16), tensor(base + 0x20_0000, (48, 64), F16))


def _views(base: int, n: int) -> tuple[Any, ...]:
    t = tensor(base, (40, 30))
    z = t.permute(1, 0)[2:10, 1:13]  # strides (1, 30): a transposed window
    x = tensor(base + 0x10_0000, (40, 30))[3:11, 2::2]  # strides (30, 2)
    y = tensor(base + 0x20_0000, (12, 24))[:, ::2]
    return z.partition((4, 4)), x, y, -(2**50) + n


CASES: dict[str, Case] = {"pointers and dynamic extents": (k.add, _add),
                          "i32, i64, f32 and f16 scalars": (pk.mixed, _mixed),
                          "2-d, f16": (k.matmul, _matmul),
                          "views: strides, offsets": (pk.strided, _views)}


def _bound(kernel: Any, args: tuple[Any, ...]) -> tuple[list[Any], tuple[EntrySlot, ...]]:
    consts = {"BK": 16} if kernel is k.matmul else {}
    bound = kernel.binder().bind(args, consts, caller_site())
    slots = tuple(lower_kernel(kernel.module(), kernel.__name__, bound.spec).slots)
    return bound.values, slots


def _statics(values: list[Any]) -> dict[int, Any]:
    return {i: statics(v) for i, v in enumerate(values) if isinstance(v, (Tensor, Partition))}


@pytest.mark.parametrize("case", CASES)
def test_planned_block_holds_the_plain_blocks_bytes(case: str) -> None:
    kernel, make = CASES[case]
    values, slots = _bound(kernel, make(0x7F00_0000_0000, 1))
    plain, planned = Packer(slots), Packer(slots, _statics(values))
    fixed = [s for s in slots if s.field in ("shape", "stride")]
    assert fixed, "each case has extents or strides in its block"
    assert len(planned.dynamic) == len(slots) - len(fixed)  # written once, not per launch
    assert slot_bytes(planned.pack(values), slots) == slot_bytes(plain.pack(values), slots)
    # a later launch of the plan: other pointers and scalars, the same shapes
    again, _ = _bound(kernel, make(0x7E00_0000_0000, 3))
    assert slot_bytes(planned.pack(again), slots) == slot_bytes(plain.pack(again), slots)
    assert slot_bytes(planned.pack(values), slots) == slot_bytes(plain.pack(values), slots)


def test_views_block_has_the_views_strides() -> None:
    values, slots = _bound(pk.strided, _views(0x7F00_0000_0000, 1))
    packer = Packer(slots, _statics(values))  # owns the memory slot_bytes reads
    got = slot_bytes(packer.pack(values), slots)
    meaning = {(s.arg, s.field, s.axis): struct.unpack("<" + FORMATS[s.ctype], b)[0]
               for s, b in zip(slots, got, strict=True)}
    assert meaning[(0, "stride", 0)] == 1 and meaning[(0, "stride", 1)] == 30
    assert meaning[(1, "stride", 0)] == 30 and meaning[(1, "stride", 1)] == 2
    assert meaning[(0, "ptr", 0)] == 0x7F00_0000_0000 + (1 * 30 + 2) * 4
    assert meaning[(3, "value", 0)] == -(2**50) + 1


@pytest.mark.parametrize("case", CASES)
def test_runner_writes_the_block_and_launches_it(case: str) -> None:
    """`Packer.runner`: the buffers learn the stream, then one launch call with the block."""
    kernel, make = CASES[case]
    values, slots = _bound(kernel, make(0x7F00_0000_0000, 2))
    plain, planned = Packer(slots), Packer(slots, _statics(values))
    calls: list[tuple[Any, ...]] = []
    run = planned.runner(lambda grid, s, address: calls.append(
        (grid, s, slot_bytes(address, slots))))
    run(values, (3, 2, 1), 77)
    assert calls == [((3, 2, 1), 77, slot_bytes(plain.pack(values), slots))]
    for i in planned.tensor_args:
        v = values[i]
        buf = (v._tensor if isinstance(v, Partition) else v)._buf
        assert 77 in buf.streams


def test_each_plan_of_one_specialization_packs_its_own_shapes() -> None:
    """Extents of a (-1,) tensor are one specialization for many shapes: each plan's block has
    its own, through the CUDA backend's launch path (a fake driver)."""
    pytest.importorskip("cuda.bindings")
    from fake_cuda import fake_cuda_backend

    with fake_cuda_backend() as fake:
        big = (ct.zeros((4096,), f32).partition((1024,)), ct.ones((4096,), f32),
               ct.ones((4096,), f32))
        small = (ct.zeros((2048,), f32).partition((1024,)), ct.ones((2048,), f32),
                 ct.ones((2048,), f32))
        for _ in range(2):
            big = k.add(*big).sync()
            small = k.add(*small).sync()
        assert len(fake.functions) == 1  # one specialization, loaded once
        slots = fake.compiled[0].slots
        for launch, n in zip(fake.launches, (4096, 2048, 4096, 2048), strict=True):
            assert launch.grid == (n // 1024, 1, 1)
            extents = {v for v, s in zip(launch.params, slots, strict=True)
                       if s.field == "shape"}
            assert extents == {n}


def test_plans_of_one_specialization_compute_their_own_sizes(backend: str) -> None:
    """On the device (and the interpreter): two shapes of one specialization launched in
    turn, in `.then` chains and a replayed graph, each with its own extents."""
    rng = np.random.default_rng(5)
    data = {n: (rng.standard_normal(n).astype(np.float32),
                rng.standard_normal(n).astype(np.float32)) for n in (5000, 2048)}
    args = {n: (ct.zeros((n,), f32).partition((1024,)), ct.from_numpy(a), ct.from_numpy(b))
            for n, (a, b) in data.items()}
    for _ in range(3):
        for n in data:
            args[n] = k.add(*args[n]).then(k.add).sync()
    g = k.add(*args[5000]).then(k.add).graph()
    g.replay()
    g.replay()
    args[5000] = g.sync()
    for n, (a, b) in data.items():
        np.testing.assert_array_equal(args[n][0].unpartition().numpy(), a + b)
