"""The op table's faces agree: every typed-IR op has NumPy semantics and a lowering, every
user-facing op has a typing rule, a stub with its signature, a doc line and a kernel that uses
it, and the generated stubs and docs are current."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from lower_util import EXAMPLES, ROOT, module, script
from test_compile_all import EXAMPLE_CASES, OP_CASES, OPS

import cutile
from cutile.compiler.api import specialize
from cutile.compiler.dsl.markers import TileValue
from cutile.compiler.ir import walk
from cutile.compiler.lower.emit import _HANDLERS
from cutile.compiler.ops import FUNCTIONS, METHODS
from cutile.compiler.ops.defs import IR_OPS
from cutile.compiler.ops.registry import REQUIRED
from cutile.runtime.interpreter.ops import OPS as RUNTIME_OPS

CONTROL = {"for", "loop", "if", "yield", "continue", "break", "return", "range_check"}


def _script() -> ModuleType:
    return script("gen_ops")


@pytest.mark.parametrize("name", sorted(IR_OPS))
def test_every_ir_op_runs_and_lowers(name: str) -> None:
    op = IR_OPS[name]
    assert op.interp is not None or name in RUNTIME_OPS, f"{name}: no interpreter semantics"
    assert op.lower is not None or name in _HANDLERS, f"{name}: no lowering"
    # One implementation per face: the table's, or the component's own.
    assert not (op.interp is not None and name in RUNTIME_OPS)
    assert not (op.lower is not None and name in _HANDLERS)


def test_components_implement_only_defined_ops() -> None:
    assert set(RUNTIME_OPS) <= set(IR_OPS)
    assert set(_HANDLERS) - CONTROL <= set(IR_OPS)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_every_function_has_a_stub_and_doc(name: str) -> None:
    spec = FUNCTIONS[name]
    gen = _script()
    assert spec.doc and spec.family in gen.FAMILIES, name
    assert name in cutile.__all__ and hasattr(cutile, name)
    if name in gen.HOST_NAMES:
        return  # the host constructor's stub (a tile inside kernels, a tensor on the host)
    stub = inspect.signature(getattr(cutile, name))
    assert [p.name for p in stub.parameters.values()] == [p.name for p in spec.params]
    for p in spec.params:
        want = inspect.Parameter.empty if p.default is REQUIRED else p.default
        got = stub.parameters[p.name].default
        assert got == want or (want is inspect.Parameter.empty and p.variadic), (name, p)


@pytest.mark.parametrize("key", sorted(METHODS), ids=lambda k: f"{k[0]}.{k[1]}")
def test_every_method_is_on_tile_value(key: tuple[str, str]) -> None:
    """mypy sees kernel values as TileValue: it must declare each method's parameters."""
    spec = METHODS[key]
    assert spec.doc and spec.family
    method = getattr(TileValue, spec.name)
    stub = inspect.signature(method).parameters
    for p in spec.params:
        assert p.name in stub, (key, p.name)


def test_every_op_is_used_by_a_compiled_kernel() -> None:
    """op_kernels.py and the examples (all lowered and assembled by test_compile_all) together
    emit every IR op and call every user-facing op."""
    emitted: set[str] = set()
    called: set[str] = set()
    kernels = [(OPS, c[0], c[1]) for c in OP_CASES]
    kernels += [(EXAMPLES / c[0], c[1], c[2]) for c in EXAMPLE_CASES]
    kernels += [(path, name, consts) for path in OP_TESTS for name, consts in _cases(path)]
    for path, name, consts in kernels:
        info = module(path)
        result = specialize(info, name, dict(consts))
        assert result.ir is not None, (name, result.diagnostics)
        emitted |= {op.name for op in walk(result.ir.body)}
        called |= _calls(path.read_text())
    assert set(IR_OPS) <= emitted, sorted(set(IR_OPS) - emitted)
    methods = {n for _, n in METHODS}
    assert set(FUNCTIONS) | methods <= called, sorted((set(FUNCTIONS) | methods) - called)


OP_TESTS = sorted((ROOT / "tests" / "ops").glob("test_*.py"))


def _cases(path: Path) -> list[tuple[str, dict[str, Any]]]:
    """The CASES list of a per-op test file (its kernels, which that file lowers and assembles)."""
    for stmt in ast.parse(path.read_text()).body:
        if isinstance(stmt, ast.Assign) and [ast.unparse(t) for t in stmt.targets] == ["CASES"]:
            cases: list[tuple[str, dict[str, Any]]] = ast.literal_eval(stmt.value)
            return cases
    raise AssertionError(f"{path.name} has no CASES")


def _calls(text: str) -> set[str]:
    import re

    return set(re.findall(r"\.([a-z_0-9]+)\(", text))


def test_generated_files_are_current() -> None:
    assert _script().main(["--check"]) == 0, "run: python scripts/gen_ops.py"


# Sample arguments by parameter name, for a user file that calls every op.
SAMPLES = {
    "x": "t", "y": "t", "a": "t", "b": "t", "acc": "t", "cond": "t > 0.0", "offsets": "i",
    "axis": "0", "shape": "(16,)", "dtype": "ct.f32", "n": "2", "index": "(0,)", "fmt": '"%f"',
    "message": '"m"', "seed": "7", "op": '"add"', "tiles": "(t, t)", "axes": "(0,)",
    "value": "1.0", "p": "p", "z": "z", "keepdims": "False", "reverse": "False", "tile": "t",
    "args": "t", "padding": "-math.inf", "indices": "(i,)", "values": "t", "mask": "t > 0.0",
    "latency": "4", "allow_tma": "True", "fast_acc": "False", "decimals": "1", "lo": "0.0",
    "hi": "1.0",
}
RECEIVERS = {"tile": "t", "mut": "z", "tensor": "x", "partition": "p", "acc": "acc"}


def _call(head: str, spec: Any) -> str:
    args = []
    for p in spec.params:
        if p.name == "self":
            continue
        text = SAMPLES[p.name]
        args.append(f"{p.name}={text}" if p.keyword else text)
    return f"{head}({', '.join(args)})"


def user_file() -> str:
    lines = ['"""Calls every kernel op (generated by test_op_faces.py)."""', "",
             "import math", "", "import cutile as ct",
             "from cutile import Acc, Mut, Tensor, f32", "", "", "@ct.kernel",
             'def every_op(z: Mut[Tensor[f32, (16,)]], x: Tensor[f32, (-1,)],',
             '             acc: Acc[Tensor[f32, (-1,)], "add"]) -> None:',
             "    t = ct.load_tile_like(x, z)", "    i = ct.arange(16)",
             "    p = x.partition((16,))"]
    calls = [(f"r_{name}", _call(f"ct.{name}", spec), spec.returns)
             for name, spec in sorted(FUNCTIONS.items())]
    calls += [(f"m_{receiver}_{name}", _call(f"{RECEIVERS[receiver]}.{name}", spec), spec.returns)
              for (receiver, name), spec in sorted(METHODS.items())]
    for var, call, returns in calls:
        lines.append(f"    {call}" if returns == "None" else f"    {var} = {call}")
    return "\n".join(lines) + "\n"


@pytest.mark.slow
def test_a_user_file_calling_every_op_passes_mypy_strict(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    path = tmp_path / "every_op.py"
    path.write_text(user_file())
    env = {k: v for k, v in os.environ.items() if not k.startswith("MYPY")}
    env["MYPYPATH"] = str(ROOT)
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir",
         str(tmp_path / ".mypy_cache"), str(path)],
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr + user_file()
