"""Run settings: time caps and window counts, for the full suite and for --quick."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .plan import GIB


@dataclass
class SuiteConfig:
    quick: bool = False
    only: list[str] = field(default_factory=list)
    out: Path = Path("benchmarks/results")
    dry_run: bool = False
    sweep: bool = False  # also time tuning.sweep_variants for cutile
    arch: str = "sm_90"
    windows: int = 25  # >= 25 timed windows per implementation and shape
    shape_cap_s: float = 1.0  # timed work per shape, all implementations together
    window_bytes: int = GIB  # memory-bound: one window touches at least this much
    rotate_bytes: int = GIB  # memory-bound: rotating input sets span at least this much
    max_launches: int = 1000  # per window (the launch queue stays shallow)
    warmup: int = 5
    warmup_tiny: int = 20
    tiny_s: float = 20e-6  # a launch shorter than this is "tiny" (more warm-up)

    @staticmethod
    def make(quick: bool, **kw: object) -> SuiteConfig:
        cfg = SuiteConfig(quick=quick, **kw)  # type: ignore[arg-type]
        if quick:
            cfg.shape_cap_s = 0.3
        return cfg
