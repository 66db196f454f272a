"""Every element-wise op, reduction, conversion and bitcast, on every dtype: what the frontend
accepts runs on the interpreter and compiles for sm_90 with the real tileiras (the GPU must not
refuse what the checker and the interpreter took: tf32 and f8 arithmetic once did, CT503).
Each accepted kernel is launched twice, on the interpreter and over the null CUDA driver."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import cutile as ct
from cutile.compiler import check_source
from cutile.compiler.dtypes import ALL_DTYPES, DType

# the MX storage formats compile for sm_100+ only (CT2xx on sm_90 by design)
DTYPES = [d for d in ALL_DTYPES if d.min_sm <= 90]
UNARY = ["abs", "ceil", "cos", "cosh", "erf", "exp", "exp2", "expm1", "floor", "log", "log1p",
         "log2", "rsqrt", "sigmoid", "sin", "sinh", "sqrt", "tan", "tanh", "round", "trunc",
         "sign", "isnan", "isinf", "isfinite"]
OPERATORS = ["+", "-", "*", "/", "//", "%", "**", "&", "|", "^", "<<", ">>", "==", "!=", "<",
             "<=", ">", ">="]
BINARY = ["maximum", "minimum", "atan2", "pow", "umulhi", "cdiv"]
REDUCTIONS = ["sum", "prod", "max", "min", "argmax", "argmin", "xor_sum"]
SCANS = ["cumsum", "cumprod"]

TEMPLATE = """import cutile as ct
from cutile import Mut, Tensor


@ct.kernel
def k(z: Mut[Tensor[ct.{out}, (16,)]], x: Tensor[ct.{src}, (-1,)],
      y: Tensor[ct.{src}, (-1,)]) -> None:
    t = x.load_tile((16,), (0,))
    u = y.load_tile((16,), (0,))
    z.store(ct.broadcast_to({expr}, (16,)))
"""


def expressions(d: DType) -> Iterator[str]:
    yield from (f"ct.{f}(t)" for f in UNARY)
    yield from ("-t", "~t", "ct.where(t == t, t, u)", "ct.clamp(t, u, u)", "ct.fma(t, u, t)")
    yield from (f"t {op} u" for op in OPERATORS)
    yield from (f"ct.{f}(t, u)" for f in BINARY)
    yield from (f"ct.{f}(t, 0, keepdims=True)" for f in REDUCTIONS)
    yield from (f"ct.{f}(t, 0)" for f in SCANS)
    for other in DTYPES:
        yield f"t.astype(ct.{other.name})"
        if other.bits == d.bits and other != d:
            yield f"t.bitcast(ct.{other.name})"


def _errors(src: str, path: Path) -> list[Any]:
    return [x for x in check_source(src, str(path)) if x.severity.value == "error"]


def accepted(d: DType, expr: str, path: Path) -> tuple[str, str] | None:
    """The kernel's source and output dtype when the frontend accepts `expr` on `d` tiles
    (the result stored in the dtype it has), else None."""
    out = d.name
    src = TEMPLATE.format(src=d.name, out=out, expr=expr)
    errors = _errors(src, path)
    if len(errors) == 1 and errors[0].code == "CT213":  # the result has another dtype
        out = str(errors[0].fields["got"]).split()[0]
        src = TEMPLATE.format(src=d.name, out=out, expr=expr)
        errors = _errors(src, path)
    return None if errors else (src, out)


def _kernel(src: str, path: Path) -> Any:
    path.write_text(src, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.k


def _launch(kernel: Any, d: DType, out: str) -> None:
    values = np.arange(1, 17) % (2 if d.is_bool else 7) + (0 if d.is_bool else 1)
    x, y = (ct.from_numpy(values.astype(np.float64 if d.is_float else np.int64), dtype=d)
            for _ in range(2))
    kernel(ct.zeros((16,), getattr(ct, out)).partition((16,)), x, y).sync()


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy on NaN/inf lanes
@pytest.mark.parametrize("d", DTYPES, ids=lambda d: d.name)
def test_what_the_frontend_accepts_compiles_for_sm_90(toolchain: object, tmp_path: Path,
                                                       d: DType) -> None:
    pytest.importorskip("cuda.bindings")
    from benchmarks import launch_overhead

    failures, tried = [], 0
    for n, expr in enumerate(expressions(d)):
        path = tmp_path / f"k_{d.name}_{n}.py"
        found = accepted(d, expr, path)
        if found is None:
            continue
        src, out = found
        kernel, tried = _kernel(src, path), tried + 1
        try:
            _launch(kernel, d, out)  # the interpreter
            with launch_overhead.null_cuda():
                _launch(kernel, d, out)  # tileiras for sm_90, parameters packed, nothing run
        except ct.CutileError as err:
            failures.append(f"{expr} on {d.name}: {str(err).strip().splitlines()[0]}")
    assert tried >= 10, f"only {tried} kernels accepted on {d.name}: the template is wrong"
    assert not failures, "\n".join(failures)
