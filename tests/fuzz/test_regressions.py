"""One regression case per crash class the fuzzers found in the checker, the frontend and the
language server (runtime classes live with the runtime tests)."""

from __future__ import annotations

import ast
import codecs
import string
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from cutile.checker.analyze import analyze_source, analyze_stdin, check_file
from cutile.checker.config import Config
from cutile.checker.host import ProjectIndex
from cutile.compiler.unit import check_kernel
from cutile.diagnostics import messages
from cutile.diagnostics.diagnostic import Diagnostic
from cutile.reader import source as frontend_source
from cutile.reader.source import MAX_NESTING, analysis_guard

from . import checker_target, corpus, lsp_target

HEAD = '''import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def k(z: Mut[Tensor[f32, (128,)]]) -> None:
    t = ct.zeros((128,), f32)
'''
LINE = HEAD.count("\n") + 1  # the line of the first statement added below HEAD
DEEP = {
    "sum": lambda n: "    u = t" + " + t" * n + "\n    z.store(u)\n",
    "negation": lambda n: "    u = " + "-" * n + "t\n    z.store(u)\n",
    "method chain": lambda n: "    u = t" + ".astype(f32)" * n + "\n    z.store(u)\n",
    "attribute chain": lambda n: "    u = ct" + ".a" * n + "\n",
    "host sum": lambda n: "\n\nx = 1" + " + 1" * n + "\n",
    "host chain": lambda n: "\n\ny = ct.zeros((128,), f32)" + ".reshape((128,))" * n + "\n",
}


def codes(diags: list[Diagnostic]) -> list[str]:
    return [d.code for d in diags]


@pytest.mark.parametrize("form", sorted(DEEP))
@pytest.mark.parametrize("depth", [MAX_NESTING + 5, 1000, 6000])
def test_deep_nesting_is_a_ct100_at_the_statement(form: str, depth: int) -> None:
    src = HEAD + DEEP[form](depth)
    found = analyze_source(src, "m.py")
    assert codes(found) == ["CT100"], found
    assert "levels deep" in found[0].message
    expected_line = LINE + (2 if form.startswith("host") else 0)
    # Python's parser itself fails on the deepest: the span is then the enclosing top-level
    # statement (the kernel), found from the tokens
    assert found[0].span.line in (expected_line, LINE - 2)


def test_nesting_below_the_limit_is_analysed() -> None:
    src = HEAD + DEEP["sum"](MAX_NESTING - 60)
    assert analyze_source(src, "m.py") == []


def test_the_jit_reports_the_same_nesting_error() -> None:
    src = HEAD + DEEP["sum"](MAX_NESTING + 5)
    assert codes(check_kernel(src, "m.py", "k")) == ["CT100"]


@pytest.mark.parametrize("where", ["kernel", "host"])
def test_elif_chains(where: str) -> None:
    def chain(n: int) -> str:
        body = "if x:\n    pass\n" + "elif x:\n    pass\n" * n
        if where == "host":
            return HEAD + "    z.store(t)\n\n\nx = 1\n" + body
        return HEAD + "".join("    " + line + "\n" for line in body.splitlines())

    assert not {"CT100", "CT999"} & set(codes(analyze_source(chain(150), "m.py")))
    assert codes(analyze_source(chain(2000), "m.py")) == ["CT100"]


def test_blocks_nested_as_deep_as_python_allows() -> None:
    body = "".join("    " * (i + 1) + "if x:\n" for i in range(95)) + "    " * 96 + "pass\n"
    found = analyze_source(HEAD + body, "m.py")
    assert "CT999" not in codes(found) and "CT100" not in codes(found)


def _check_bytes(tmp_path: Path, data: bytes) -> list[Diagnostic]:
    path = tmp_path / "m.py"
    path.write_bytes(data)
    _, found = check_file(str(path), Config(), ProjectIndex())
    return found


ENCODINGS = [
    (b"# -*- coding: bogus -*-\nx = 1\n", "names 'bogus', which is not a known encoding", 1, 0),
    (b"# coding: hex\nx = 1\n", "which is not a text encoding", 1, 0),
    (b"#!/usr/bin/env python\n# coding: hex\n", "which is not a text encoding", 2, 0),
    (codecs.BOM_UTF8 + b"# coding: latin-1\nx = 1\n", "byte order mark", 1, 0),
    (b"x = 1\ny = '\xff'\n", "byte 0xff on line 2 is not valid UTF-8", 2, 5),
    (b"x = '\xff'\n", "not valid UTF-8", 1, 5),
    # the column counts characters: three before the bad byte, six bytes
    ("é€x = '".encode() + b"\xc3'\n", "byte 0xc3 on line 1 is not valid UTF-8", 1, 7),
    (codecs.BOM_UTF8 + b"x = '\xff'\n", "byte 0xff on line 1", 1, 5),
    (b"x = 1\ns = '\xed\xa0\x80'\n", "starts the lone surrogate U+D800", 2, 5),
    (b"# coding: ascii\nx = '\xe9'\n", "byte 0xe9 on line 2 is not valid ascii", 2, 5),
]


@pytest.mark.parametrize(("data", "words", "line", "col"), ENCODINGS)
def test_odd_encodings_are_a_ct906_at_the_byte(tmp_path: Path, data: bytes, words: str,
                                               line: int, col: int) -> None:
    for found in (_check_bytes(tmp_path, data), analyze_stdin(data, None).diagnostics):
        assert codes(found) == ["CT906"], found
        assert words in found[0].message, found[0].message
        assert (found[0].span.line, found[0].span.col) == (line, col)


@pytest.mark.parametrize(("text", "line", "col", "words"), [
    ("x = 1\ny = 2\0\n", 2, 5, "NUL character"),
    ("x = 1\r\ny = '\0'\n", 2, 5, "NUL character"),
    ("x = 1\nyy = '\udc80'\n", 2, 6, "lone surrogate U+DC80"),
])
def test_text_python_refuses_before_parsing_is_a_ct100_at_the_character(
        text: str, line: int, col: int, words: str) -> None:
    (found,) = analyze_source(text, "m.py")
    assert found.code == "CT100" and words in found.message
    assert (found.span.line, found.span.col) == (line, col)


@pytest.mark.parametrize("data", [codecs.BOM_UTF8 + b"x = 1\n",
                                  b"# coding: latin-1\nx = '\xe9'\n",
                                  codecs.BOM_UTF8 + b"# coding: utf-8\nx = 1\n"])
def test_encodings_python_accepts_are_checked(tmp_path: Path, data: bytes) -> None:
    assert _check_bytes(tmp_path, data) == []


def test_undecodable_stdin_through_the_command_line() -> None:
    done = subprocess.run([sys.executable, "-m", "cutile.checker", "-"],
                          input=b"# coding: bogus\nx = 1\n", capture_output=True, check=False)
    assert done.returncode == 1, done.stderr
    assert b"CT906" in done.stdout and b"Traceback" not in done.stderr


@pytest.mark.parametrize("text", ["x = '\ud800'\n", "x = 1\0\n", "\\\n", "x = (\n"])
def test_text_python_rejects_is_a_ct100(text: str) -> None:
    assert codes(analyze_source(text, "m.py")) == ["CT100"]


@pytest.mark.parametrize("disk", ["ééééé = 1\n" * 3, "x\n", "", None])
def test_a_buffers_syntax_error_does_not_read_the_file_on_disk(tmp_path: Path,
                                                              disk: str | None) -> None:
    """Found by the buffer-vs-disk fuzzer: Python's parser took the error line (and counted
    the column in it) from the file of the name it was given."""
    path = tmp_path / "m.py"
    if disk is not None:
        path.write_text(disk, encoding="utf-8")
    (found,) = analyze_source("x = (1 +\ny = 2\nz = 1 +\n", str(path))
    assert (found.code, found.span.line, found.span.col) == ("CT100", 1, 4), found


def test_findings_do_not_depend_on_warning_filters() -> None:
    """`python -W error` made Python's warning about an invalid escape a SyntaxError."""
    import warnings

    src = HEAD + "    s = '\\d'\n    z.store(t)\n"
    plain = analyze_source(src, "m.py")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert analyze_source(src, "m.py") == plain
    assert "CT100" not in codes(plain)


def test_quoted_annotations_do_not_depend_on_warning_filters() -> None:
    """A quoted annotation is parsed as its module is: under `python -W error` the warning
    about an invalid escape inside it made it 'not valid Python' instead of a bad Acc op."""
    import warnings

    src = HEAD.replace("from cutile import Mut", "from cutile import Acc, Mut").replace(
        "def k(z: Mut[Tensor[f32, (128,)]])",
        "def k(z: Mut[Tensor[f32, (128,)]], a: \"Acc[Tensor[f32, (4,)], 'a\\\\d']\")"
    ) + "    z.store(t)\n"
    plain = analyze_source(src, "m.py")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert analyze_source(src, "m.py") == plain
    assert codes(plain) == ["CT107"] and "with op one of" in plain[0].message


def test_a_module_importing_itself_is_read_from_its_buffer(tmp_path: Path) -> None:
    body = HEAD.replace("import cutile as ct\n", "import cutile as ct\nimport m\n")
    buffer = body + "    z.store(t)\n\n\nz = ct.zeros((128,), f32).partition((128,))\nm.k(z, 5)\n"
    path = tmp_path / "m.py"
    alone = analyze_source(buffer, str(path))
    path.write_text(buffer.replace("def k(z: Mut[Tensor[f32, (128,)]])",
                                   "def k(z: Mut[Tensor[f32, (128,)]], a: int, b: int)"))
    assert analyze_source(buffer, str(path)) == alone
    assert codes(alone) == ["CT406"]  # the buffer's `k` takes one argument


def test_every_message_keeps_braces_of_user_text() -> None:
    """User text (names, printf formats, paths) with braces goes through message templates."""
    found = 0
    for value in vars(messages).values():
        if not isinstance(value, messages.Message):
            continue
        fields = {f for _, f, _, _ in string.Formatter().parse(value.template) if f}
        text = value.format(**{f.split("!")[0]: "{user} {0} {" for f in fields})
        assert not fields or "{user} {0} {" in text or "'{user} {0} {'" in text
        found += 1
    assert found > 100


def test_kernel_text_with_braces() -> None:
    src = HEAD + "    ct.printf('{} {x} {{', t)\n    q = {'{a}': 1}\n    z.store(t)\n"
    assert codes(analyze_source(src, "m{x}.py")) == ["CT102"]


def test_findings_do_not_depend_on_unrelated_code() -> None:
    """Every seed's findings stay put when comments go above it and a kernel below it."""
    for text in corpus.seeds():
        assert checker_target.check(text) is None


def test_gc_pauses_nest_across_threads() -> None:
    import gc

    assert gc.isenabled()
    inside = threading.Event()
    leave = threading.Event()

    def hold() -> None:
        with analysis_guard():
            inside.set()
            leave.wait(5)

    other = threading.Thread(target=hold)
    other.start()
    inside.wait(5)
    with analysis_guard():
        assert not gc.isenabled()
    assert not gc.isenabled()  # the other thread is still analysing
    leave.set()
    other.join(5)
    assert gc.isenabled()


def test_the_nesting_walk_skips_short_lines() -> None:
    info = frontend_source.parse_module(HEAD + "    z.store(t)\n" * 10, "m.py")
    assert not isinstance(info, Diagnostic)
    kernel = info.tree.body[-1]
    assert isinstance(kernel, ast.FunctionDef)
    assert frontend_source._shallow(kernel.body[-1], MAX_NESTING)  # one short line
    assert not frontend_source._shallow(kernel, MAX_NESTING)


def test_language_server_survives_malformed_and_unopened_requests() -> None:
    """Requests without params, with wrong types, for unknown methods and unopened files."""
    messages_ = [{"raw": body} for body in lsp_target.BAD_BODIES] + [
        lsp_target._request(50, "textDocument/hover", {
            "textDocument": {"uri": "file:///nowhere/x.py"},
            "position": {"line": 3, "character": 2}}),
        lsp_target._request(51, "textDocument/inlayHint", {
            "textDocument": {"uri": "file:///nowhere/x.py"},
            "range": {"start": {"line": 0, "character": 0},
                      "end": {"line": 9, "character": 0}}}),
    ]
    assert lsp_target.check(messages_) is None


def test_language_server_survives_odd_documents_and_edits() -> None:
    uri = lsp_target.URIS[0]
    deep = HEAD + DEEP["sum"](6000)
    messages_ = [
        lsp_target._note("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": deep}}),
        lsp_target._note("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": 2},
            "contentChanges": [{"range": {"start": {"line": 10**6, "character": 5},
                                          "end": {"line": 2, "character": 10**6}},
                                "text": "x = '\ud800'\n"}]}),
        lsp_target._request(60, "textDocument/hover", {
            "textDocument": {"uri": uri}, "position": {"line": 2**31 - 1, "character": 7}}),
        lsp_target._request(61, "textDocument/codeAction", {
            "textDocument": {"uri": uri}, "context": {"diagnostics": []},
            "range": {"start": {"line": 9, "character": 0}, "end": {"line": 0, "character": 0}}}),
    ]
    assert lsp_target.check(messages_) is None


def test_quoted_annotation_errors_point_at_the_string() -> None:
    """Found by the stability property: the span was computed inside the string (line 1)."""
    src = HEAD.replace("z: Mut[Tensor[f32, (128,)]]", "z: Mut[Tensor[f32, (128,)]], n: 'f16x'")
    (found,) = analyze_source(src, "m.py")
    line = next(i for i, text in enumerate(src.splitlines(), 1) if "def k" in text)
    assert found.code == "CT107" and found.span.line == line
    assert src.splitlines()[line - 1][found.span.col:found.span.end_col] == "'f16x'"


@pytest.mark.parametrize("expr", ["1 << 0.5", "2.5 >> 1", "1.5 & 3", "3 % 0"])
def test_constant_folding_of_mismatched_constants(expr: str) -> None:
    found = analyze_source(HEAD + f"    q = {expr}\n    z.store(t)\n", "m.py")
    assert codes(found) == ["CT211"], found


@pytest.mark.parametrize("expr", ["10 ** 30 ** 31", "1 << 10 ** 12", "(-3) ** 10 ** 9",
                                  "(1 << 4000) * (1 << 4000)"])
def test_folding_huge_constants_is_an_error_not_a_hang(expr: str) -> None:
    """Found as a hang: the frontend folded the exact integer."""
    found = analyze_source(HEAD + f"    q = {expr}\n    z.store(t)\n", "m.py")
    assert codes(found) == ["CT211"] and "too large" in found[0].message


def test_deep_expressions_in_mutually_recursive_helpers() -> None:
    """Found as a CT999 RecursionError: nesting below the limit, inlined through helpers, under
    a deep caller's stack; the analysis gets room for it and reports the recursion (CT105)."""
    nested = "ct.exp(" * 190 + "t" + ")" * 190
    src = ("import cutile as ct\n\n@ct.function\ndef down(t):\n    return up(t)\n\n"
           f"@ct.function\ndef up(t):\n    x = {nested}\n    return down(t)\n")

    def below(n: int) -> list[Diagnostic]:
        return below(n - 1) if n else analyze_source(src, "m.py")

    assert "CT105" in codes(below(100)) and "CT999" not in codes(below(100))


def test_hover_on_a_module_too_deep_for_libcst() -> None:
    """Found by the LSP fuzzer: a hover parsed the document with libcst, whose visitors raised
    RecursionError on nesting the checker itself handles."""
    from cutile.checker.regions import parse

    deep = HEAD + "    u = " + "ct.exp(" * 190 + "t" + ")" * 190 + "\n    z.store(u)\n"
    assert parse(deep) is None  # libcst gives up; hover and inlay hints go without it
    uri = lsp_target.URIS[0]
    messages_ = [
        lsp_target._note("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": deep}}),
        lsp_target._request(70, "textDocument/hover", {
            "textDocument": {"uri": uri}, "position": {"line": 7, "character": 5}}),
        lsp_target._request(71, "textDocument/inlayHint", {
            "textDocument": {"uri": uri},
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 9, "character": 0}}}),
    ]
    assert lsp_target.check(messages_) is None



def test_language_server_survives_undecodable_files_and_documents(tmp_path: Path) -> None:
    """Documents with NUL and lone surrogates, over files on disk that do not decode (the
    module, its pyproject.toml and a module it imports)."""
    (tmp_path / "m.py").write_bytes(b"x = '\xff'\n")
    (tmp_path / "other.py").write_bytes(b"# coding: bogus\n")
    (tmp_path / "pyproject.toml").write_bytes(b"[tool.cutile-check]\nselect = ['\xff']\n")
    uri = (tmp_path / "m.py").as_uri()
    text = HEAD + "    s = '\ud800'\0\n    z.store(t)\n\nfrom other import k2\nk2(1)\n"
    messages_ = [
        lsp_target._note("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": text}}),
        lsp_target._note("textDocument/didSave", {"textDocument": {"uri": uri}}),
        lsp_target._note("textDocument/didSave", {
            "textDocument": {"uri": (tmp_path / "pyproject.toml").as_uri()}}),
        lsp_target._request(80, "textDocument/hover", {
            "textDocument": {"uri": uri}, "position": {"line": 7, "character": 9}}),
        lsp_target._request(81, "textDocument/codeAction", {
            "textDocument": {"uri": uri}, "context": {"diagnostics": []},
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 12, "character": 0}}}),
    ]
    assert lsp_target.check(messages_) is None


@pytest.mark.parametrize("expr", ["ct.zeros((-1,), f32)[0:4]", "ct.zeros((-1, 3), f32)[1]",
                                  "ct.arange(-3, f32)[0:2].partition((2,))",
                                  "ct.zeros((-4,), f32).partition((2,))"])
def test_host_views_of_a_tensor_with_a_negative_extent(expr: str) -> None:
    """Found as a CT999 (slice.indices of a negative length): the constructor refuses such a
    shape at run time, so the analysis knows nothing of it."""
    src = "import cutile as ct\nfrom cutile import f32\n\nx = " + expr + "\n"
    assert "CT999" not in codes(analyze_source(src, "m.py"))
