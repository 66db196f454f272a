"""The checker's launch rules for slabs of any size (design.md §3): they agree with the runtime."""

from __future__ import annotations

import pytest

import cutile as ct
from cutile import Mut, Tensor, f32
from cutile.checker.analyze import analyze_source

SOURCE = '''
import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def k(z: Mut[Tensor[f32, (1, -1)]], w: Mut[Tensor[f32, (3, 5)]]) -> None:
    z.store(ct.zeros((1, 16), f32), (0, 0))
    w.store(ct.zeros((4, 8), f32))


def host() -> None:
    z = ct.zeros((3, 1000), f32).partition((1, 1000))
    w = ct.zeros((9, 5), f32).partition((3, 5))
    k(z, w).sync()
    z2 = ct.zeros((3, 1000), f32).partition((1, 1000))
    w2 = ct.zeros((9, 10), f32).partition((3, 5))
    k(z2, w2).sync()
    w3 = ct.zeros((9, 5), f32).partition((3, 0))
'''


@ct.kernel
def k(z: Mut[Tensor[f32, (1, -1)]], w: Mut[Tensor[f32, (3, 5)]]) -> None:
    z.store(ct.zeros((1, 16), f32), (0, 0))
    w.store(ct.zeros((4, 8), f32))


def test_the_checker_takes_any_extents_and_compares_grids() -> None:
    got = [(d.code, d.span.line) for d in analyze_source(SOURCE, "slabs.py")]
    assert got == [("CT402", 18), ("CT408", 19)]


def test_the_runtime_gives_the_same_codes() -> None:
    k(ct.zeros((3, 1000), f32).partition((1, 1000)),
      ct.zeros((9, 5), f32).partition((3, 5))).sync()
    with pytest.raises(ct.LaunchError) as err:
        k(ct.zeros((3, 1000), f32).partition((1, 1000)),  # cutile: ignore[CT402]
          ct.zeros((9, 10), f32).partition((3, 5)))
    assert err.value.diagnostics[0].code == "CT402"
    with pytest.raises(ct.LaunchError) as err:
        ct.zeros((9, 5), f32).partition((3, 0))  # cutile: ignore[CT408]
    assert err.value.diagnostics[0].code == "CT408"
