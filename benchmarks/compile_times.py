"""Benchmark #8 (compile part): cold compile of vector add and of a 128x128x64 GEMM, and a
disk-cache hit, through the caching compiler service. Needs no GPU.

    python benchmarks/compile_times.py [--arch sm_90] [--repeat 3]

Targets (BENCHMARKS.md #8): cold add <= 0.5 s, cold GEMM <= 1.5 s, disk-cache hit <= 30 ms.
These kernels are built with the bytecode builder until the lowering drives them from Python
kernel source; "cold" covers encoding plus tileiras, with an empty cache directory each time.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "tests" / "bytecode"))
from bc_programs import gemm, vector_add

from cutile.compiler.bytecode import Module, Version, encode
from cutile.compiler.toolchain import (
    ArgFacts,
    DiskCache,
    KernelCompiler,
    SpecializationKey,
    find_toolchain,
    source_hash,
)

TARGETS_S = {"cold vector_add": 0.5, "cold gemm_128x128x64": 1.5, "disk hit": 0.030}


def _key(name: str, arch: str) -> SpecializationKey:
    return SpecializationKey(f"bench.{name}", source_hash(name), (ArgFacts("tensor", "f16", 2),),
                             arch=arch)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    tc = find_toolchain()
    kernels: dict[str, Module] = {"vector_add": vector_add(1024),
                                  "gemm_128x128x64": gemm(128, 128, 64)}
    results: dict[str, float] = {}
    for name, mod in kernels.items():
        def build(version: Version, mod: Module = mod) -> bytes:
            return encode(mod, version)

        cold, hit = [], []
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory() as tmp:
                KernelCompiler(tc, DiskCache(Path(tmp))).resolve_key(_key(name, args.arch))
                t0 = time.perf_counter()
                KernelCompiler(tc, DiskCache(Path(tmp))).compile(_key(name, args.arch), build)
                cold.append(time.perf_counter() - t0)
                fresh = KernelCompiler(tc, DiskCache(Path(tmp)))  # a new process's view
                fresh.resolve_key(_key(name, args.arch))  # tileiras version probe is memoized
                t0 = time.perf_counter()
                got = fresh.compile(_key(name, args.arch), build)
                hit.append(time.perf_counter() - t0)
                assert got.source == "disk"
        results[f"cold {name}"] = min(cold)
        results[f"disk hit {name}"] = min(hit)
    report = {k: {"seconds": round(v, 4),
                  "target": TARGETS_S.get(k, TARGETS_S["disk hit"] if "hit" in k else None)}
              for k, v in results.items()}
    print(json.dumps({"arch": args.arch, "results": report}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
