"""Shared helpers for the host checker tests: run the analysis, read `# E: CT301` expectations."""

from __future__ import annotations

from typing import ClassVar

from checker_fixtures import expected as expected  # the host tests import it from here

from cutile.checker.host import ProjectIndex, check_host
from cutile.diagnostics.diagnostic import Diagnostic
from cutile.reader.source import parse_module

# Kernels the rule snippets launch. Snippets are appended below, so their lines come after these.
PRELUDE = '''\
import cutile as ct
from cutile import Const, Mut, Tensor, f16, f32, i32

@ct.kernel
def add(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], y: Tensor[f32, (-1,)],
        B: Const[int]) -> None:
    z.store(ct.load_tile_like(x, z) + ct.load_tile_like(y, z))

@ct.kernel
def scale(z: Mut[Tensor[f32, (128,)]], x: Tensor[f32, (-1,)], alpha: f32) -> None:
    z.store(ct.load_tile_like(x, z) * alpha)

@ct.kernel
def pair(a: Mut[Tensor[f32, (64,)]], b: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    a.store(ct.load_tile_like(x, a))
    b.store(ct.load_tile_like(x, b))

@ct.kernel
def mm(c: Mut[Tensor[f32, ("BM", "BN")]], a: Tensor[f32, (-1, -1)], b: Tensor[f32, (-1, -1)],
       BM: Const[int], BN: Const[int], BK: Const[int]) -> None:
    c.store(ct.zeros((BM, BN), f32))

@ct.kernel
def fill(z: Mut[Tensor[f32, (128,)]], value: f32, dt: Const[ct.DType]) -> None:
    z.store(ct.full((128,), value, f32))

@ct.kernel
def vol(z: Mut[Tensor[f32, (4, 4, 4)]]) -> None:
    z.store(ct.zeros((4, 4, 4), f32))

'''

def run(source: str, path: str = "case.py", project: ProjectIndex | None = None
        ) -> list[Diagnostic]:
    info = parse_module(source, path)
    assert not isinstance(info, Diagnostic), info
    return check_host(info, project)


def found(diags: list[Diagnostic]) -> list[tuple[int, str]]:
    return sorted((d.span.line, d.code) for d in diags)


class Rule:
    """A Fixit-style rule test: VALID snippets report nothing, INVALID ones exactly their `# E:`."""

    CODE: ClassVar[str] = ""
    VALID: ClassVar[tuple[str, ...]] = ()
    INVALID: ClassVar[tuple[str, ...]] = ()


def with_prelude(snippet: str) -> str:
    return PRELUDE + snippet.strip("\n") + "\n"
