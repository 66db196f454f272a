"""The pure modules under the server: positions, options, suppressions and quick fixes."""

from __future__ import annotations

import tokenize

import pytest
from lsprotocol import types

from cutile.checker.edits import apply
from cutile.checker.fixes import astype_fixes, quick_fixes, sync_fixes
from cutile.compiler.api import check_source
from cutile.diagnostics.codes import CODES
from cutile.diagnostics.diagnostic import Diagnostic, Note, Span
from cutile.diagnostics.messages import DTYPE_MIX, MOVED_HERE, USE_AFTER_MOVE_LAUNCH, WHERE_DTYPES
from cutile.lsp import engine
from cutile.lsp.convert import to_lsp
from cutile.lsp.document import split_lines
from cutile.lsp.engine import TypedName
from cutile.lsp.hover import hover_at, ownership_hover
from cutile.lsp.inlay import inlay_hints
from cutile.lsp.links import code_url
from cutile.lsp.options import ClientOptions, parse_options
from cutile.lsp.positions import UTF8, UTF16, from_position, to_range
from cutile.lsp.suppress import suppression_fix
from cutile.reader.source import tokenize_text


def span(line: int, col: int, end_col: int, end_line: int | None = None) -> Span:
    return Span("m.py", line, col, end_line or line, end_col)


def test_ranges_count_utf16_and_utf8_units() -> None:
    lines = ["a = '😀' + b\n"]
    assert to_range(lines, span(1, 10, 11)).start.character == 11
    assert to_range(lines, span(1, 10, 11), UTF8).start.character == 13
    assert from_position(lines, types.Position(line=0, character=11)) == (1, 10)


def test_options_parse_and_report_errors() -> None:
    options, errors = parse_options({"cutile": {"enable": False, "inlayHints": False,
                                                "severityOverrides": {"ct2": "warning",
                                                                      "CT201": "off",
                                                                      "bad": "error",
                                                                      "CT3": "loud"}}})
    assert options.enable is False and options.inlay_hints is False
    assert options.severity_for("CT201") == (True, None)
    assert options.severity_for("CT202") == (True, types.DiagnosticSeverity.Warning)
    assert options.severity_for("CT301") == (False, None)
    assert len(errors) == 2


def test_notes_become_related_information() -> None:
    note = Note("'z' was moved here", span(3, 4, 5))
    diag = Diagnostic("CT301", "'z' was moved", span(5, 0, 1), notes=(note, Note("plain")))
    lines = ["\n", "\n", "    z\n", "\n", "z\n"]
    got = to_lsp(diag, "file:///m.py", lines, ClientOptions(docs_url="https://d/codes.md"))
    assert got is not None and got.related_information is not None
    [related] = got.related_information
    assert related.location.uri == "file:///m.py"
    assert related.location.range.start == types.Position(line=2, character=4)
    assert got.message.endswith("\nplain")
    assert got.code_description is not None
    assert got.code_description.href == "https://d/codes.md#ct301"


def test_suppression_appends_or_extends() -> None:
    source = "x = f(a,\n      b)\ny = 1  # cutile: ignore[CT201]\n"
    fix = suppression_fix(source, 1, "CT202")
    assert fix is not None
    assert apply(source, fix.edits).splitlines()[0] == "x = f(a,  # cutile: ignore[CT202]"
    fix = suppression_fix(source, 3, "CT301")
    assert fix is not None
    assert apply(source, fix.edits).splitlines()[2] == "y = 1  # cutile: ignore[CT201, CT301]"
    assert suppression_fix(source, 3, "CT201") is None
    assert suppression_fix(source, 1, "CT100") is None
    assert suppression_fix('s = """\nabc\n"""\n', 2, "CT201") is None


def test_suppression_fix_follows_the_registry() -> None:
    # The checker honours a comment exactly for the suppressible codes: offer it for those only.
    for code, entry in CODES.items():
        fix = suppression_fix("x = 1\n", 1, code)
        assert (fix is not None) == entry.suppressible, code
    assert not CODES["CT100"].suppressible and not CODES["CT902"].suppressible


KERNEL = '''\
import cutile as ct
from cutile import f16, f32


@ct.kernel
def k(z, x) -> None:
    a = ct.zeros((128,), f16)
    b = ct.zeros((128,), ct.f32)
    c = a + b * 2
    d = ct.where(a > 0, a, b)
'''


def _line_col(text: str, needle: str) -> tuple[int, int]:
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            return number, line.index(needle)
    raise AssertionError(needle)


def test_astype_fixes_convert_either_operand() -> None:
    line, col = _line_col(KERNEL, "a + b * 2")
    diag = DTYPE_MIX.at(span(line, col, col + len("a + b * 2")), op="add", a="f16", b="f32")
    fixes = quick_fixes(KERNEL, diag)
    results = [apply(KERNEL, f.edits).splitlines()[line - 1].strip() for f in fixes]
    assert results == ["c = a + (b * 2).astype(f16)", "c = a.astype(f32) + b * 2"]


def test_astype_fixes_read_fields_not_text() -> None:
    line, col = _line_col(KERNEL, "a + b * 2")
    where = span(line, col, col + len("a + b * 2"))
    # The same text without the fields it was built from offers nothing: no parsing of messages.
    text_only = Diagnostic("CT202", DTYPE_MIX.format(op="add", a="f16", b="f32"), where)
    assert astype_fixes(KERNEL, text_only) == []
    # Fields decide the dtypes even where the text would say otherwise.
    diag = DTYPE_MIX.at(where, op="add", a="f16", b="f32")
    tampered = Diagnostic(diag.code, "cannot add bf16 and f64 tiles", where, fields=diag.fields,
                          template=diag.template)
    assert [f.title for f in astype_fixes(KERNEL, tampered)] == [
        f.title for f in astype_fixes(KERNEL, diag)]


def test_frontend_findings_carry_their_fields() -> None:
    [diag] = [d for d in check_source(KERNEL, "m.py") if d.code == "CT202"
              and DTYPE_MIX.made(d)]
    assert (diag.fields["op"], diag.fields["a"], diag.fields["b"]) == ("add", "f16", "f32")
    [where] = [d for d in check_source(KERNEL, "m.py") if WHERE_DTYPES.made(d)]
    assert (where.fields["a"], where.fields["b"]) == ("f16", "f32")
    assert [f.title for f in quick_fixes(KERNEL, diag)] == [
        "Convert the right operand to f16 with .astype(f16)",
        "Convert the left operand to f32 with .astype(f32)"]


def test_astype_fix_for_where_uses_the_module_alias() -> None:
    source = KERNEL.replace("from cutile import f16, f32\n", "")
    line, col = _line_col(source, "ct.where(")
    diag = WHERE_DTYPES.at(span(line, col, col + len("ct.where(a > 0, a, b)")), a="f16", b="f32")
    first = astype_fixes(source, diag)[0]
    assert "ct.where(a > 0, a, b.astype(ct.f16))" in apply(source, first.edits)


HOST = '''\
z, x = make()
add(z, x.partition((4,)), B=128).sync()
print(z)
'''


def test_sync_fix_rebinds_the_launch_arguments() -> None:
    line, col = _line_col(HOST, "add(z")
    moved = Note(MOVED_HERE.format(name="z"), span(line, col + 4, col + 5))
    diag = USE_AFTER_MOVE_LAUNCH.at(span(3, 6, 7), (moved,), name="z", kernel="add")
    [fix] = quick_fixes(HOST, diag)
    assert fix.preferred
    assert apply(HOST, fix.edits).splitlines()[1] == (
        "z, _ = add(z, x.partition((4,)), B=128).sync()")
    unsynced = HOST.replace(".sync()", "")
    [fix] = sync_fixes(unsynced, diag)
    assert apply(unsynced, fix.edits).splitlines()[1] == (
        "z, _ = add(z, x.partition((4,)), B=128).sync()")


def test_hover_on_a_use_takes_the_latest_binding_in_its_function() -> None:
    source = "def k():\n    t = a\n    t = b\n    return t\n\ndef j():\n    return t\n"
    names = [TypedName("t", span(2, 4, 5), "Tile[f32, (128,)]"),
             TypedName("t", span(3, 4, 5), "Tile[f16, (64, 64)]")]
    info = hover_at(names, source, 4, 11)
    assert info is not None and "t: Tile[f16, (64, 64)]" in info.markdown
    assert (info.span.line, info.span.col) == (4, 11)
    assert hover_at(names, source, 7, 11) is None  # another function
    assert hover_at(names, source, 1, 4) is None


def test_utf16_is_the_default() -> None:
    assert UTF16 == "utf-16"


OWNED = '''\
import cutile as ct
from cutile import f32


def main():
    x = ct.ones((1024,), f32)
    both = [x for _ in range(2)]
    x = make()
    print(x)
    return both
'''


def test_ownership_hover_falls_back_to_the_latest_fact_until_a_rebinding() -> None:
    view = engine.ownership(OWNED, "m.py")
    live = "`x`: live tensor (f32, shape (1024,))"
    bound = ownership_hover(view, 6, 4)
    assert bound is not None and bound.markdown == live
    assert bound.span == span(6, 4, 5)
    # The comprehension is not analysed: it shows the state where it starts.
    inside = ownership_hover(view, 7, 12)
    assert inside is not None and inside.markdown == live and inside.span == span(7, 12, 13)
    assert ownership_hover(view, 8, 4) is None  # bound to something unknown
    assert ownership_hover(view, 9, 10) is None  # so nothing after it either
    assert ownership_hover(view, 5, 4) is None  # `main` is no tensor
    assert ownership_hover(engine.ownership("def f(:\n", "m.py"), 1, 4) is None


SLABS = '''\
import cutile as ct
from cutile import Acc, Mut, Tensor, f32


@ct.kernel
def k(z: Mut[Tensor[f32, (3, 5)]], w: Mut[Tensor[f32, (1, -1)]],
      a: Acc[Tensor[f32, (-1,)], "add"]) -> None:
    a.add(ct.zeros((4,), f32), (0,))
    for zt in z.tiles():
        zt.store(ct.zeros((4, 8), f32))
    n = w.shape[1]
'''


def test_hover_shows_slabs_of_mut_parameters_and_of_a_tiles_loop() -> None:
    names = engine.typed_names(SLABS, "k.py")

    def at(needle: str, offset: int = 0) -> str:
        line, col = _line_col(SLABS, needle)
        info = hover_at(names, SLABS, line, col + offset)
        assert info is not None, needle
        return info.markdown

    assert "Mut[Tensor[f32, (1, -1)]]: this block's slab, shape (1, dynamic)" in at("w.shape")
    assert "Mut[Tensor[f32, (3, 5)]]: this block's slab, shape (3, 5)" in at("z.tiles")
    assert "Slab[f32, (3, 5)] of z" in at("zt.store")
    assert 'Acc[Tensor[f32, (-1,)], "add"]: an accumulator every block may add into' in \
        at("a.add")
    hints = inlay_hints(names, SLABS, 9, 9)
    assert [h.label for h in hints] == [": Slab[f32, (3, 5)] of z"]


def test_lines_break_only_where_lsp_says() -> None:
    assert split_lines("a\x0cb\u2028c\x85d\r\ne\rf\ng") == ["a\x0cb\u2028c\x85d\r\n", "e\r",
                                                            "f\n", "g"]
    assert split_lines("") == []


def test_options_accept_code_names_and_log_unknown_keys() -> None:
    options, errors = parse_options({"cutile": {"enabel": False, "severityOverride": {},
                                                "severityOverrides": {"use-after-move": "off",
                                                                      "CT77": "off"}}})
    assert options.enable is True
    assert options.severity_for("CT301") == (True, None)
    assert options.severity_for("CT302") == (False, None)
    assert [e.split(" (")[0] for e in errors] == [
        "unknown setting 'enabel'", "unknown setting 'severityOverride'",
        "severityOverrides: 'CT77' is not a code, a prefix or a code name"]
    assert parse_options({"cutile": {"trace": {"server": "off"}}})[1] == []
    assert parse_options({"cutile": "bad"})[1] == ["settings must be an object, got str"]


def test_a_docs_url_fragment_gives_way_to_the_code_anchor() -> None:
    assert code_url("CT202", "https://x.example/codes.md?v=1#top") == (
        "https://x.example/codes.md?v=1#ct202")


SURROGATE = '''import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def k(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    t = ct.load_tile_like(x, z)  # \ud800
    z.store(t * 2)
'''


def test_text_the_tokenizer_refuses_is_no_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    """An editor can send a lone surrogate. Python 3.12+ tokenizes in C, which refuses it
    with UnicodeEncodeError (3.11 tokenized it): the suppression fix, which reads tokens,
    then offers nothing, as for any text that does not tokenize."""
    suppression_fix(SURROGATE, 7, "CT301")  # this Python's own tokenizer: no traceback

    def refuses(readline: object) -> None:
        raise UnicodeEncodeError("utf-8", "\ud800", 0, 1, "surrogates not allowed")

    monkeypatch.setattr(tokenize, "generate_tokens", refuses)
    assert tokenize_text(SURROGATE) == ([], False)
    assert suppression_fix(SURROGATE, 7, "CT301") is None
