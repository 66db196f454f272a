"""How long cutile-check takes on the examples and on ~5,000 lines of kernels and host code
(target: under 1 s each).

    python benchmarks/check_speed.py [--lines 5000] [--files 1] [--repeat 3]

Generates modules that each define kernels and host functions launching them (the shapes the
checker follows: partitions, launches, .sync() rebinding, loops), writes them to a temporary
directory, then times `analyze_paths` over it: the whole pipeline, including reading files and
configuration discovery (every launch goes through the launch contract, compiler/launch).
`--files 1` (the default) makes one 5,000-line module. Also times the repository's examples/.
Prints the best of --repeat runs and a split by stage.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from cutile.checker.analyze import analyze_paths
from cutile.checker.host import check_host
from cutile.compiler.api import check_module
from cutile.reader.source import ModuleInfo, parse_module

HEADER = '''"""Generated benchmark module {index}."""

import cutile as ct
from cutile import Const, Mut, Tensor, f32
'''

BLOCK = '''

@ct.kernel
def add_{n}(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], y: Tensor[f32, (-1,)],
          B: Const[int]) -> None:
    tx = ct.load_tile_like(x, z)
    ty = ct.load_tile_like(y, z)
    z.store(tx * 2.0 + ty)


@ct.kernel
def scale_{n}(z: Mut[Tensor[f32, (128, 64)]], x: Tensor[f32, (-1, -1)], a: f32) -> None:
    t = ct.load_tile_like(x, z)
    for _ in range(4):
        t = t * a
    z.store(ct.maximum(t, 0.0))


def host_{n}(steps: int) -> float:
    x = ct.ones((4096,), f32)
    y = ct.ones((4096,), f32)
    z = ct.zeros((4096,), f32).partition((256,))
    for _ in range(steps):
        z, x, y = add_{n}(z, x, y).sync()
    m = ct.zeros((1024, 512), f32).partition((128, 64))
    w = ct.ones((1024, 512), f32)
    m, w, _ = scale_{n}(m, w, 0.5).sync()
    total = z.unpartition().numpy().sum() + m.unpartition().numpy().sum()
    return float(total)
'''


def generate(root: Path, lines: int, files: int) -> int:
    per_file = max(1, lines // files)
    written = 0
    n = 0
    for index in range(files):
        text = HEADER.format(index=index)
        while text.count("\n") < per_file:
            text += BLOCK.format(n=n)
            n += 1
        (root / f"mod_{index:03d}.py").write_text(text)
        written += text.count("\n")
    return written


def stages(root: Path) -> dict[str, float]:
    """Seconds spent in parsing, the kernel frontend and the host analysis (one pass)."""
    sources = [(str(p), p.read_text()) for p in sorted(root.glob("*.py"))]
    out = {"parse": 0.0, "frontend": 0.0, "host": 0.0}
    for path, text in sources:
        t0 = time.perf_counter()
        info = parse_module(text, path)
        t1 = time.perf_counter()
        assert isinstance(info, ModuleInfo)
        check_module(info)
        t2 = time.perf_counter()
        check_host(info)
        t3 = time.perf_counter()
        out["parse"] += t1 - t0
        out["frontend"] += t2 - t1
        out["host"] += t3 - t2
    return out


EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def time_paths(paths: list[str], repeat: int) -> tuple[float, int, int]:
    """Best seconds of `repeat` runs, files checked, findings."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        report = analyze_paths(paths)
        times.append(time.perf_counter() - start)
    return min(times), len(report.files), len(report.diagnostics)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=5000)
    parser.add_argument("--files", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        total = generate(root, args.lines, args.files)
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            report = analyze_paths([str(root)])
            times.append(time.perf_counter() - start)
        findings = len(report.diagnostics)
        split = stages(root)
    best = min(times)
    print(f"checked {total} lines in {len(report.files)} files: best {best:.3f} s of "
          f"{args.repeat} ({total / best:,.0f} lines/s), {findings} findings")
    print("stages (one pass): " + ", ".join(f"{k} {v:.3f} s" for k, v in split.items()))
    if findings:
        for diag in report.diagnostics[:5]:
            print(f"  unexpected: {diag.span}: {diag.code} {diag.message}")
    ex_best, ex_files, ex_findings = time_paths([str(EXAMPLES)], args.repeat)
    ex_lines = sum(p.read_text().count("\n") for p in EXAMPLES.glob("**/*.py"))
    print(f"checked examples/ ({ex_lines} lines in {ex_files} files): best {ex_best:.3f} s of "
          f"{args.repeat}, {ex_findings} findings")


if __name__ == "__main__":
    main()
