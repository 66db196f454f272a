"""The specialization key: everything a cubin depends on, hashed into a cache digest.

Two launches share a cubin exactly when their keys are equal: same kernel source, Const values,
argument dtypes/ranks and the divisibility/alignment facts the lowering assumes (they become
`assume div_by`, which enables TMA), target arch, tileiras release and bytecode version.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

# Bump when the encoder or lowering changes what it writes for the same key.
CACHE_FORMAT = 2  # 2: fma contraction in the lowering


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
            "format": CACHE_FORMAT, "kernel": self.kernel, "source": self.source_hash,
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
