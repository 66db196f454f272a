"""One parse per document version: the language server's diagnostics, typed names (hovers,
inlay hints), ownership states and quick fixes of one text share one ModuleInfo."""

from __future__ import annotations

import pytest

from cutile.checker import fixes
from cutile.compiler import analysis
from cutile.compiler.frontend.function import KernelResult
from cutile.lsp import engine
from cutile.reader.source import MODULES, FunctionDef, ModuleCache, ModuleInfo, parse_module

SOURCE = '''import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def k(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    t = ct.load_tile_like(x, z)
    z.store(t * 2)
'''


def test_every_analysis_of_a_version_reads_one_parse() -> None:
    path = "/nonexistent/one_parse_doc.py"
    before = MODULES.parses
    result = engine.Analyzer().analyze(SOURCE, path)
    names = engine.typed_names(SOURCE, path)
    engine.ownership(SOURCE, path)
    assert fixes._dtype_spelling(SOURCE, path, None)("f16") == "ct.f16"  # the astype quick fix's
    assert result.diagnostics == ()
    assert [n.name for n in names] == ["z", "t"]  # the Mut slab, then the tile
    assert MODULES.parses == before + 1
    edited = SOURCE.replace("t * 2", "t * 3")  # the next version: one more parse
    engine.typed_names(edited, path)
    engine.Analyzer().analyze(edited, path)
    assert MODULES.parses == before + 2
    engine.forget(path)
    engine.typed_names(edited, path)
    assert MODULES.parses == before + 3


def test_diagnostics_and_typed_names_share_one_analysis(monkeypatch: pytest.MonkeyPatch) -> None:
    """A version's kernel is typed once: its diagnostics and its hovers' and inlay hints'
    names come from that one analysis (inlay hints are asked for after every edit)."""
    typed: list[str] = []
    analyze = analysis.analyze_kernel

    def counting(info: ModuleInfo, fn: FunctionDef,
                 consts: dict[str, object] | None = None) -> KernelResult:
        typed.append(fn.name)
        return analyze(info, fn, consts)

    monkeypatch.setattr(analysis, "analyze_kernel", counting)
    path = "/nonexistent/one_analysis_doc.py"
    source = SOURCE.replace("t * 2", "t * 4")  # a text no other test parsed
    engine.Analyzer().analyze(source, path)
    names = engine.typed_names(source, path, lines=(6, 8))
    engine.forget(path)
    assert [n.name for n in names] == ["z", "t"]
    assert typed == ["k"]


def test_cache_is_bounded_and_keyed_by_text() -> None:
    cache = ModuleCache(size=2)
    a = cache.read("x = 1\n", "a.py")
    assert cache.read("x = 1\n", "a.py") is a
    cache.read("x = 2\n", "a.py")
    cache.read("x = 3\n", "a.py")  # evicts the oldest
    assert cache.read("x = 1\n", "a.py") is not a and cache.parses == 4
    bad = cache.read("def (:\n", "b.py")
    assert bad == parse_module("def (:\n", "b.py")  # a CT100 is cached like a module
