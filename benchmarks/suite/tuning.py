"""Everything of ours that is tuned, per GPU architecture, in one place: which cutile kernel runs
each case, its partition (tile shape, tile order, persistent block count) and its Const values.

The kernels themselves stay as written in `examples/` (and `benchmarks/kernels/`); only the launch
parameters live here. Several variants per case are timed and the best is the row's cutile number.
Code-generation hints (`occupancy`, `num_ctas`, `opt_level`, `worker_warps`) go per variant
through `kernel.with_hints(...)`, over the kernel's decorator.

`cutile_variants` is the default list (the current best guesses, 2-3 per case);
`sweep_variants` adds more candidates per case (at most 10), timed as well under
`python -m benchmarks.suite --sweep` (which calls `set_sweep(True)`). The sweep tries
`worker_warps=8` (Tile IR's `num_worker_warps_per_cta`: two math warpgroups per CTA, 384 threads
with tileiras' producer warps, so fewer values and registers per thread) on every row it tunes.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
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
    "attention_lazy": ("benchmarks/kernels/attention.py", "attention_lazy"),
    "gemv": ("benchmarks/kernels/gemv.py", "gemv"),
    "gemv_mma": ("benchmarks/kernels/gemv.py", "gemv_mma"),
    "gemv_pipelined": ("benchmarks/kernels/gemv.py", "gemv_pipelined"),
    "fp8_gemm": ("examples/fp8_gemm.py", "fp8_gemm"),
    "fp8_gemm_blockwise": ("examples/fp8_gemm.py", "fp8_gemm_blockwise"),
    # row 12 launches the three backward kernels as one chain; a variant names the dK/dV kernel
    # (the heaviest) and its (BM, BN) and hints apply to the dQ kernel too
    "attention_bwd_dkdv": ("examples/attention_backward.py", "attention_bwd_dkdv"),
    "attention_bwd_dkdv_t": ("benchmarks/kernels/attention_bwd.py", "attention_bwd_dkdv_t"),
    # the fused form: dK, dV and float32 dQ (atomic adds) in one kernel, between a Delta + zero
    # dQ kernel and a dQ cast (benchmarks/kernels/attention_bwd.py)
    "attention_bwd_fused": ("benchmarks/kernels/attention_bwd.py", "attention_bwd_fused"),
    "attention_bwd_dq": ("examples/attention_backward.py", "attention_bwd_dq"),
    "attention_bwd_preprocess": ("examples/attention_backward.py", "attention_bwd_preprocess"),
    "attention_lse": ("examples/attention_backward.py", "attention_lse"),
    "cross_entropy": ("examples/cross_entropy.py", "cross_entropy"),
    "cross_entropy_once": ("benchmarks/kernels/cross_entropy.py", "cross_entropy_once"),
    "cross_entropy_walk": ("benchmarks/kernels/cross_entropy.py", "cross_entropy_walk"),
    "softmax_rows": ("examples/softmax_rows.py", "softmax_rows"),
    "softmax_row_once": ("benchmarks/kernels/softmax_rows.py", "softmax_row_once"),
    "splitk_gemm": ("examples/splitk_gemm.py", "splitk_gemm"),
}

# kernels a row launches as part of a chain of launches: `ct.autotune` tunes one kernel, so
# these get no autotune variant; nor does cross-entropy (two Mut outputs, so no `tile` in a
# Config, and it overwrites its logits: timing configs on them would change the input)
# Split-K accumulates into C: each config the autotuner timed would add into the result, and a
# launch with no Mut has no partition for a Config's `tile`
NOT_AUTOTUNED = frozenset({"attention_bwd_dkdv", "attention_bwd_dkdv_t", "attention_bwd_fused",
                           "cross_entropy", "cross_entropy_walk", "splitk_gemm"})
# kernels with no Mut output (only an Acc): the launch takes `grid=`, the output no partition
ACC_KERNELS = frozenset({"splitk_gemm"})

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
    hints: dict[str, int] = field(default_factory=dict, hash=False)  # kernel.with_hints(**hints)
    # `ct.autotune` over these variants (same kernel): the suite times its choice as one more
    # variant, launched with no Const values of its own (each config brings them)
    tuned: tuple[Variant, ...] = field(default=(), hash=False)

    @property
    def all_consts(self) -> dict[str, Any]:
        return {**self.inferred, **self.consts}

    def config(self, ct: Any) -> Any:
        """This variant as a `ct.Config` (hints, explicit Const values, tile, order, blocks)."""
        return ct.Config(tile=self.tile, order=self._order(ct), blocks=self.blocks,
                         **self.consts, **self.hints)

    def _order(self, ct: Any) -> Any:
        if self.order == "grouped8":
            return ct.grouped(8)
        return ct.col_major if self.order == "col_major" else ct.row_major

    def partition(self, ct: Any, t: Any) -> Any:
        """`t.partition(...)` with this variant's tile, order and persistent block count (`ct`:
        the cutile module; the suite and the dry run both partition through here)."""
        kw: dict[str, Any] = {"order": self._order(ct)}
        if self.blocks is not None:
            kw["blocks"] = self.blocks
        return t.partition(self.tile, **kw)


_SWEEP = False


def set_sweep(on: bool) -> None:
    """`--sweep`: `cutile_variants` also returns `sweep_variants` (each label once)."""
    global _SWEEP
    _SWEEP = on


def _occupancy(occ: int | None) -> dict[str, int]:
    return {} if occ is None else {"occupancy": occ}


def _label(base: str, hints: dict[str, int]) -> str:
    return base + "".join(f" {k}={v}" for k, v in hints.items())


def _warps(v: Variant, warps: int, occ: int | None = None) -> Variant:
    """`v` with the `worker_warps` hint (and another occupancy, if given)."""
    hints = {**v.hints, "worker_warps": warps, **({} if occ is None else {"occupancy": occ})}
    base = v.label.split(" occupancy=")[0].split(" num_ctas=")[0].split(" worker_warps=")[0]
    return replace(v, label=_label(base, hints), hints=hints)


def _rows_per_block(n: int, elems: int) -> int:
    return max(1, elems // n)


def _row_occupancy(elems: int, cap: int = 4) -> int:
    """Blocks per SM for a (BM, N) f32 row tile of `elems` values on 256 threads: the most that
    fit 64 K registers without spilling (tileiras, sm_90: 16 values per thread need ~64
    registers, 64 values ~128), at most `cap`."""
    return max(1, min(cap, 32768 // elems))


def _row(name: str, n: int, bm: int, occ: int | None = None, ctas: int | None = None
         ) -> Variant:
    hints = _occupancy(occ)
    if ctas is not None and ctas > 1:
        hints["num_ctas"] = ctas
    return Variant(_label(f"{bm} rows/block", hints), name, (bm, n), hints=hints,
                   inferred={"BM": bm, "N": n})


def _split_row(name: str, n: int, per_cta: int, ctas: int, occ: int) -> Variant:
    """A (BM, N) row tile shared by a cluster of `ctas` CTAs (the `num_ctas` hint: tileiras
    splits the tile and reduces across the cluster), about `per_cta` values per CTA. Each CTA has
    one consumer warpgroup (128 threads), so this sets the values per thread: a 16384-wide
    softmax row on one CTA is 128 per thread at 2 CTAs/SM; on 4 CTAs it is 32 at 4 per SM."""
    bm = max(1, per_cta * ctas // n)
    return _row(name, n, bm, min(occ, _row_occupancy(bm * n // ctas, 8)), ctas)


def _row_occupancy8(elems: int) -> int:
    """Blocks per SM for a row tile of `elems` f32 values with 8 worker warps (384 threads, 256
    doing math): about elems / 256 + 16 registers per thread without spills (tileiras, sm_90:
    16384 values fit 80 registers at 2 blocks, spill at 3), at most 4."""
    return max(1, min(4, 65536 // 384 // (elems // 256 + 16)))


def _row_warps(name: str, n: int) -> list[Variant]:
    """`worker_warps=8` row variants: 2-16 K values per block, at the most blocks per SM that
    fit and one fewer."""
    out = []
    for elems in (16384, 8192, 4096):
        bm = _rows_per_block(n, elems)
        occ = _row_occupancy8(bm * n)
        out += [_warps(_row(name, n, bm), 8, o) for o in (occ, occ - 1) if o >= 1]
    return _unique(out)


def _gemm(bm: int, bn: int, bk: int, hints: dict[str, int] | None = None) -> Variant:
    h = hints or {}
    return Variant(_label(f"grouped {bm}x{bn}x{bk}", h), "gemm", (bm, bn), "grouped8",
                   consts={"BK": bk}, inferred={"BM": bm, "BN": bn}, hints=h)


def _attention(d: int, causal: bool, bm: int, bn: int, occ: int | None = None,
               kernel: str = "attention") -> Variant:
    hints = _occupancy(occ)
    name = kernel.removeprefix("attention").lstrip("_")
    return Variant(_label(f"{name + ' ' if name else ''}BM={bm} BN={bn}", hints), kernel,
                   (1, bm, d),
                   consts={"BN": bn, "CAUSAL": causal}, inferred={"BM": bm, "D": d}, hints=hints)


def _attention_bwd(d: int, causal: bool, bm: int, bn: int,
                   hints: dict[str, int] | None = None, kernel: str = "attention_bwd_dkdv",
                   by_element: bool = False) -> Variant:
    """Row 12: BM query rows and BN key rows per block in both the dK/dV kernel (partitioned
    by key block: its Mut tile is (1, BN, D)) and the dQ kernel (by query block). The fused
    kernel adds dQ a tile at a time (TMA reductions) or, `by_element`, an element at a time."""
    h = hints or {}
    name = {"attention_bwd_dkdv_t": "S^T ", "attention_bwd_fused": "fused "}.get(kernel, "")
    extra = {"DQ_BY_ELEMENT": True} if by_element else {}
    return Variant(_label(f"{name}{'element-adds ' if by_element else ''}BM={bm} BN={bn}", h),
                   kernel, (1, bn, d), consts={"BM": bm, "CAUSAL": causal, **extra},
                   inferred={"BN": bn, "D": d}, hints=h)


def _gemv(bn: int, bk: int, occ: int | None = None) -> Variant:
    hints = _occupancy(occ)
    return Variant(_label(f"BN={bn} BK={bk}", hints), "gemv", (1, bn), consts={"BK": bk},
                   inferred={"BN": bn}, hints=hints)


def _gemv_pipelined(bn: int, bk: int, latency: int, occ: int) -> Variant:
    hints = _occupancy(occ)
    return Variant(_label(f"BN={bn} BK={bk} latency={latency}", hints), "gemv_pipelined",
                   (1, bn), consts={"BK": bk, "LAT": latency}, inferred={"BN": bn}, hints=hints)


def _gemv_mma(m: int, bn: int, bk: int, occ: int | None = None) -> Variant:
    hints = _occupancy(occ)
    return Variant(_label(f"mma BN={bn} BK={bk}", hints), "gemv_mma", (m, bn),
                   consts={"BK": bk}, inferred={"M": m, "BN": bn}, hints=hints)


def _fp8(blockwise: bool, bm: int, bn: int, bk: int, hints: dict[str, int] | None = None,
         fast: bool = False) -> Variant:
    """Row 11: the 1x128-block kernel has BK = 128 fixed (one scale per K block); `fast` is
    the per-tensor kernel with the tensor cores' own accumulation (FAST_ACC)."""
    h = hints or {}
    if blockwise:
        return Variant(_label(f"blocks grouped {bm}x{bn}x128", h), "fp8_gemm_blockwise",
                       (bm, bn), "grouped8", inferred={"BM": bm, "BN": bn}, hints=h)
    name = f"grouped {bm}x{bn}x{bk}" + (" fast accumulation" if fast else "")
    return Variant(_label(name, h), "fp8_gemm", (bm, bn), "grouped8",
                   consts={"BK": bk, "FAST_ACC": fast}, inferred={"BM": bm, "BN": bn}, hints=h)


def _row_walk(kernel: str, n: int, bn: int, hints: dict[str, int] | None = None) -> Variant:
    """Rows 13-14: one block per row (slab (1, n), any n), walking it in BN-wide tiles."""
    h = hints or {}
    return Variant(_label(f"BN={bn}", h), kernel, (1, n), consts={"BN": bn}, hints=h)


def _row_walk_variants(kernel: str, n: int, sweep: bool) -> list[Variant]:
    """A block keeps 2-3 (1, BN) f32 tiles of running state (max, sum, the target's logit) plus
    the tile it loads: about 3-4 * BN / 256 + 16 registers per thread on 256 threads, so BN=4096
    fits 2 blocks per SM and BN<=2048 fits 4 (several rows in flight per SM hide the latency of
    each row's serial walk). sm_90 compiles: 64 registers at occupancy 4 and 128 at 2, no spills;
    without a hint tileiras takes 255 (one block per SM); cross-entropy at BN=1024 with
    occupancy 8 (32 registers) spills 30 instructions, at 6 (40) none. Not yet timed on the
    H200."""
    occ = {"occupancy": 4}
    out = [_row_walk(kernel, n, 1024, occ), _row_walk(kernel, n, 2048, occ),
           _row_walk(kernel, n, 4096, {"occupancy": 2})]
    if sweep:
        # (BN=1024 without a hint, the slowest on every shape of the H100 run, left out)
        out += [_row_walk(kernel, n, 1024, {"occupancy": 6}),
                _row_walk(kernel, n, 8192, {"worker_warps": 8, "occupancy": 1})]
        out += (_cross_entropy_walks(n) if kernel == "cross_entropy" else [
            _row_walk(kernel, n, 2048), _row_walk(kernel, n, 4096),
            _row_walk(kernel, n, 2048, {"worker_warps": 8, "occupancy": 2}),
            _row_walk(kernel, n, 4096, {"worker_warps": 8, "occupancy": 1})])
    return out + (_row_once(kernel, n) if n <= 32768 else [])


def _cross_entropy_walks(n: int) -> list[Variant]:
    """Row 13's walk with the target's logit read as one element (a mask tile and a select
    per element less in the first walk). They take the places of the example's forms that were
    the slowest on every shape of the H100 run of 2026-12-05: BN=2048 and 4096 without a hint
    (0.83-1.27 TB/s) and with 8 worker warps (1.20-1.51), against 1.79-1.85 at BN=2048 with
    occupancy 4."""
    return [Variant(_label(f"walk BN={bn}", h), "cross_entropy_walk", (1, n), consts={"BN": bn},
                    hints=h)
            for bn, h in ((1024, {"occupancy": 6}), (2048, {"occupancy": 4}),
                          (4096, {"occupancy": 2}), (8192, {"worker_warps": 8, "occupancy": 1}))]


def _row_once(kernel: str, n: int) -> list[Variant]:
    """Rows 13-14 at rows that fit one tile: the one-pass kernel (one read of the row instead
    of two), with the most math threads a CTA can have. sm_90, softmax at BN = 32768: 8 worker
    warps give 168 registers, 384 threads, 225 KiB of shared memory and no spills; 4 spill 374
    instructions."""
    bn = 1 << (n - 1).bit_length()
    h = {"worker_warps": 8, "occupancy": 1}
    once = {"softmax_rows": "softmax_row_once", "cross_entropy": "cross_entropy_once"}[kernel]
    return [Variant(_label(f"once BN={bn}", h), once, (1, n), consts={"BN": bn}, hints=h)]


def _splitk(m: int, n: int, k: int, bm: int, bn: int, bk: int, waves: int, sms: int
            ) -> Variant:
    """Row 15: (BM, BN) output tiles, each summed by SPLIT blocks (grid axis 2), SPLIT chosen
    so that the grid is about `waves` waves of one block per SM (every variant here takes
    177-217 KiB of shared memory, so one block per SM), at most one split per K tile."""
    tiles = -(-m // bm) * -(-n // bn)
    split = max(1, min(-(-k // bk), round(waves * sms / tiles)))
    return Variant(f"{bm}x{bn}x{bk} split={split}", "splitk_gemm", (bm, bn),
                   consts={"BM": bm, "BN": bn, "BK": bk, "SPLIT": split})


def splitk_grid(case: Case, v: Variant) -> tuple[int, int, int]:
    """The launch grid of a row-15 variant: one block per (output tile, split)."""
    c, p = v.consts, case.params
    return (-(-p["m"] // c["BM"]), -(-p["n"] // c["BN"]), c["SPLIT"])


def _splitk_variants(case: Case, sms: int, sweep: bool) -> list[Variant]:
    """sm_90 compiles (1024x1024x16384): every variant here takes 255 registers at 256 threads
    without spills since `acc.add` of a whole tile is one TMA reduction (it spilled 182
    instructions at 128x128 when the epilogue built a pointer per element)."""
    m, n, k = (case.params[a] for a in ("m", "n", "k"))
    out = [_splitk(m, n, k, 128, 64, 64, 1, sms), _splitk(m, n, k, 128, 64, 64, 2, sms),
           _splitk(m, n, k, 128, 64, 128, 1, sms), _splitk(m, n, k, 64, 128, 128, 2, sms),
           _splitk(m, n, k, 128, 128, 64, 1, sms), _splitk(m, n, k, 128, 128, 64, 2, sms)]
    if sweep:
        out += [_splitk(m, n, k, 128, 64, 64, 4, sms), _splitk(m, n, k, 64, 64, 64, 2, sms),
                _splitk(m, n, k, 128, 64, 128, 2, sms), _splitk(m, n, k, 128, 128, 128, 1, sms),
                _splitk(m, n, k, 64, 128, 128, 1, sms)]
    return _unique(out)


_ROW_WALK_KERNELS = {"cross_entropy": "cross_entropy", "softmax_rows": "softmax_rows"}

_ROW_KERNELS = {"softmax": "softmax", "rmsnorm": "rms_norm", "layernorm": "layer_norm"}


def cutile_variants(case: Case, arch: str = "sm_90") -> list[Variant]:
    """The cutile launch configurations timed for a case (best one reported); with `--sweep`
    also `sweep_variants`."""
    out = default_variants(case, arch)
    if _SWEEP:
        seen = {v.label for v in out}
        out += [v for v in sweep_variants(case, arch) if v.label not in seen]
    return out + autotuned(out)


def autotuned(variants: list[Variant]) -> list[Variant]:
    """One `ct.autotune` variant per kernel with two or more variants: the tuning table as the
    autotuner's config list, so the suite shows what the autotuner picks next to every config
    timed by hand."""
    by_kernel: dict[str, list[Variant]] = {}
    for v in variants:
        by_kernel.setdefault(v.kernel, []).append(v)
    return [Variant(f"autotune {kernel} ({len(vs)} configs)", kernel, vs[0].tile, vs[0].order,
                    vs[0].blocks, tuned=tuple(vs))
            for kernel, vs in by_kernel.items() if len(vs) >= 2 and kernel not in NOT_AUTOTUNED]


def default_variants(case: Case, arch: str = "sm_90") -> list[Variant]:
    """The current best guesses (2-3 per case): what the default suite times."""
    p = case.params
    sms = SM_COUNT.get(arch, 132)
    k = case.kernel
    if k in _ROW_WALK_KERNELS:
        return _row_walk_variants(_ROW_WALK_KERNELS[k], p["n"], sweep=False)
    if k == "splitk_gemm":
        return _splitk_variants(case, sms, sweep=False)
    if k in ("vector_add", "safety", "host_overhead"):
        name = "add_f16" if case.dtype == "f16" else "add"
        # H200: 16384 was the slowest at every size (1.00 TB/s at 2^20 f32); 1024 the fastest
        tiles = (1024,) if k != "vector_add" else (1024, 2048, 4096)
        return [Variant(f"tile={t}", name, (t,), inferred={"B": t}) for t in tiles]
    if k == "gemm":
        # 128x256 spills without a 2-CTA cluster (STACK 1808 bytes); with num_ctas=2 it does not.
        # H200 sweep (4096^3 / 8192^3): persistent 128x128x64 747/754 TFLOP/s, grouped 128x128x64
        # 709/741, 256x128 num_ctas=2 664/696, 128x256 num_ctas=2 654/690, 128x128x128 646/680
        return [_gemm(128, 128, 64), _gemm(128, 256, 64, {"num_ctas": 2}),
                Variant(f"persistent {sms} blocks 128x128x64", "gemm_persistent", (128, 128),
                        "grouped8", blocks=sms, consts={"BK": 64},
                        inferred={"BM": 128, "BN": 128})]
    if k in _ROW_KERNELS:
        # whole rows in registers; the occupancy hint caps registers so that 2-4 blocks share an
        # SM (without it tileiras takes 255 registers: one block per SM, loads not overlapped)
        n = p["n"]
        out: list[Variant] = []
        for elems in (8192, 16384):
            bm = _rows_per_block(n, elems)
            v = _row(_ROW_KERNELS[k], n, bm, _row_occupancy(bm * n))
            if v.label not in {o.label for o in out}:
                out.append(v)
        # H200, 2026-12-02 (--quick --sweep): softmax 16384 1 row occ 2 3.16 TB/s (no hint 1.09;
        # rows split over 2-8 CTA clusters 0.57-2.17); rmsnorm/layernorm 4096 2 rows occ 4
        # 4.11/3.78 TB/s (4 rows occ 2 3.82/3.41, no hint 2.51/2.14)
        return out
    if k == "attention":
        d, causal = p["d"], bool(p["causal"])
        # occupancy=2 is in the example's decorator; H200 sweep: 128x64 482/459 TFLOP/s
        # (non-causal/causal), 128x32 395/354, 64x64 301/277, 128x128 241/209
        # full run: lazy (benchmarks/kernels/attention.py) 465-480 / causal 447, example 442-479 /
        # causal 460
        return [_attention(d, causal, 128, 64), _attention(d, causal, 128, 32),
                _attention(d, causal, 128, 64, kernel="attention_lazy")]
    if k == "attention_bwd":
        # sm_90 compiles (D = 128, causal; kernel_resources.py): at 64x64 with occupancy=2
        # both dK/dV forms and the dQ kernel fit 128 registers at 256 threads without spills
        # (the forward's winning lever: two CTAs per SM). Without a hint the example's dK/dV
        # kernel gets 384 threads and 168 registers from tileiras (worker_warps=4 too), no
        # spills at 64x64 and 128x64, nor at 64x128 with worker_warps=8; its dQ kernel spills 64
        # instructions at 128x64 (256 threads, 255 registers). The S^T form
        # (benchmarks/kernels/attention_bwd.py) does not spill with worker_warps=8 at 64x64,
        # 128x64 and 64x128.
        d, causal = p["d"], bool(p["causal"])
        w8, occ2 = {"worker_warps": 8}, {"occupancy": 2}
        return [_attention_bwd(d, causal, 64, 64, occ2), _attention_bwd(d, causal, 128, 64),
                _attention_bwd(d, causal, 64, 128, w8),
                _attention_bwd(d, causal, 64, 64, occ2, "attention_bwd_dkdv_t")]
    if k == "gemv":
        m = p["m"]
        if m == 1:
            # H200 sweep (8192^2 / 28672x4096): 32x256 occ 4 3.23/3.99 TB/s, 16x512 occ 4
            # 3.78/3.87, 32x256 occ 2 3.79/3.39, no hint 3.20/3.49. Since fma contraction occ 4
            # spills 44 instructions (2.96/3.02 TB/s in the full run); occ 3 (80 regs) does not.
            # 32x256 at occ 3 gets one TMA stage (18 KiB); 32x128 with latency 6 gets about
            # nine (73 KiB, kernel_resources.py): more bytes in flight per SM (not yet timed)
            return [_gemv(32, 256, 3), _gemv(16, 512, 3), _gemv(32, 256, 2),
                    _gemv_pipelined(32, 128, 6, 3)]
        return [_gemv_mma(m, 64, 128), _gemv_mma(m, 32, 256), _gemv_mma(m, 64, 128, 2)]
    if k == "fp8_gemm":
        # sm_90 compiles (kernel_resources): with 4 worker warps the 128x128 f32 accumulator
        # plus the transposed B tile spill 55-62 instructions; with 8 (two consumer warpgroups,
        # 168 registers) nothing spills. 64x128 on 4 warps does not spill either.
        # Per tensor, FAST_ACC chains the accumulator through the K loop (one group of
        # products left in flight, no f32 adds per step in the sm_90 SASS); the peer then runs
        # with use_fast_accum=True too.
        block = case.params["scaling"] != "per-tensor"
        w8 = {"worker_warps": 8}
        out = [_fp8(block, 128, 128, 128, w8), _fp8(block, 128, 128, 128, {**w8, "num_ctas": 2}),
               _fp8(block, 64, 128, 128)]
        return out if block else [*out, _fp8(False, 128, 128, 128, w8, fast=True)]
    return []


def sweep_variants(case: Case, arch: str = "sm_90") -> list[Variant]:
    """More candidates per case (at most 10), for `--sweep`."""
    p = case.params
    k = case.kernel
    if k in _ROW_WALK_KERNELS:
        return _row_walk_variants(_ROW_WALK_KERNELS[k], p["n"], sweep=True)
    if k == "splitk_gemm":
        return _splitk_variants(case, SM_COUNT.get(arch, 132), sweep=True)
    if k == "gemm":
        # 8 worker warps: two consumer warpgroups split a 128x256 or 256x128 tile (64 or 128
        # rows each), the way cuBLAS's Hopper kernels do, so no cluster is needed against spills
        return [_gemm(128, 128, 64), _gemm(128, 128, 64, {"num_ctas": 2}),
                _gemm(128, 256, 64, {"num_ctas": 2}), _gemm(256, 128, 64, {"num_ctas": 2}),
                _gemm(128, 128, 128), _gemm(128, 256, 64),
                _gemm(128, 128, 64, {"worker_warps": 8}),
                _gemm(128, 256, 64, {"worker_warps": 8}),
                _gemm(256, 128, 64, {"worker_warps": 8}),
                _gemm(128, 256, 64, {"worker_warps": 8, "num_ctas": 2})]
    if k == "softmax":
        n = p["n"]
        out = []
        for elems in (16384, 8192, 4096):
            bm = _rows_per_block(n, elems)
            out.append(_row("softmax", n, bm, _row_occupancy(bm * n)))
        out += _row_warps("softmax", n)
        out += [_split_row("softmax", n, 8192, 2, 4), _split_row("softmax", n, 4096, 4, 4)]
        return _unique(out)[:10]
    if k in _ROW_KERNELS:
        n, name = p["n"], _ROW_KERNELS[k]
        out = [_split_row(name, n, 8192, 2, 4)]  # 2 rows per CTA as a 2-CTA cluster
        for elems, occs in ((4096, (6, 4)), (8192, (4, 2)), (16384, (2,))):
            bm = _rows_per_block(n, elems)
            for occ in occs:
                out.append(_row(name, n, bm, min(occ, _row_occupancy(bm * n, 8))))
        return _unique(out[:6] + _row_warps(name, n))[:10]
    if k == "attention":
        d, causal = p["d"], bool(p["causal"])
        # the example's decorator says occupancy=2 (128 registers at 256 threads); with 8 worker
        # warps (384 threads) one CTA per SM already has 170 registers per thread
        return [_attention(d, causal, 128, 64), _attention(d, causal, 64, 64),
                _attention(d, causal, 128, 128), _attention(d, causal, 128, 32),
                _warps(_attention(d, causal, 128, 64), 8, 1),
                _warps(_attention(d, causal, 128, 128), 8, 1),
                _warps(_attention(d, causal, 256, 64), 8, 1),
                _warps(_attention(d, causal, 128, 32), 8, 1),
                _warps(_attention(d, causal, 128, 64), 4)]
    if k == "attention_bwd":
        # five more (each compiles a dK/dV kernel and at most one dQ kernel: the row's whole
        # --sweep fits ~3 min); not timed: 64x128 without the hint (358 spill instructions in
        # the example's dK/dV, 692 in the S^T form, 840 fused), 128x128 (137-1,109), the fused
        # 64x64 at occupancy 2 (8). The fused form (one kernel; dQ added by a TMA reduction per
        # query block), cuDNN's and FlashAttention's shape: 168 registers at 384 threads, no
        # spills at 64x64 and, with worker_warps=8, 64x128; H100: 121-250 TFLOP/s against the
        # S^T chain's 306-328, and 42-84 with dQ added an element at a time (docs/benchmarks.md,
        # row 12)
        d, causal = p["d"], bool(p["causal"])
        w8, fused = {"worker_warps": 8}, "attention_bwd_fused"
        return [*default_variants(case, arch), _attention_bwd(d, causal, 64, 64),
                _attention_bwd(d, causal, 128, 64, w8, "attention_bwd_dkdv_t"),
                _attention_bwd(d, causal, 64, 128, w8, "attention_bwd_dkdv_t"),
                _attention_bwd(d, causal, 64, 64, kernel=fused),
                _attention_bwd(d, causal, 64, 128, w8, fused),
                _attention_bwd(d, causal, 64, 128, w8, fused, by_element=True)]
    if k == "gemv":
        m = p["m"]
        if m == 1:
            return [_gemv(32, 256, 4), _gemv(16, 512, 4), _gemv(64, 128, 4), _gemv(32, 256, 2),
                    _gemv(32, 256), _gemv(16, 512), _warps(_gemv(32, 256), 8, 2),
                    _warps(_gemv(16, 512), 8, 2), _warps(_gemv(64, 128), 8, 1)]
        return [_gemv_mma(m, 64, 128), _gemv_mma(m, 32, 256), _gemv_mma(m, 64, 128, 2),
                _gemv_mma(m, 64, 128, 4), _gemv_mma(m, 32, 256, 4),
                _warps(_gemv_mma(m, 64, 128), 8, 2), _warps(_gemv_mma(m, 128, 64), 8, 2)]
    if k == "fp8_gemm":
        block = case.params["scaling"] != "per-tensor"
        w8 = {"worker_warps": 8}
        # not timed: 256x128 and 128x256 with 8 worker warps (206-341 spill instructions)
        out = [*default_variants(case, arch), _fp8(block, 128, 128, 128),
               _fp8(block, 128, 64, 128)]
        if not block:
            out += [_fp8(False, 128, 128, 64, w8), _fp8(False, 128, 128, 64)]
        return _unique(out)
    return default_variants(case, arch)


def _unique(vs: list[Variant]) -> list[Variant]:
    by_label: dict[str, Variant] = {}
    for v in vs:
        by_label.setdefault(v.label, v)
    return list(by_label.values())
