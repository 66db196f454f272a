"""Frontend cases: annotated kernel sources under tests/cases/frontend, checked mypy-style.

A line that should produce diagnostics ends in a comment such as `# E: CT201`, `# E: CT201 CT202`
or `# E: CT201 "not broadcastable"` (the quoted text must occur in the message of that code on that
line). Files without such comments must check clean. The (line, code) sets must match exactly.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

import pytest

from cutile.compiler import check_source
from cutile.compiler.api import specialize
from cutile.compiler.ir import format_ir
from cutile.diagnostics.codes import CODES, Family
from cutile.diagnostics.diagnostic import Diagnostic
from cutile.reader.source import ModuleInfo, parse_module

CASES = Path(__file__).parent / "cases" / "frontend"
FILES = sorted(CASES.glob("*.py"))
MARKER = re.compile(r"#\s*E:(?P<rest>.*)$")
ITEM = re.compile(r'\s*(?P<code>CT\d{3})(?:\s+"(?P<fragment>[^"]*)")?')


@dataclass(frozen=True)
class Expected:
    line: int
    code: str
    fragment: str | None = None


def parse_expectations(source: str) -> list[Expected]:
    """The `# E:` comments of a source file (read with tokenize, so '#' in strings is ignored).
    A file that does not tokenize (the CT100 case) falls back to a line scan."""
    out: list[Expected] = []
    try:
        comments = [(tok.start[0], tok.string) for tok in
                    tokenize.generate_tokens(io.StringIO(source).readline)
                    if tok.type == tokenize.COMMENT]
    except (tokenize.TokenError, SyntaxError):
        comments = [(n, line[line.index("#"):]) for n, line in
                    enumerate(source.splitlines(), 1) if "#" in line]
    for line, text in comments:
        m = MARKER.search(text)
        if m is None:
            continue
        rest = m.group("rest")
        pos = 0
        while pos < len(rest.rstrip()):
            item = ITEM.match(rest, pos)
            if item is None:
                raise ValueError(f"line {line}: cannot read the expectation {rest.strip()!r}")
            out.append(Expected(line, item.group("code"), item.group("fragment")))
            pos = item.end()
    return out


def compare(expected: list[Expected], diags: list[Diagnostic]) -> list[str]:
    """Readable problems: missing and unexpected (line, code) pairs, unmatched fragments."""
    want = {(e.line, e.code) for e in expected}
    got = {(d.span.line, d.code) for d in diags}
    problems = []
    for line, code in sorted(want - got):
        problems.append(f"line {line}: expected {code}, not reported")
    for line, code in sorted(got - want):
        found = [d.message for d in diags if (d.span.line, d.code) == (line, code)]
        problems.append(f"line {line}: unexpected {code}: {' | '.join(found)}")
    for e in expected:
        if e.fragment is None or (e.line, e.code) not in got:
            continue
        messages = [d.message for d in diags if (d.span.line, d.code) == (e.line, e.code)]
        if not any(e.fragment in m for m in messages):
            problems.append(f"line {e.line}: {e.code} message lacks {e.fragment!r}: "
                            f"{' | '.join(messages)}")
    return problems


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_case(path: Path) -> None:
    source = path.read_text()
    problems = compare(parse_expectations(source), check_source(source, path.name))
    if problems:
        pytest.fail(f"{path.name}:\n  " + "\n  ".join(problems), pytrace=False)


def test_enough_cases() -> None:
    assert len(FILES) >= 60, f"only {len(FILES)} case files"


def test_every_frontend_code_has_a_case() -> None:
    covered = {e.code for p in FILES for e in parse_expectations(p.read_text())}
    frontend = {c for c, e in CODES.items() if e.family in (Family.SYNTAX, Family.TYPES)}
    assert frontend - covered == set()


def test_valid_kernels_are_present() -> None:
    clean = [p.name for p in FILES if not parse_expectations(p.read_text())]
    assert len(clean) >= 15, clean


# -- the harness itself -------------------------------------------------------------------------
def test_parse_expectations_forms() -> None:
    src = ('x = 1  # E: CT201\n'
           'y = "# E: CT999"\n'
           'z = 2  # E: CT201 CT202 "not broadcastable"\n'
           '# plain comment\n')
    assert parse_expectations(src) == [
        Expected(1, "CT201"), Expected(3, "CT201"),
        Expected(3, "CT202", "not broadcastable")]


def test_parse_expectations_rejects_garbage() -> None:
    with pytest.raises(ValueError, match="cannot read"):
        parse_expectations("x = 1  # E: oops\n")


def test_compare_reports_each_kind_of_mismatch() -> None:
    from cutile.diagnostics.diagnostic import Span

    d = Diagnostic("CT202", "cannot add f16 and f32 tiles", Span("f.py", 2, 0, 2, 1))
    problems = compare([Expected(1, "CT201"), Expected(2, "CT202", "shapes")], [d])
    assert problems == [
        "line 1: expected CT201, not reported",
        "line 2: CT202 message lacks 'shapes': cannot add f16 and f32 tiles",
    ]
    assert compare([], [d]) == ["line 2: unexpected CT202: cannot add f16 and f32 tiles"]


# -- specialization -----------------------------------------------------------------------------
SPECIALIZE_SOURCE = '''\
import cutile as ct
from cutile import Const, Mut, Tensor, f32


@ct.kernel
def add(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], B: Const[int]) -> None:
    t = ct.load_tile_like(x, z)
    s = ct.zeros((B,), f32) + t
    z.store(s * B)


@ct.kernel
def rows(z: Mut[Tensor[f32, ("BM", "N")]], x: Tensor[f32, (-1, "N")], BM: Const[int],
         N: Const[int]) -> None:
    t = ct.load_tile_like(x, z)
    z.store(t - ct.max(t, 1))
'''


def _module() -> ModuleInfo:
    info = parse_module(SPECIALIZE_SOURCE, "spec.py")
    assert isinstance(info, ModuleInfo)
    return info


def test_unspecialized_kernels_check_clean_with_symbolic_shapes() -> None:
    assert check_source(SPECIALIZE_SOURCE, "spec.py") == []
    result = specialize(_module(), "add", {})
    assert result.ir is not None
    assert "Tile[f32, (B,)]" in format_ir(result.ir)


def test_specialize_gives_concrete_shapes() -> None:
    result = specialize(_module(), "add", {"B": 128})
    assert result.diagnostics == []
    assert result.ir is not None
    assert "Tile[f32, (128,)]" in format_ir(result.ir)
    types = {str(v.type) for op in result.ir.walk() for v in op.results}
    assert "Tile[f32, (128,)]" in types
    assert all("B" not in t for t in types)


def test_specialize_reports_a_non_power_of_two_const() -> None:
    result = specialize(_module(), "add", {"B": 100})
    assert result.ir is None
    codes = [(d.code, d.span.line) for d in result.diagnostics]
    assert codes == [("CT208", 8)]  # a tile of B; the Mut slab itself may be any size
    assert "100" in result.diagnostics[0].message


def test_specialize_finds_what_symbols_hid() -> None:
    # (BM, N) - (BM,) is fine while BM and N are unknown, but not once BM=4, N=128.
    result = specialize(_module(), "rows", {"BM": 4, "N": 128})
    assert [(d.code, d.span.line) for d in result.diagnostics] == [("CT201", 16)]
    assert "(4, 128) and (4,)" in result.diagnostics[0].message
    assert specialize(_module(), "rows", {"BM": 4, "N": 4}).diagnostics == []
