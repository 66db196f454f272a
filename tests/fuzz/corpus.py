"""The seed programs mutators start from: the examples, the frontend test cases and the kernels
the runtime tests launch (all real cutile code, valid and deliberately invalid)."""

from __future__ import annotations

import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SEED_DIRS = ("examples", "tests/cases/frontend", "benchmarks/kernels")
SEED_FILES = ("tests/runtime/rt_kernels.py",)


@functools.cache
def seeds() -> tuple[str, ...]:
    """Every seed's text, in a fixed order (runs are reproducible from the seed number)."""
    paths: list[Path] = []
    for folder in SEED_DIRS:
        paths += sorted((ROOT / folder).rglob("*.py"))
    paths += [ROOT / f for f in SEED_FILES if (ROOT / f).exists()]
    texts = []
    for path in paths:
        try:
            texts.append(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            continue
    if not texts:
        raise RuntimeError(f"no fuzz seeds found under {ROOT}")
    return tuple(texts)
