"""The specialization key: everything a cubin depends on, hashed into a cache digest.

Two launches share a cubin exactly when their keys are equal: same kernel source, Const values,
argument dtypes/ranks and the divisibility/alignment facts the lowering assumes (they become
`assume div_by`, which enables TMA), target arch, tileiras release and bytecode version.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from .atomic import atomic_write
from .cache import default_cache_dir

# Bump when the layout of cache entries changes. Changes to what the compiler writes need no bump:
# every key carries `compiler_fingerprint()` (a hand-kept counter was once forgotten).
# 3: keys are made before lowering (from the source and the whole Specialization) and entries
# carry the entry ABI ("slots"), so a hit neither specializes nor lowers.
CACHE_FORMAT = 3


@functools.cache
def compiler_fingerprint() -> str:
    """A hash of the source files of the compiler, the module reader it parses with and the
    diagnostics registry (which codes are errors decides whether a specialization compiles):
    a cutile that reads, checks, lowers or encodes differently never reads another's cubins,
    which a key made before specializing relies on. Memoized
    per process, and on disk by each file's (path, size, mtime) as Python's own bytecode cache
    trusts them, so a process whose kernels are cached reads no compiler source."""
    root = Path(__file__).resolve().parents[1]
    files = [f for folder in (root, root.parent / "reader", root.parent / "diagnostics")
             for f in _sources(folder)]
    stamp = hashlib.sha256(repr(files).encode()).hexdigest()
    memo = default_cache_dir() / "tools" / f"fingerprint-{stamp}.txt"
    try:
        known = memo.read_text()
    except OSError:
        known = ""
    if len(known) == 16:
        return known
    h = hashlib.sha256()
    for path, _, _ in files:
        name = Path(path).relative_to(root.parent).as_posix()
        h.update(name.encode() + b"\0" + Path(path).read_bytes())
    found = h.hexdigest()[:16]
    with contextlib.suppress(OSError):  # a read-only cache directory only costs the rehash
        atomic_write(memo, found.encode())
    return found


def _sources(folder: Path) -> list[tuple[str, int, int]]:
    """(path, size, mtime_ns) of every .py file under `folder`, sorted."""
    out: list[tuple[str, int, int]] = []
    with os.scandir(folder) as entries:
        for e in entries:
            if e.is_dir() and e.name != "__pycache__":
                out += _sources(Path(e.path))
            elif e.name.endswith(".py") and e.is_file():
                st = e.stat()
                out.append((e.path, st.st_size, st.st_mtime_ns))
    return sorted(out)


@dataclass(frozen=True)
class ArgFacts:
    """What the compiled code assumes about one argument."""

    kind: str                          # "tensor", "mut", "scalar"
    dtype: str
    rank: int = 0
    base_align: int = 0                # known divisor of the base address in bytes (0: none)
    stride_div: tuple[int, ...] = ()   # known divisor (in elements) of each stride; 0: none
    shape_div: tuple[int, ...] = ()    # known divisor of each extent; 0: none
    static_shape: tuple[int | None, ...] = ()  # extents baked in (None: dynamic)
    static_strides: tuple[int | None, ...] = ()  # e.g. a unit inner stride


@dataclass(frozen=True)
class SpecializationKey:
    kernel: str                                   # qualified name
    source_hash: str                              # hash of the kernel and helper sources
    args: tuple[ArgFacts, ...]
    consts: tuple[tuple[str, str], ...] = ()      # (name, repr of the value), sorted
    arch: str = "sm_90"
    tileiras: str = ""                            # tileiras release, e.g. "13.4.92"
    bytecode: str = ""                            # bytecode version, e.g. "13.4"
    opt_level: int = 3
    options: tuple[tuple[str, str], ...] = field(default=())  # hints, lineinfo, ...

    def canonical(self) -> str:
        body = {
            "format": CACHE_FORMAT, "compiler": compiler_fingerprint(), "kernel": self.kernel,
            "source": self.source_hash,
            "args": [vars(a) for a in self.args], "consts": sorted(self.consts),
            "arch": self.arch, "tileiras": self.tileiras, "bytecode": self.bytecode,
            "opt": self.opt_level, "options": sorted(self.options),
        }
        return json.dumps(body, sort_keys=True, separators=(",", ":"), default=list)

    def digest(self) -> str:
        return hashlib.sha256(self.canonical().encode()).hexdigest()


def source_hash(*sources: str) -> str:
    h = hashlib.sha256()
    for s in sources:
        h.update(s.encode())
        h.update(b"\0")
    return h.hexdigest()
