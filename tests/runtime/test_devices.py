"""Backend selection, the caching allocator (with fake driver calls), parameter packing."""

from __future__ import annotations

import pytest

import cutile as ct
from cutile.diagnostics.diagnostic import Diagnostic, Span
from cutile.diagnostics.errors import DeviceError
from cutile.runtime import context
from cutile.runtime.cuda.allocator import CachingAllocator, RawOps, round_size


def _select(monkeypatch: pytest.MonkeyPatch, value: str) -> str:
    monkeypatch.setenv("CUTILE_BACKEND", value)
    old = context.set_backend(None)
    try:
        return context.backend().name
    finally:
        context.set_backend(old)


def test_interpreter_can_be_forced(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _select(monkeypatch, "interpreter") == "interpreter"


def test_cuda_forced_without_gpu_is_ct504(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(context, "_gpu_present", lambda: False)
    with pytest.raises(ct.DeviceError) as err:
        _select(monkeypatch, "cuda")
    (d,) = err.value.diagnostics
    assert d.code == "CT504" and "CUTILE_BACKEND=cuda" in d.message


def test_bad_backend_name(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ct.CutileError, match="CT901"):
        _select(monkeypatch, "tpu")


def test_auto_selection_without_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(context, "_gpu_present", lambda: False)
    assert _select(monkeypatch, "") == "interpreter"


@pytest.mark.parametrize("value, ordinal", [("", 0), ("0", 0), ("3", 3), (" 1 ", 1)])
def test_cutile_device_picks_the_gpu(monkeypatch: pytest.MonkeyPatch, value: str,
                                     ordinal: int) -> None:
    monkeypatch.setenv("CUTILE_DEVICE", value)
    assert context.device_ordinal() == ordinal


@pytest.mark.parametrize("value", ["cuda:1", "-1", "x"])
def test_a_bad_cutile_device_is_ct504(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("CUTILE_DEVICE", value)
    with pytest.raises(ct.DeviceError) as err:
        context.device_ordinal()
    (d,) = err.value.diagnostics
    assert d.code == "CT504" and f"CUTILE_DEVICE={value!r} is not a device number" in d.message


@pytest.mark.gpu
def test_cutile_device_beyond_the_gpus_is_ct504(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUTILE_DEVICE", "999")
    with pytest.raises(ct.DeviceError, match="device 999 does not exist"):
        _select(monkeypatch, "cuda")


class FakeDriver:
    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.used = 0
        self.next = 0x1000
        self.live: dict[int, int] = {}
        self.events: dict[int, bool] = {}
        self.synced = 0

    def alloc(self, n: int) -> int:
        if self.used + n > self.capacity:
            span = Span("<driver>", 1, 0, 1, 1)
            raise DeviceError([Diagnostic("CT505", "cuMemAlloc failed: OOM", span)])
        self.used += n
        ptr, self.next = self.next, self.next + n
        self.live[ptr] = n
        return ptr

    def free(self, ptr: int) -> None:
        self.used -= self.live.pop(ptr)

    def record(self, stream: int) -> int:
        event = len(self.events) + 1
        self.events[event] = False
        return event

    def ops(self) -> RawOps:
        return RawOps(self.alloc, self.free, self.record, lambda e: self.events[e],
                      lambda e: None, self.sync)

    def sync(self) -> None:
        self.synced += 1
        for e in self.events:
            self.events[e] = True


def test_rounding() -> None:
    assert round_size(1) == 512 and round_size(513) == 1024
    assert round_size(1 << 20) == 2 << 20 and round_size(3 << 20) == 4 << 20


def test_freed_block_is_reused_on_its_stream_only() -> None:
    drv = FakeDriver(1 << 30)
    a = CachingAllocator(drv.ops())
    p, size = a.allocate(1000, stream=1)
    a.free(p, size, stream=1)
    assert a.stats.cached == size and a.stats.in_use == 0
    assert a.allocate(1000, stream=1)[0] == p  # same stream: reuse at once
    q, _ = a.allocate(1000, stream=2)
    assert q != p and a.stats.allocs == 2


def test_block_used_on_another_stream_waits_for_its_event() -> None:
    drv = FakeDriver(1 << 30)
    a = CachingAllocator(drv.ops())
    p, size = a.allocate(4096, stream=1)
    a.free(p, size, stream=1, other_streams=[2])
    assert a.allocate(4096, stream=1)[0] != p  # stream 2 may still read it
    drv.events = dict.fromkeys(drv.events, True)
    assert a.allocate(4096, stream=1)[0] == p


def test_out_of_memory_empties_the_cache_and_retries() -> None:
    drv = FakeDriver(4 << 20)
    a = CachingAllocator(drv.ops())
    p, size = a.allocate(3 << 20, stream=1)  # 4 MiB rounded
    a.free(p, size, stream=1)
    q, _ = a.allocate(1 << 20, stream=2)  # 2 MiB: the cache must be released first
    assert drv.synced == 1 and p not in drv.live and q in drv.live
    with pytest.raises(DeviceError):
        a.allocate(8 << 20, stream=1)
