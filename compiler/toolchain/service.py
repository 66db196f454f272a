"""Bytecode -> cubin with caching: the one place the JIT and `kernel.compile` go through.

The bytecode version is negotiated with the tileiras found, and that version and the tileiras
release join the specialization key, so a toolchain upgrade never reuses stale cubins.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from ...diagnostics.diagnostic import Span
from ..bytecode.version import Version
from .cache import Bundle, DiskCache, MemoryCache
from .discover import Toolchain, find_toolchain
from .key import SpecializationKey
from .tileiras import compile_cubin, disassemble, negotiate, tool_info


@dataclass(frozen=True)
class Compiled:
    key: SpecializationKey
    bytecode: bytes
    cubin: bytes
    tileir: str | None     # tileirdisasm text, when asked for
    source: str            # "memory", "disk" or "tileiras"
    seconds: float         # time spent in this call
    bundle: Mapping[str, bytes] = field(default_factory=dict, compare=False)  # all entries

    @property
    def version(self) -> Version:
        return Version.parse(self.key.bytecode)


class KernelCompiler:
    def __init__(self, toolchain: Toolchain | None = None, disk: DiskCache | None = None,
                 memory: MemoryCache | None = None, use_disk: bool = True) -> None:
        self._toolchain = toolchain
        self.disk = (disk or DiskCache()) if use_disk else None
        self.memory = memory or MemoryCache()
        self._lock = threading.Lock()

    @property
    def toolchain(self) -> Toolchain:
        with self._lock:
            if self._toolchain is None:
                self._toolchain = find_toolchain()
            return self._toolchain

    def resolve_key(self, key: SpecializationKey, want: Version | None = None
                    ) -> SpecializationKey:
        """The key completed with the negotiated bytecode version and the tileiras release."""
        tc = self.toolchain
        version = negotiate(tc, want)
        return replace(key, tileiras=tool_info(tc).release, bytecode=str(version))

    def compile(self, key: SpecializationKey, build: Callable[[Version], bytes], *,
                want: Version | None = None, with_tileir: bool = False, remarks: str | None = None,
                span: Span | None = None, attach: Callable[[], Mapping[str, bytes]] | None = None
                ) -> Compiled:
        """Return the cached cubin for `key`, or build bytecode (at the negotiated version),
        assemble it, and cache the result in memory and on disk. `attach` (called after a
        build) adds entries the caller needs back on a hit (the entry ABI), so a hit never
        has to rebuild them."""
        start = time.perf_counter()
        key = self.resolve_key(key, want)
        digest = key.digest()
        bundle = self.memory.get(digest)
        source = "memory"
        if bundle is None and self.disk is not None:
            bundle = self.disk.get(digest)
            source = "disk"
        dirty = bundle is None
        if bundle is None:
            bundle = self._build(key, build, remarks, span)
            if attach is not None:
                bundle.update(attach())
            source = "tileiras"
        if with_tileir and "tileir" not in bundle and self.toolchain.disasm is not None:
            bundle = {**bundle, "tileir": disassemble(self.toolchain, bundle["bytecode"]).encode()}
            dirty = True
        if dirty and self.disk is not None:
            self.disk.put(digest, bundle)
        self.memory.put(digest, bundle)
        tileir = bundle.get("tileir")
        return Compiled(key, bundle["bytecode"], bundle["cubin"],
                        tileir.decode() if tileir is not None else None, source,
                        time.perf_counter() - start, bundle)

    def _build(self, key: SpecializationKey, build: Callable[[Version], bytes],
               remarks: str | None, span: Span | None) -> Bundle:
        bytecode = build(Version.parse(key.bytecode))
        keep = self.disk.root / "failed" if self.disk is not None else None
        out = compile_cubin(self.toolchain, bytecode, key.arch, kernel=key.kernel.split(".")[-1],
                            opt_level=key.opt_level, remarks=remarks, keep_dir=keep, span=span)
        bundle: Bundle = {"bytecode": bytecode, "cubin": out.cubin}
        if out.remarks:
            bundle["log"] = out.remarks.encode()
        return bundle


_DEFAULT: KernelCompiler | None = None


def default_compiler() -> KernelCompiler:
    """The process-wide compiler (toolchain found on first use, default cache locations)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = KernelCompiler()
    return _DEFAULT

