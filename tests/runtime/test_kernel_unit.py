"""One frozen kernel unit per module parse, and one place that specializes it."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import rt_kernels as k

import cutile as ct
from cutile.compiler import unit as unit_mod
from cutile.compiler.unit import kernel_unit


def _count(monkeypatch: pytest.MonkeyPatch, name: str) -> list[Any]:
    calls: list[Any] = []
    real = getattr(unit_mod, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(unit_mod, name, counted)
    return calls


def test_one_unit_per_parse_shared_by_kernels_and_hint_variants(
        monkeypatch: pytest.MonkeyPatch) -> None:
    info = k.add.module()
    assert k.scale.module() is info  # one parse per file
    unit = kernel_unit(info, "add")
    assert kernel_unit(info, "add") is unit and kernel_unit(info, "scale") is not unit
    assert unit.qualname == "rt_kernels.add" and len(unit.source_hash) == 64
    k.add.check()
    analyses = _count(monkeypatch, "analyze_guarded")
    variant = k.add.with_hints(occupancy=2)
    assert variant.check() == k.add.check() == []
    assert variant.binder().sig is k.add.binder().sig  # one signature read per parse
    assert analyses == []  # the variant reused the unit's edit-time analysis


def test_the_interpreter_specializes_through_the_unit(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _count(monkeypatch, "specialized_ir")  # the program imported it by name:
    monkeypatch.setattr("cutile.runtime.interpreter.program.specialized_ir",
                        unit_mod.specialized_ir)
    z = ct.zeros((256,), ct.f32).partition((64,))
    kern = k.inc.with_hints(occupancy=3)  # a fresh Kernel: no executables cached yet
    z, = kern(z).sync()
    assert np.array_equal(z.unpartition().numpy(), np.ones(256, np.float32))
    assert len(calls) == 1 and calls[0][0] is kernel_unit(k.inc.module(), "inc")
