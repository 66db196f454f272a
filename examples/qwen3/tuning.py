"""Per-GPU tilings, read from tuning.json: the GEMV tiling of each matrix role, the KV-cache
tile of decode attention and how many parts it splits a head into, and the prefill's GEMM
tiles. The numbers are data; the rules that turn them into a tiling for a matrix's shape are
here. A GPU's entry is picked by a key found in the device's name; the interpreter, and a GPU
the file does not name, get the file's default entry (the H200's)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FILE = Path(__file__).resolve().parent / "tuning.json"


def pow2(n: int) -> int:
    return 1 << (n - 1).bit_length()


@dataclass(frozen=True)
class Gemv:
    """A GEMV tiling: BN outputs by BK inputs per tile, `splits` partial sums over K, the
    kernel's hints and its loads' latency hint (0: none)."""
    bn: int
    bk: int
    splits: int = 1
    hints: dict[str, int] = field(default_factory=dict)
    latency: int = 0


@dataclass(frozen=True)
class Tuning:
    gpu: str  # the entry's key in tuning.json
    sms: int
    cache_tile: int  # cache rows per tile, in the append and attention kernels
    gemv_roles: dict[str, dict[str, Any]]
    gemm: dict[str, int]
    embed_rows: dict[str, int]

    def gemv(self, n: int, k: int, role: str) -> Gemv:
        """The tiling of an (n, k) matrix in `role` (qkv, o, gate_up, down, head): tiles no
        wider than the matrix, the role's overrides for a wide K, and for a role that splits,
        partial sums over K until there are blocks_per_sm blocks per SM (at most `max` parts
        and half the K tiles)."""
        r = self.gemv_roles[role]
        for o in r.get("overrides", []):
            if k >= o["k_at_least"]:
                r = {**r, **{f: v for f, v in o.items() if f != "k_at_least"}}
        bn, bk = min(pow2(n), r["bn"]), min(pow2(k), r["bk"])
        s, split = 1, r.get("split")
        if split is not None:
            most = -(-k // bk) // 2
            if split.get("max") is not None:
                most = min(split["max"], most)
            while 2 * s <= most and -(-n // bn) * s < split["blocks_per_sm"] * self.sms:
                s *= 2
        return Gemv(bn, bk, s, dict(r.get("hints", {})), int(r.get("latency", 0)))

    def attention_splits(self, heads: int, tiles: int) -> int:
        """Parts of the cache per head in decode attention: a power of two (the merge loads
        them as one tile), at most one block per SM (more were slower on the H200: 32 heads
        at a 1k context took 9.3 us in 4 parts, 12.4 in 8, 13.6 in 16, 25.1 in 1) and cache
        tile."""
        s = 1
        while heads * 2 * s <= self.sms and 2 * s <= tiles:
            s *= 2
        return s

    def gemm_rows(self, rows: int) -> int:
        """Rows per tile of the prefill's GEMMs and attention (a multiple of 16 for the MMAs):
        the prompt's length as a power of two, between the entry's bounds."""
        return min(self.gemm["bm_max"], max(self.gemm["bm_min"], pow2(rows)))


def load(gpu: str | None = None, path: Path = FILE) -> Tuning:
    """The entry of `gpu` (a device name such as 'NVIDIA H200'; None or unknown: the
    default)."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    gpus: dict[str, Any] = raw["gpus"]
    key = next((k for k in gpus if gpu is not None and k in gpu), raw["default"])
    e = gpus[key]
    return Tuning(key, int(e["sms"]), int(e["cache_tile"]), e["gemv"], e["gemm"],
                  e["embed_rows"])


def device_name() -> str | None:
    """The current GPU's name, or None on the interpreter (or when it cannot be read)."""
    from cutile.runtime.context import backend

    be = backend()
    if be.name != "cuda":
        return None
    try:
        from cutile.runtime.cuda import driver

        return driver.device_name(be.device.index)
    except Exception:  # the tilings of the default entry still run correctly
        return None


DEFAULT = load()
