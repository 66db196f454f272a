"""The runtime's import graph stays layered (scripts/import_cycles.py). Counted with the
imports inside functions and under `if TYPE_CHECKING:`: 21 runtime modules formed one cycle
before the launch-path redesign; what is left are the launch layer (kernel, launch, plans,
fastpath), the CUDA backend and its loader, an op with its ownership records, and (for typing
only) a partition's annotations naming the Tensor it holds. A tensor's helpers (views,
partitions, DLPack, access checks) take the handle's data (`TensorHandle`, handle.py) and never
import tensor.py, which imports them."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import import_cycles  # noqa: E402

ALLOWED = {
    frozenset({"runtime.partition", "runtime.tensor"}),
    frozenset({"runtime.fastpath", "runtime.kernel", "runtime.launch", "runtime.plans"}),
    frozenset({"runtime.backends.cuda", "runtime.backends.cuda_kernels"}),
    frozenset({"runtime.ops", "runtime.ownership"}),
}


def _runtime_cycles(nested: bool, typing: bool) -> set[frozenset[str]]:
    comps = import_cycles.components(import_cycles.graph(nested, typing))
    return {frozenset(m.removeprefix("cutile.") for m in c) for c in comps
            if all(m.startswith("cutile.runtime") for m in c)}


def test_no_runtime_cycle_at_import_time() -> None:
    assert _runtime_cycles(nested=False, typing=False) == set()


def test_no_runtime_cycle_over_two_modules_with_imports_in_functions() -> None:
    assert all(len(c) <= 2 for c in _runtime_cycles(nested=True, typing=False))


def test_runtime_cycles_are_only_the_known_small_ones() -> None:
    found = _runtime_cycles(nested=True, typing=True)
    assert found <= ALLOWED, sorted(map(sorted, found - ALLOWED))


def test_the_counter_sees_a_cycle() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert import_cycles.components(edges) == [["a", "b", "c"]]
