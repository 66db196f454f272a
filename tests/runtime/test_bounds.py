"""Run-time twins of the CT404 frontend cases (tests/cases/frontend/bounds_tile_index.py): a
launch of each kernel fails with the same codes on the same lines that the checker reports, and
the clean kernels run. A shape that is a Const is known only at specialization: the checker is
silent there, and the launch reports CT404 at the load's line."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import cutile as ct
from cutile import f32
from cutile.compiler import check_source

CASE = Path(__file__).parents[1] / "cases" / "frontend" / "bounds_tile_index.py"


@pytest.fixture(scope="module")
def case() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bounds_tile_index_case", CASE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _checker(kernel: str) -> set[tuple[int, str]]:
    """(line, code) of the checker's findings inside one kernel of the case file."""
    source = CASE.read_text()
    lines = source.splitlines()
    start = next(i for i, t in enumerate(lines, 1) if t.startswith(f"def {kernel}("))
    end = next((i for i, t in enumerate(lines, 1) if i > start and t.startswith("@ct.kernel")),
               len(lines) + 1)
    return {(d.span.line, d.code) for d in check_source(source, str(CASE))
            if start <= d.span.line < end}


def _launch_codes(launch: Callable[[], Any]) -> set[tuple[int, str]]:
    with pytest.raises(ct.CutileError) as err:
        launch().sync()
    assert all(Path(d.span.path) == CASE for d in err.value.diagnostics)
    return {(d.span.line, d.code) for d in err.value.diagnostics}


def test_out_of_range_indices_fail_at_the_checker_lines(case: ModuleType) -> None:
    z = ct.zeros((64,), f32).partition((64,))
    x, w = ct.zeros((256,), f32), ct.zeros((128, 256), f32)
    want = _checker("bad")
    assert len(want) == 11 and {c for _, c in want} == {"CT404"}
    assert _launch_codes(lambda: case.bad(z, x, w)) == want


def test_unsafe_stores_fail_at_the_checker_lines(case: ModuleType) -> None:
    z = ct.zeros((64,), f32).partition((64,))
    want = _checker("unsafe_stores")
    assert len(want) == 2
    assert _launch_codes(lambda: case.unsafe_stores(z, ct.zeros((256,), f32))) == want


def test_in_range_indices_run(case: ModuleType) -> None:
    x = ct.from_numpy(np.arange(256, dtype=np.float32))
    z = ct.zeros((64,), f32).partition((64,))
    assert _checker("ok") == set()
    z = case.ok(z, x, ct.zeros((128,), f32), ct.zeros((128, 256), f32)).sync()[0]
    assert np.isfinite(z.unpartition().numpy()).all()


def test_a_const_extent_is_checked_at_specialization(case: ModuleType) -> None:
    assert _checker("const_shape") == set()  # N unknown at edit time: no guess
    line = next(i for i, t in enumerate(CASE.read_text().splitlines(), 1)
                if "z.store(p.load((4,)))" in t)
    z = ct.zeros((64,), f32).partition((64,))
    x = ct.zeros((256,), f32)
    assert _launch_codes(lambda: case.const_shape(z, x, N=256)) == {(line, "CT404")}
    z = ct.zeros((64,), f32).partition((64,))
    got = case.const_shape(z, ct.ones((320,), f32), N=320).sync()[0]  # 5 tiles: tile 4 is there
    assert got.unpartition().numpy()[:1].tolist() == [1.0]
