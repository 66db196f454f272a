"""Error quality: spans point at the offending expression, messages use plain words, every
message and code is registered and documented, and rendering has the promised shape."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from cutile.compiler import api, check_source, render_concise, render_full
from cutile.compiler.ops import FUNCTIONS
from cutile.compiler.unit import check_kernel
from cutile.diagnostics import messages as msg
from cutile.diagnostics.codes import CODES, Family
from cutile.diagnostics.diagnostic import Diagnostic

CASES = Path(__file__).parent / "cases" / "frontend"

SPANS_SOURCE = '''\
import cutile as ct
from cutile import Const, Mut, Tensor, f16, f32, i32


@ct.kernel
def k(z: Mut[Tensor[f32, (128,)]], x: Tensor[f32, (-1,)], y: Tensor[f16, (-1,)], w) -> None:
    a = ct.load_tile_like(x, z)
    b = ct.load_tile_like(y, z)
    c = a + ct.zeros((64,), f32)
    d = a * b
    e = ct.sum(a, 1)
    f = ct.zeros((100,), f32)
    g = a.reshape((64,))
    h = ct.exp(a.astype(i32))
    z.store(b)
    m = ct.expp(a)
    n = ct.cumsum(a)
    o = [a]
    p = a.astype(i32) + 0.5
    q = ct.mma(a, a, a)
    try:
        pass
    finally:
        pass
    r = undefined
    z.store(a, (1,))
'''

# (code, line, first column, end column (exclusive), the text the span covers); 0-based columns
EXPECTED_SPANS = [
    ("CT107", 6, 81, 82, "w"),
    ("CT201", 9, 8, 32, "a + ct.zeros((64,), f32)"),
    ("CT202", 10, 12, 13, "b"),
    ("CT206", 11, 18, 19, "1"),
    ("CT208", 12, 17, 23, "(100,)"),
    ("CT207", 13, 18, 23, "(64,)"),
    ("CT211", 14, 15, 28, "a.astype(i32)"),
    ("CT213", 15, 12, 13, "b"),
    ("CT109", 16, 8, 15, "ct.expp"),
    ("CT110", 17, 8, 20, "ct.cumsum(a)"),
    ("CT102", 18, 8, 11, "[a]"),
    ("CT214", 19, 24, 27, "0.5"),
    ("CT204", 20, 8, 23, "ct.mma(a, a, a)"),
    ("CT101", 21, 4, 7, "try"),
    ("CT103", 25, 8, 17, "undefined"),
    ("CT407", 26, 15, 19, "(1,)"),
]


def test_spans_point_at_the_offending_expression() -> None:
    lines = SPANS_SOURCE.splitlines()
    got = []
    for d in check_source(SPANS_SOURCE, "k.py"):
        s = d.span
        assert s.line == s.end_line, d
        got.append((d.code, s.line, s.col, s.end_col, lines[s.line - 1][s.col:s.end_col]))
    assert got == EXPECTED_SPANS


def test_dtype_mismatch_notes_the_other_operand() -> None:
    diags = [d for d in check_source(SPANS_SOURCE, "k.py") if d.code == "CT202"]
    (d,) = diags
    (note,) = d.notes
    assert note.span is not None and (note.span.line, note.span.col, note.span.end_col) == \
        (10, 8, 9)
    assert note.message == "this is a f32 tile of shape (128,)"


def test_error_in_a_helper_points_into_the_helper_and_notes_the_call() -> None:
    src = ("import cutile as ct\nfrom cutile import Mut, Tensor, f16, f32\n\n"
           "@ct.function\ndef h(t):\n    return t + ct.zeros((4,), f16)\n\n"
           "@ct.kernel\ndef k(z: Mut[Tensor[f32, (4,)]]) -> None:\n    z.store(h(z.load()))\n")
    (d,) = check_source(src, "h.py")
    assert (d.code, d.span.line, d.span.col, d.span.end_col) == ("CT202", 6, 15, 34)
    assert [(n.message, n.span.line if n.span else 0) for n in d.notes][-1] == \
        ("in the call from here", 10)


# -- plain words ----------------------------------------------------------------------------------
INTERNAL = re.compile(
    r"TileType|TensorType|PartitionType|ConstType|TupleType|SlabType|SlabVal|SymInt|TupleVal|"
    r"\bValue\b|Unknown|Unbound|Poisoned|Reject|Traceback|object at 0x|<\w[^>]*>|"
    r"\bNone\(|expr=|kind=|\bcst\.|libcst|\w+Error\b")

EXTRA_SNIPPETS = [
    "q = ct.permute(t, (0, 0))", "q = ct.full((B,), t, f32)", "q = ct.cumsum(1.0, 0)",
    "q = None + t", "q = 'abc' + t", "q = ct.f32 + 1", "q = D + 1", "q = t.transpose",
    "q = 10.0 ** 400", "q = 1 // 0", "q = ct.exp(1000.0)", "q = ct.log(-1.0)",
    "q = t.astype(i32) + R", "while t: pass", "q = ct.reshape(t, (B,))", "q = range(4)",
    "q = ct.load_tile_like(v, t)", "q = ct.mma(1.0, 2.0, 3.0)", "q = ct.zeros(x.shape, f32)",
    "q = z.store(t, (None,))", "q = (B, C) + (1,)", "q = print", "q = ct", "q = ct.Tensor",
    "q = h", "q = ct.block_id(5)", "q = not t", "q = t[::2]", "for i in range(s): pass",
    "q = v.load_tile((B,), ct.zeros((1,), i32))",
]
SNIPPET_HEAD = '''\
import cutile as ct
from cutile import Const, DType, Mut, Tensor, f32, i32
C = 4
@ct.function
def h(a, b=1):
    return a
@ct.kernel
def k(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1, -1)], v: Tensor[f32, (-1,)], s: f32,
      B: Const[int], D: Const[DType], R: Const[float]) -> None:
    t = ct.load_tile_like(v, z)
'''


def _all_diagnostics() -> list[Diagnostic]:
    out = []
    for path in sorted(CASES.glob("*.py")):
        out += check_source(path.read_text(), path.name)
    for snippet in EXTRA_SNIPPETS:
        out += check_source(SNIPPET_HEAD + "    " + snippet + "\n", "snippet.py")
    return out


def test_messages_use_no_internal_names() -> None:
    diags = _all_diagnostics()
    assert len(diags) > 300
    bad = []
    for d in diags:
        assert d.code != "CT999", d
        for text in [d.message, *(n.message for n in d.notes)]:
            if INTERNAL.search(text):
                bad.append(f"{d.code}: {text}")
    assert bad == []


def test_every_snippet_reports_exactly_one_diagnostic() -> None:
    for snippet in EXTRA_SNIPPETS:
        if snippet == "q = D + 1":
            continue
        diags = check_source(SNIPPET_HEAD + "    " + snippet + "\n", "snippet.py")
        assert len(diags) == 1, (snippet, diags)


def test_the_internal_name_pattern_catches_what_it_should() -> None:
    for text in ["got TileType(dtype=f32)", "a <frontend.values.Unknown> value",
                 "Traceback (most recent call last)", "SymInt(expr='B')", "KeyError: x"]:
        assert INTERNAL.search(text), text
    assert not INTERNAL.search("cannot add tiles of shapes (128,) and (64,): not broadcastable")


# -- registries -----------------------------------------------------------------------------------
def test_every_message_is_bound_to_a_registered_code() -> None:
    found = {name: m for name, m in vars(msg).items() if isinstance(m, msg.Message)}
    assert len(found) > 40
    for name, m in found.items():
        assert m.code in CODES, name
        assert m.template.strip() and m.template == m.template.strip(), name
        assert not m.template[0].isupper() or m.template.split()[0].isupper() or \
            m.template.startswith(("Const", "Mut")), name


def test_every_frontend_code_has_a_message() -> None:
    used = {m.code for m in vars(msg).values() if isinstance(m, msg.Message)}
    frontend = {c for c, e in CODES.items() if e.family in (Family.SYNTAX, Family.TYPES)}
    assert frontend - used == set()


def test_every_code_has_docs() -> None:
    for code, entry in CODES.items():
        assert re.fullmatch(r"CT\d{3}", code)
        assert re.fullmatch(r"[a-z]+(-[a-z0-9]+)*", entry.name), code
        assert entry.summary and not entry.summary.endswith("."), code
        assert len(entry.doc) > 40 and entry.doc.endswith((".", ")")), code
    assert len({c.name for c in CODES.values()}) == len(CODES)


# -- rendering ------------------------------------------------------------------------------------
def test_render_concise_and_full_shape() -> None:
    lines = SPANS_SOURCE.splitlines()
    d = next(d for d in check_source(SPANS_SOURCE, "k.py") if d.code == "CT202")
    assert render_concise(d) == ("k.py:10:13: CT202 cannot multiply f32 and f16 tiles: use "
                                 ".astype() to convert one of them")
    assert render_full(d, lines).splitlines() == [
        "k.py:10:13: error[CT202]: cannot multiply f32 and f16 tiles: use .astype() to convert "
        "one of them",
        "   |",
        "10 |     d = a * b",
        "   |             ^",
        "  = note: k.py:10:9: this is a f32 tile of shape (128,)",
        "   |",
        "10 |     d = a * b",
        "   |         ^",
    ]


def test_render_full_underlines_the_whole_expression() -> None:
    lines = SPANS_SOURCE.splitlines()
    d = next(d for d in check_source(SPANS_SOURCE, "k.py") if d.code == "CT201")
    frame = render_full(d, lines).splitlines()
    assert frame[1:] == ["  |", "9 |     c = a + ct.zeros((64,), f32)",
                         "  |         " + "^" * len("a + ct.zeros((64,), f32)")]


# -- the last-resort guard ------------------------------------------------------------------------
GUARD_SOURCE = '''\
import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def broken(z: Mut[Tensor[f32, (64,)]]) -> None:
    z.store(ct.exp(z.load()))


@ct.kernel
def fine(z: Mut[Tensor[f32, (64,)]]) -> None:
    z.store(z.load() + ct.zeros((32,), f32))
'''


def test_an_internal_exception_becomes_ct999_at_the_kernel(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*_: object) -> object:
        raise KeyError("the bug")

    monkeypatch.setitem(FUNCTIONS, "exp", replace(FUNCTIONS["exp"], rule=boom))
    diags = check_source(GUARD_SOURCE, "g.py")
    assert [(d.code, d.span.line, d.span.col, d.span.end_col) for d in diags] == [
        ("CT999", 6, 4, 10), ("CT201", 12, 12, 43)]
    assert "checking 'broken' failed with KeyError: 'the bug'" in diags[0].message
    assert "\n" not in diags[0].message
    assert check_kernel(GUARD_SOURCE, "g.py", "broken")[0].code == "CT999"


def test_an_internal_exception_while_parsing_becomes_ct999(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(source: str, path: str) -> object:
        raise RuntimeError("parser bug\nsecond line")

    monkeypatch.setattr(api, "parse_module", boom)
    (d,) = check_source("x = 1\n", "p.py")
    assert d.code == "CT999" and (d.span.line, d.span.col) == (1, 0)
    assert "RuntimeError: parser bug;" in d.message
