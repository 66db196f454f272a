"""sha256 of the Tile IR bytecode of every example, op-test and benchmark kernel, one line per
lowered specialization: a refactor of the frontend or the lowering must leave every line as it
was.

    python scripts/bytecode_hashes.py [--out FILE]
    python scripts/bytecode_hashes.py --pytest [--out FILE] -- PYTEST_ARGS...
    python scripts/bytecode_hashes.py --compare BEFORE AFTER

Every call of the lowering is recorded (kernel file, line and name, the Specialization, the
sha256 of its bytecode). Without --pytest the script lowers, for sm_90 and without tileiras:
each example's `main` at the small shapes of tests/test_examples.py, run on the interpreter
(every launch's specialization lowered again for sm_90) and the example cases of
tests/lower/test_compile_all.py; the op kernels of tests/lower (op_kernels.py,
contract_kernels.py, the slab kernels) and the `CASES` of tests/ops; every variant of every row
of the benchmark suite (its sweep too). A specialization that fails to lower records its error.
With --pytest it records what the given tests lower instead.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import sys
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
for extra in (ROOT, ROOT / "tests" / "lower", ROOT / "tests" / "ops"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from cutile.compiler.bytecode import Version, encode  # noqa: E402
from cutile.compiler.compile import compile_kernel  # noqa: E402
from cutile.compiler.specialization import Specialization  # noqa: E402
from cutile.compiler.toolchain import KernelCompiler, SpecializationKey, service  # noqa: E402
from cutile.reader.source import ModuleInfo  # noqa: E402

ARCH = "sm_90"
LATER_ARCH = "sm_100"


HASHES: dict[str, set[str]] = {}


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def record_lowerings() -> None:
    """Wraps the lowering that `compile_kernel`/`lower_kernel` call: every result recorded."""
    from cutile.compiler import compile as compile_module

    real = compile_module.lower

    def lower(ir: Any, spec: Specialization) -> Any:
        out = real(ir, spec)
        where = f"{Path(ir.span.path).name}:{ir.span.line} {ir.name} {spec!r}"
        HASHES.setdefault(where, set()).add(sha(encode(out.module)))
        return out

    compile_module.lower = lower


class Recorded(Exception):
    """Raised by `RecordingCompiler` once the bytecode is built (no tileiras run)."""


class RecordingCompiler(KernelCompiler):
    """Builds the bytecode (so the lowering runs and is recorded), assembles nothing."""

    def __init__(self) -> None:
        super().__init__(use_disk=False)

    def compile(self, key: SpecializationKey, build: Callable[[Version], bytes],
                **_: Any) -> Any:
        build(Version.parse(self.resolve_key(key).bytecode))
        raise Recorded


def attempt(rec: RecordingCompiler, what: str, run: Callable[[], object]) -> bool:
    """Runs one compile; False (and its error recorded) when it fails."""
    try:
        run()
    except Recorded:
        return True
    except Exception as err:  # a failure is a result too: it must not change either
        HASHES.setdefault(f"{what} FAILED", set()).add(
            sha(f"{type(err).__name__}: {err}".encode()))
        return False
    HASHES.setdefault(f"{what} NOTHING", set()).add("-")
    return True


def load(path: Path, name: str) -> ModuleType:
    from lower_util import load_file  # tests/lower is on sys.path (above)

    return load_file(path, name)


def spec_cases(rec: RecordingCompiler, path: Path, cases: list[tuple[str, dict[str, Any],
                                                                     dict[str, Any]]]) -> None:
    from lower_util import module, spec_for

    info = module(path)
    for name, consts, opts in cases:
        def run(name: str = name, consts: dict[str, Any] = consts,
                opts: dict[str, Any] = opts) -> object:
            return compile_kernel(info, name, spec_for(info, name, consts, **opts),
                                  compiler=rec)
        attempt(rec, f"{path.name}:{name} {consts} {opts}", run)


@contextlib.contextmanager
def captured_launches() -> Iterator[list[tuple[ModuleInfo, str, Specialization]]]:
    """The interpreter as backend, every specialization it prepares recorded."""
    from cutile.runtime import context
    from cutile.runtime.backends.interpreter import InterpreterBackend

    seen: list[tuple[ModuleInfo, str, Specialization]] = []

    class Capturing(InterpreterBackend):
        def prepare(self, kernel: Any, spec: Specialization) -> Any:
            seen.append((kernel.module(), kernel.__name__, spec))
            return super().prepare(kernel, spec)

    old = context.set_backend(Capturing())
    try:
        yield seen
    finally:
        context.set_backend(old)


def examples(rec: RecordingCompiler) -> None:
    ragged = load(ROOT / "tests" / "test_examples.py", "bytecode_hashes_examples").RAGGED
    launches: list[tuple[ModuleInfo, str, Specialization]] = []
    for stem, configs in sorted(ragged.items()):
        mod = load(ROOT / "examples" / f"{stem}.py", f"bytecode_hashes_ex_{stem}")
        for kwargs in configs:
            with captured_launches() as seen, contextlib.redirect_stdout(io.StringIO()):
                mod.main(**kwargs)
            launches += seen
    for info, name, spec in launches:
        for arch in (ARCH, LATER_ARCH):  # the later one where sm_90 refuses (MX types)
            at = replace(spec, arch=arch)
            if attempt(rec, f"{Path(info.path).name}:{name} {at!r}",
                       lambda i=info, n=name, s=at: compile_kernel(i, n, s, compiler=rec)):
                break
    from test_compile_all import EXAMPLE_CASES

    for file, name, consts, opts in EXAMPLE_CASES:
        spec_cases(rec, ROOT / "examples" / file, [(name, consts, opts)])


def op_kernels(rec: RecordingCompiler) -> None:
    from test_compile_all import OP_CASES, OPS
    from test_contract import EXPECT, KERNELS

    spec_cases(rec, OPS, [(name, consts, opts) for name, consts, opts, _ in OP_CASES])
    spec_cases(rec, KERNELS, [(name, {}, {}) for name in EXPECT])
    for path in sorted((ROOT / "tests" / "ops").glob("test_*.py")):
        cases = getattr(load(path, f"bytecode_hashes_{path.stem}"), "CASES", [])
        spec_cases(rec, path, [(name, consts, {}) for name, consts in cases])
        spec_cases(rec, path, [(name, consts, {"arch": LATER_ARCH}) for name, consts in cases
                               if name.startswith("mx_")])
    import test_slab_compile as slabs

    for kernels, table in ((slabs.k, slabs.CASES), (slabs.like, slabs.LIKE_CASES)):
        for name, (args, consts) in sorted(table.items()):
            attempt(rec, f"slab {name}", lambda n=name, a=args, c=consts, m=kernels:
                    getattr(m, n).compile(*a, arch=ARCH, **c))


def benchmarks(rec: RecordingCompiler) -> None:
    from benchmarks.suite import tuning
    from benchmarks.suite.dryrun import compile_variant
    from benchmarks.suite.plan import ROWS, build_plan

    tuning.set_sweep(True)
    for case in build_plan(False, list(ROWS)):
        for v in tuning.cutile_variants(case, ARCH):
            if not v.tuned:
                attempt(rec, f"bench {case.row} {v.kernel} {v.label}",
                        lambda c=case, v=v: compile_variant(ROOT, c, v, ARCH))


def collect() -> None:
    rec = RecordingCompiler()
    service._DEFAULT = rec  # `kernel.compile(...)` goes through the process-wide compiler
    for part in (examples, op_kernels, benchmarks):
        part(rec)


def run_pytest(args: list[str]) -> None:
    import pytest

    pytest.main(["-p", "no:cacheprovider", *args])


def compare(before: Path, after: Path) -> int:
    old, new = (dict(line.split("\t") for line in p.read_text().splitlines()) for p in
                (before, after))
    changed = sorted(k for k in old.keys() & new.keys() if old[k] != new[k])
    for k in changed:
        print(f"changed: {k}")
    for k in sorted(old.keys() - new.keys()):
        print(f"only before: {k}")
    for k in sorted(new.keys() - old.keys()):
        print(f"only after: {k}")
    same = len(old.keys() & new.keys()) - len(changed)
    print(f"{same} identical, {len(changed)} changed, {len(old.keys() ^ new.keys())} unmatched")
    return 1 if changed or old.keys() != new.keys() else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="write the lines here (default: stdout)")
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    ap.add_argument("--pytest", action="store_true", help="record what these tests lower")
    ap.add_argument("pytest_args", nargs="*", help="after --: pytest's arguments")
    a = ap.parse_args(argv)
    if a.compare:
        return compare(*a.compare)
    record_lowerings()
    if a.pytest:
        run_pytest(a.pytest_args)
    else:
        collect()
    text = "".join(f"{k}\t{' '.join(sorted(v))}\n" for k, v in sorted(HASHES.items()))
    if a.out is None:
        print(text, end="")
    else:
        a.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
