"""The engine on the CUDA backend over `benchmarks/null_driver.py` (compiled for real, launched
into do-nothing bindings), as generate.py drives it: a warm-up reset, then one with a longer
cache (new buffers, another attention split). Every launch's parameter block must hold that
launch's own pointers, extents and strides (launch plans prebuild the extents and strides once:
runtime/backends/pack.py), and no two live buffers may share memory (the caching allocator
reuses freed blocks at once)."""

from __future__ import annotations

import itertools
import struct
import sys
import weakref
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "examples" / "qwen3"), str(Path(__file__).parent)]

import tiny  # noqa: E402
from config import load_config  # noqa: E402
from model import Engine  # noqa: E402
from weights import load_weights  # noqa: E402

from benchmarks import launch_overhead  # noqa: E402
from cutile.runtime.backends import base, pack  # noqa: E402


def _expected(slot: Any, value: Any) -> int | None:
    t = getattr(value, "_tensor", value)
    if slot.field == "ptr":
        return int(value._base)
    if slot.field == "shape":
        return int(t._shape[slot.axis])
    if slot.field == "stride":
        return int(t._strides[slot.axis])
    return None


class Audit:
    """Wraps every packer's runner: after it writes a launch's block, each slot is read back."""

    def __init__(self) -> None:
        self.launches = 0
        self.wrong: list[str] = []
        self.shared: list[str] = []
        self.live: weakref.WeakSet[base.Buffer] = weakref.WeakSet()

    def runner(self, real: Any) -> Any:
        audit = self

        def runner(packer: pack.Packer, launch: Any) -> Any:
            run = real(packer, launch)

            def checked(a: Sequence[Any], grid: tuple[int, int, int], s: int) -> None:
                run(a, grid, s)
                audit.check(packer, a)
            return checked
        return runner

    def check(self, packer: pack.Packer, a: Sequence[Any]) -> None:
        self.launches += 1
        for n, slot in enumerate(packer.slots):
            got = struct.unpack_from("<" + pack.FORMATS[slot.ctype], packer.buffer,
                                     packer.offsets[n])[0]
            want = _expected(slot, a[slot.arg])
            if want is not None and got != want:
                self.wrong.append(f"{slot}: {got} in the block, {want} given")
        spans = sorted((b.ptr, b.ptr + max(b.nbytes, 1)) for b in list(self.live)
                       if b._release is not None)
        self.shared += [f"{hex(a0)}..{hex(a1)} and {hex(b0)}..{hex(b1)}"
                        for (a0, a1), (b0, b1) in itertools.pairwise(spans) if b0 < a1]


@pytest.fixture
def audit(monkeypatch: pytest.MonkeyPatch, toolchain: object) -> Iterator[Audit]:
    pytest.importorskip("cuda.bindings")
    # the Python packer, whose runner the audit wraps (the compiled enqueue writes the same
    # bytes: tests/runtime/test_native.py)
    monkeypatch.setenv("CUTILE_NATIVE", "0")
    found = Audit()
    monkeypatch.setattr(pack.Packer, "runner", found.runner(pack.Packer.runner))
    init = base.Buffer.__init__

    def remembered(buf: base.Buffer, *args: Any, **kwargs: Any) -> None:
        init(buf, *args, **kwargs)
        found.live.add(buf)
    monkeypatch.setattr(base.Buffer, "__init__", remembered)
    with launch_overhead.null_cuda():
        yield found


def test_each_launch_block_holds_its_own_arguments_across_resets(tmp_path: Path,
                                                                 audit: Audit) -> None:
    tiny.write_tiny(tmp_path)
    cfg = load_config(tmp_path)
    model = Engine(cfg, load_weights(tmp_path, cfg), "float32")
    prompt = list(range(3, 18))
    splits = []
    for new in (2, 256):  # generate.py's warm-up, then the answer's longer cache
        model.reset(prompt, new)
        splits.append(model.splits)
        model.run_eager(3)
        graph = model.capture()
        graph.replay()
        graph.sync()
    assert splits == [1, 2] and audit.launches > 50
    assert audit.wrong == [] and audit.shared == []
