"""Everything of ours that is tuned, per GPU architecture, in one place: which cutile kernel runs
each case, its partition (tile shape, tile order, persistent block count) and its Const values.

The kernels themselves stay as written in `examples/` (and `benchmarks/kernels/`); only the launch
parameters live here. Several variants per case are timed and the best is the row's cutile number.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .plan import Case

# kernel name -> (file relative to the repository root, function name)
KERNELS: dict[str, tuple[str, str]] = {
    "add": ("examples/add.py", "add"),
    "add_f16": ("benchmarks/kernels/add.py", "add_f16"),
    "softmax": ("examples/softmax.py", "softmax"),
    "rms_norm": ("examples/rms_norm.py", "rms_norm"),
    "layer_norm": ("examples/layer_norm.py", "layer_norm"),
    "gemm": ("examples/gemm.py", "gemm"),
    "gemm_persistent": ("examples/gemm.py", "gemm_persistent"),
    "attention": ("examples/attention.py", "attention"),
    "gemv": ("benchmarks/kernels/gemv.py", "gemv"),
    "gemv_mma": ("benchmarks/kernels/gemv.py", "gemv_mma"),
}

SM_COUNT = {"sm_90": 132}


@dataclass(frozen=True)
class Variant:
    label: str
    kernel: str  # a key of KERNELS
    tile: tuple[int, ...]  # tile shape of the kernel's Mut output partition
    order: str = "row_major"  # row_major | col_major | grouped8
    blocks: int | None = None  # persistent launch: this many blocks
    consts: dict[str, Any] = field(default_factory=dict, hash=False)  # passed by keyword
    inferred: dict[str, Any] = field(default_factory=dict, hash=False)  # inferred by the launcher

    @property
    def all_consts(self) -> dict[str, Any]:
        return {**self.inferred, **self.consts}


def _rows_per_block(n: int, elems: int) -> int:
    return max(1, elems // n)


def cutile_variants(case: Case, arch: str = "sm_90") -> list[Variant]:
    """The cutile launch configurations timed for a case (best one reported)."""
    p = case.params
    sms = SM_COUNT.get(arch, 132)
    k = case.kernel
    if k in ("vector_add", "safety", "host_overhead"):
        name = "add_f16" if case.dtype == "f16" else "add"
        tiles = (1024,) if k != "vector_add" else (1024, 4096, 16384)
        return [Variant(f"tile={t}", name, (t,), inferred={"B": t}) for t in tiles]
    if k == "gemm":
        out = []
        for bm, bn, bk in ((128, 256, 64), (128, 128, 64)):
            out.append(Variant(f"grouped {bm}x{bn}x{bk}", "gemm", (bm, bn), "grouped8",
                               consts={"BK": bk}, inferred={"BM": bm, "BN": bn}))
        out.append(Variant(f"persistent {sms} blocks 128x256x64", "gemm_persistent", (128, 256),
                           "grouped8", blocks=sms, consts={"BK": 64},
                           inferred={"BM": 128, "BN": 256}))
        return out
    if k in ("softmax", "rmsnorm", "layernorm"):
        name = {"softmax": "softmax", "rmsnorm": "rms_norm", "layernorm": "layer_norm"}[k]
        n = p["n"]
        bms = sorted({_rows_per_block(n, 8192), _rows_per_block(n, 16384)})
        return [Variant(f"{bm} rows/block", name, (bm, n), inferred={"BM": bm, "N": n})
                for bm in bms]
    if k == "attention":
        d = p["d"]
        return [Variant(f"BM={bm} BN={bn}", "attention", (1, bm, d), consts={
            "BN": bn, "CAUSAL": bool(p["causal"])}, inferred={"BM": bm, "D": d})
            for bm, bn in ((128, 64), (64, 64))]
    if k == "gemv":
        m = p["m"]
        if m == 1:
            return [Variant(f"BN={bn} BK={bk}", "gemv", (1, bn), consts={"BK": bk},
                            inferred={"BN": bn}) for bn, bk in ((32, 256), (16, 512))]
        return [Variant(f"mma BN={bn} BK={bk}", "gemv_mma", (m, bn), consts={"BK": bk},
                        inferred={"M": m, "BN": bn}) for bn, bk in ((64, 128), (32, 256))]
    return []
