"""Compiled-kernel caches: an in-memory LRU and an on-disk store under `CUTILE_CACHE_DIR`.

An entry is a small bundle of named blobs (cubin, bytecode, ...) keyed by a specialization
digest. Disk entries are written atomically (temp file + os.replace) and carry a checksum, so
concurrent processes and interrupted writes never yield a torn cubin: a bad file is a miss.
The disk store keeps its total size under a limit by evicting the least recently used entries
(hits refresh the file's mtime).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path

from ..bytecode.wire import BytecodeFormatError, Reader, Writer
from .atomic import atomic_write

Bundle = dict[str, bytes]

_MAGIC = b"CTCACHE1"
DEFAULT_MAX_BYTES = 1 << 30
_SUFFIX = ".ctc"


def default_cache_dir(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    explicit = env.get("CUTILE_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    base = env.get("XDG_CACHE_HOME") or str(Path("~/.cache").expanduser())
    return Path(base) / "cutile"


def default_max_bytes(env: Mapping[str, str] | None = None) -> int:
    env = os.environ if env is None else env
    text = env.get("CUTILE_CACHE_MAX_BYTES", "")
    return int(text) if text.isdigit() else DEFAULT_MAX_BYTES


class MemoryCache:
    """Process-local LRU of bundles (thread-safe)."""

    def __init__(self, max_entries: int = 256) -> None:
        self.max_entries = max_entries
        self._items: OrderedDict[str, Bundle] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, digest: str) -> Bundle | None:
        with self._lock:
            item = self._items.get(digest)
            if item is not None:
                self._items.move_to_end(digest)
            return item

    def put(self, digest: str, bundle: Bundle) -> None:
        with self._lock:
            self._items[digest] = dict(bundle)
            self._items.move_to_end(digest)
            while len(self._items) > self.max_entries:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)


class DiskCache:
    def __init__(self, root: Path | None = None, max_bytes: int | None = None) -> None:
        self.root = root if root is not None else default_cache_dir()
        self.max_bytes = default_max_bytes() if max_bytes is None else max_bytes

    def path(self, digest: str) -> Path:
        if len(digest) < 8 or not all(c in "0123456789abcdef" for c in digest):
            raise ValueError(f"not a cache digest: {digest!r}")
        return self.root / "kernels" / digest[:2] / f"{digest}{_SUFFIX}"

    def get(self, digest: str) -> Bundle | None:
        path = self.path(digest)
        try:
            data = path.read_bytes()
        except OSError:
            return None
        bundle = unpack(data)
        if bundle is None:
            with contextlib.suppress(OSError):
                path.unlink()  # corrupt (e.g. a disk error): drop it, recompile
            return None
        with contextlib.suppress(OSError):
            os.utime(path)  # LRU: a hit makes the entry recent
        return bundle

    def put(self, digest: str, bundle: Mapping[str, bytes]) -> None:
        data = pack(bundle)
        if len(data) > self.max_bytes:
            return
        atomic_write(self.path(digest), data)
        self.evict()

    def entries(self) -> list[tuple[Path, int, float]]:
        out = []
        for p in (self.root / "kernels").glob(f"*/*{_SUFFIX}"):
            try:
                st = p.stat()
            except OSError:
                continue  # evicted by another process meanwhile
            out.append((p, st.st_size, st.st_mtime))
        return out

    def size(self) -> int:
        return sum(size for _, size, _ in self.entries())

    def evict(self) -> None:
        """Delete least recently used entries until the store fits its limit."""
        entries = self.entries()
        total = sum(size for _, size, _ in entries)
        if total <= self.max_bytes:
            return
        for path, size, _ in sorted(entries, key=lambda e: e[2]):
            with contextlib.suppress(OSError):
                path.unlink()
            total -= size
            if total <= self.max_bytes:
                break

    def clear(self) -> None:
        for path, _, _ in self.entries():
            with contextlib.suppress(OSError):
                path.unlink()


def pack(bundle: Mapping[str, bytes]) -> bytes:
    w = Writer()
    w.raw(_MAGIC)
    w.varint(len(bundle))
    for name in sorted(bundle):
        w.varint(len(name.encode()))
        w.raw(name.encode())
        w.varint(len(bundle[name]))
        w.raw(bundle[name])
    w.raw(hashlib.sha256(w.buf).digest())
    return bytes(w.buf)


def unpack(data: bytes) -> Bundle | None:
    """The bundle, or None when the bytes are not a complete, intact entry."""
    if len(data) < len(_MAGIC) + 32 or not data.startswith(_MAGIC):
        return None
    body, check = data[:-32], data[-32:]
    if hashlib.sha256(body).digest() != check:
        return None
    r = Reader(body, len(_MAGIC))
    try:
        out: Bundle = {}
        for _ in range(r.varint()):
            name = r.raw(r.varint()).decode()
            out[name] = r.raw(r.varint())
    except (BytecodeFormatError, UnicodeDecodeError):
        return None
    return out if r.at_end() else None
