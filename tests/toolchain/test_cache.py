"""The specialization key, the memory LRU, the disk cache (atomic, checksummed, size-limited,
safe across processes), and the caching compiler service."""

from __future__ import annotations

import multiprocessing
import os
from dataclasses import replace
from pathlib import Path

import pytest

from cutile.compiler.bytecode import Module, Version, encode, entry
from cutile.compiler.bytecode.types import Scalar, tile
from cutile.compiler.toolchain import (
    ArgFacts,
    DiskCache,
    KernelCompiler,
    MemoryCache,
    SpecializationKey,
    Toolchain,
    source_hash,
)
from cutile.compiler.toolchain.cache import default_cache_dir, pack, unpack

KEY = SpecializationKey("mod.add", source_hash("def add(): ..."),
                        (ArgFacts("tensor", "f32", 1, 16, (1,), (128,)),), (("B", "128"),))


def test_key_digest_tracks_every_field() -> None:
    assert KEY.digest() == replace(KEY).digest()
    for changed in (replace(KEY, arch="sm_100"), replace(KEY, consts=(("B", "256"),)),
                    replace(KEY, args=(ArgFacts("tensor", "f32", 1, 0),)),
                    replace(KEY, tileiras="13.4.93"), replace(KEY, bytecode="13.3"),
                    replace(KEY, source_hash=source_hash("other"))):
        assert changed.digest() != KEY.digest()


def test_key_digest_tracks_the_compiler_sources(monkeypatch: pytest.MonkeyPatch) -> None:
    """A compiler that lowers differently (any change to its source) never reuses old cubins."""
    from cutile.compiler.toolchain import key as keymod

    assert len(keymod.compiler_fingerprint()) == 16
    before = KEY.digest()
    monkeypatch.setattr(keymod, "compiler_fingerprint", lambda: "another-compiler")
    assert KEY.digest() != before


def test_compiler_fingerprint_memo_follows_file_stamps(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The fingerprint is memoized on disk by the sources' (path, size, mtime): a memo is read
    back instead of rehashing, and any edit to a source (new size or mtime) misses it."""
    from cutile.compiler.toolchain import key as keymod

    monkeypatch.setenv("CUTILE_CACHE_DIR", str(tmp_path / "cache"))
    keymod.compiler_fingerprint.cache_clear()
    try:
        real = keymod.compiler_fingerprint()
        memos = list((tmp_path / "cache" / "tools").glob("fingerprint-*.txt"))
        assert len(memos) == 1 and memos[0].read_text() == real
        memos[0].write_text("0123456789abcdef")
        keymod.compiler_fingerprint.cache_clear()
        assert keymod.compiler_fingerprint() == "0123456789abcdef"  # the memo, not a rehash
    finally:
        keymod.compiler_fingerprint.cache_clear()
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "a.py").write_text("x = 1\n")
    (src / "sub" / "b.py").write_text("y = 2\n")
    before = keymod._sources(src)
    assert [Path(p).name for p, _, _ in before] == ["a.py", "b.py"]
    (src / "sub" / "b.py").write_text("y = 22\n")
    assert keymod._sources(src) != before
    st = (src / "a.py").stat()
    os.utime(src / "a.py", ns=(st.st_atime_ns, st.st_mtime_ns + 1))
    assert keymod._sources(src)[0] != before[0]


def test_cache_dir_default_and_override(tmp_path: Path) -> None:
    assert default_cache_dir({"CUTILE_CACHE_DIR": str(tmp_path)}) == tmp_path
    assert default_cache_dir({"XDG_CACHE_HOME": "/c"}) == Path("/c/cutile")
    assert default_cache_dir({}).name == "cutile"


def test_memory_cache_is_lru() -> None:
    cache = MemoryCache(max_entries=2)
    cache.put("a", {"cubin": b"1"})
    cache.put("b", {"cubin": b"2"})
    assert cache.get("a") == {"cubin": b"1"}  # a is now recent
    cache.put("c", {"cubin": b"3"})
    assert cache.get("b") is None and cache.get("a") is not None and len(cache) == 2


def test_bundle_checksum_rejects_damage() -> None:
    data = pack({"cubin": b"\x7fELF...", "bytecode": b"\x7fTileIR\x00"})
    assert unpack(data) == {"cubin": b"\x7fELF...", "bytecode": b"\x7fTileIR\x00"}
    assert unpack(data[:-1]) is None
    assert unpack(data[:10] + b"X" + data[11:]) is None


def test_disk_cache_round_trip_and_corruption(tmp_path: Path) -> None:
    disk = DiskCache(tmp_path, max_bytes=1 << 20)
    digest = KEY.digest()
    assert disk.get(digest) is None
    disk.put(digest, {"cubin": b"abc"})
    assert disk.get(digest) == {"cubin": b"abc"}
    disk.path(digest).write_bytes(b"torn")
    assert disk.get(digest) is None and not disk.path(digest).exists()
    assert not list(tmp_path.rglob(".tmp-*"))  # no temp files left behind


def test_disk_cache_evicts_least_recently_used(tmp_path: Path) -> None:
    blob = b"x" * 1000
    disk = DiskCache(tmp_path, max_bytes=3500)
    digests = [f"{i:064x}" for i in range(3)]
    for i, d in enumerate(digests):
        disk.put(d, {"cubin": blob})
        os.utime(disk.path(d), (1000 + i, 1000 + i))  # deterministic ages
    assert disk.get(digests[0]) is not None  # a hit makes the oldest entry recent
    disk.put(f"{9:064x}", {"cubin": blob})
    assert disk.size() <= 3500
    assert disk.get(digests[1]) is None  # the least recently used went first
    assert disk.get(digests[0]) is not None and disk.get(f"{9:064x}") is not None


def _hammer(root: str, worker: int) -> int:
    """Write and read the same keys as the other processes; count torn reads."""
    disk = DiskCache(Path(root), max_bytes=1 << 30)
    bad = 0
    for i in range(40):
        digest = f"{i % 5:064x}"
        want = {"cubin": bytes([i % 5]) * 50_000}
        disk.put(digest, want)
        got = disk.get(f"{(i + worker) % 5:064x}")
        if got is not None and got != {"cubin": bytes([(i + worker) % 5]) * 50_000}:
            bad += 1
    return bad


def test_disk_cache_is_safe_under_concurrent_processes(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(4) as pool:
        bad = pool.starmap(_hammer, [(str(tmp_path), w) for w in range(4)])
    assert bad == [0, 0, 0, 0]
    assert len(DiskCache(tmp_path).entries()) == 5


def _tiny_module(version: Version) -> bytes:
    mod = Module()
    fn, b = entry(mod, "scale", [tile(Scalar.F32)])
    b.emit("mulf", [tile(Scalar.F32)], fn.params[0], fn.params[0])
    b.op("return", [])
    return encode(mod, version)


def test_compiler_service_memory_then_disk(toolchain: Toolchain, tmp_path: Path) -> None:
    builds: list[Version] = []

    def build(version: Version) -> bytes:
        builds.append(version)
        return _tiny_module(version)

    key = replace(KEY, kernel="mod.scale")
    first = KernelCompiler(toolchain, DiskCache(tmp_path)).compile(key, build, with_tileir=True)
    assert first.source == "tileiras" and first.cubin[:4] == b"\x7fELF"
    assert first.key.bytecode == "13.4" and first.key.tileiras
    assert first.tileir is not None and "entry @scale" in first.tileir
    service = KernelCompiler(toolchain, DiskCache(tmp_path))
    second = service.compile(key, build)
    assert second.source == "disk" and second.cubin == first.cubin
    assert service.compile(key, build).source == "memory"
    assert builds == [Version(13, 4)]
    old = service.compile(key, build, want=Version(13, 3))
    assert old.source == "tileiras" and old.bytecode[9] == 3 and builds[-1] == Version(13, 3)
