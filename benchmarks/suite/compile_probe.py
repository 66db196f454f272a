"""Compile-time probe for row 8, run in a fresh process per measurement so that "cold" means no
memory cache (and, with an empty CUTILE_CACHE_DIR, no disk cache).

`python -m benchmarks.suite.compile_probe ROOT` prints one JSON object: seconds for the first
and second `add.compile(...)` and the first `gemm.compile(...)` in this process. The suite runs
it twice on one fresh cache directory: the first run gives cold and warm (memory hit) times, the
second the disk-cache hit. The compiler is imported before the clock starts (once per process,
reported as `import_s`), as in benchmarks/compile_times.py: a cache hit is the lookup itself.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any


def _time(fn: Any) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main(argv: list[str]) -> int:
    root = Path(argv[0]) if argv else Path(".")
    out: dict[str, Any] = {}
    try:
        t0 = time.perf_counter()
        import cutile as ct
        import cutile.compiler.compile  # imported lazily by the first compile otherwise

        out["import_s"] = time.perf_counter() - t0

        from .peers.cutile_native import load_kernel_module
        from .tuning import KERNELS

        add = load_kernel_module(root, KERNELS["add"][0]).add
        gemm = load_kernel_module(root, KERNELS["gemm"][0]).gemm
        n = 1 << 24

        def add_compile() -> Any:
            return add.compile(ct.meta((n,), ct.f32).partition((1024,)),
                               ct.meta((n,), ct.f32), ct.meta((n,), ct.f32))

        def gemm_compile() -> Any:
            s = 4096
            c = ct.meta((s, s), ct.bf16).partition((128, 128), order=ct.grouped(8))
            return gemm.compile(c, ct.meta((s, s), ct.bf16), ct.meta((s, s), ct.bf16), BK=64)

        out["method"] = "kernel.compile"
        out["add_first_s"] = _time(add_compile)
        out["add_second_s"] = _time(add_compile)
        out["gemm_first_s"] = _time(gemm_compile)
    except Exception as exc:
        out["error"] = f"{exc.__class__.__name__}: {exc}"[:400]
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
