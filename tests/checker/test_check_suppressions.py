"""`# cutile: ignore[...]` and `# cutile: ignore-file[...]`, as data: each case is a source, the
findings the analysis reported (line, code), and what is left after suppression, CT902 (unused)
and CT903 (unknown code) included."""

from __future__ import annotations

from pathlib import Path

import pytest
from checker_fixtures import Runner, write

from cutile.checker.analyze import finish
from cutile.checker.config import Config
from cutile.diagnostics.diagnostic import Diagnostic, Severity, Span

Case = tuple[str, list[tuple[int, str]], list[tuple[int, str]]]

CASES: dict[str, Case] = {
    "same line": (
        "use(z)  # cutile: ignore[CT301]\n",
        [(1, "CT301")], []),
    "other code on the line stays": (
        "use(z)  # cutile: ignore[CT301]\n",
        [(1, "CT302")], [(1, "CT302"), (1, "CT902")]),
    "several codes": (
        "use(z, z)  # cutile: ignore[CT301, CT302]\n",
        [(1, "CT301"), (1, "CT302")], []),
    "space separated, prefix and name": (
        "use(z, z)  # cutile: ignore[CT30 shape-mismatch]\n",
        [(1, "CT301"), (1, "CT201")], []),
    "bare ignore silences everything on the statement": (
        "use(z, z)  # cutile: ignore\n",
        [(1, "CT301"), (1, "CT201")], []),
    "comment on the first line of a multi-line call": (
        "launch(  # cutile: ignore[CT301]\n"
        "    z,\n"
        "    x,\n"
        ").sync()\n",
        [(3, "CT301")], []),
    "comment on the last line of a multi-line call": (
        "launch(\n"
        "    z,\n"
        "    x,\n"
        ").sync()  # cutile: ignore[CT301]\n",
        [(2, "CT301")], []),
    "comment on a middle line, finding on the first": (
        "z, x = launch(\n"
        "    z,  # cutile: ignore[CT305]\n"
        "    x)\n",
        [(1, "CT305")], []),
    "multi-line def header": (
        "def k(\n"
        "    z,\n"
        "    x,\n"
        ") -> None:  # cutile: ignore[CT107]\n"
        "    pass\n",
        [(3, "CT107")], []),
    "does not reach the next statement": (
        "use(z)  # cutile: ignore[CT301]\n"
        "use(z)\n",
        [(2, "CT301")], [(1, "CT902"), (2, "CT301")]),
    "a comment line above does not count": (
        "# cutile: ignore[CT301]\n"
        "use(z)\n",
        [(2, "CT301")], [(1, "CT902"), (2, "CT301")]),
    "inside a string it is not a comment": (
        "s = '# cutile: ignore[CT301]'\n",
        [(1, "CT301")], [(1, "CT301")]),
    "inside a multi-line string either": (
        "s = '''\n# cutile: ignore[CT301]\n'''\n",
        [(2, "CT301")], [(2, "CT301")]),
    "multi-line string statement shares the comment": (
        "use('''\nabc\n''', z)  # cutile: ignore[CT301]\n",
        [(1, "CT301")], []),
    "unused bare ignore": (
        "x = 1  # cutile: ignore\n",
        [], [(1, "CT902")]),
    "unknown code": (
        "use(z)  # cutile: ignore[CT301, CT3011]\n",
        [(1, "CT301")], [(1, "CT903")]),
    "only unknown codes suppress nothing": (
        "use(z)  # cutile: ignore[nonsense]\n",
        [(1, "CT301")], [(1, "CT301"), (1, "CT903")]),
    "empty brackets": (
        "use(z)  # cutile: ignore[]\n",
        [(1, "CT301")], [(1, "CT301"), (1, "CT903")]),
    "ignore-file in the leading comments": (
        "#!/usr/bin/env python\n"
        "# cutile: ignore-file[CT3]\n"
        "use(z)\n"
        "use(y)\n",
        [(3, "CT301"), (4, "CT305"), (4, "CT201")], [(4, "CT201")]),
    "ignore-file after the module docstring": (
        '"""Docs."""\n'
        "# cutile: ignore-file[CT201]\n"
        "use(z)\n",
        [(3, "CT201")], []),
    "bare ignore-file": (
        "# cutile: ignore-file\n"
        "use(z)\n",
        [(2, "CT201"), (2, "CT301")], []),
    "partly unused ignore-file": (
        "# cutile: ignore-file[CT2, CT4]\n"
        "use(z)\n",
        [(2, "CT201")], [(1, "CT902")]),
    "ignore-file after code has no effect": (
        "import cutile\n"
        "# cutile: ignore-file[CT201]\n"
        "use(z)\n",
        [(3, "CT201")], [(2, "CT902"), (3, "CT201")]),
    "ignore-file as a trailing comment has no effect": (
        "use(z)  # cutile: ignore-file[CT201]\n",
        [(1, "CT201")], [(1, "CT201"), (1, "CT902")]),
    "other text in the comment": (
        "use(z)  # noqa: E501  # cutile: ignore[CT301] -- moved on purpose\n",
        [(1, "CT301")], []),
    "cutile: ignored is not the directive": (
        "use(z)  # cutile: ignored[CT301]\n",
        [(1, "CT301")], [(1, "CT301")]),
    "configuration findings cannot be suppressed": (
        "x = 1  # cutile: ignore[CT999]\n",
        [(1, "CT999")], [(1, "CT902"), (1, "CT999")]),
}


def finding(line: int, code: str) -> Diagnostic:
    return Diagnostic(code, "finding", Span("t.py", line, 0, line, 1))


@pytest.mark.parametrize("name", sorted(CASES))
def test_suppression_case(name: str) -> None:
    source, reported, expected = CASES[name]
    out = finish([finding(line, code) for line, code in reported], source, "t.py", Config())
    assert sorted((d.span.line, d.code) for d in out) == sorted(expected)


def test_unused_suppression_is_a_warning_with_its_span() -> None:
    source = "x = 1  # cutile: ignore[CT301, CT305]\n"
    (diag,) = finish([], source, "t.py", Config())
    assert diag.code == "CT902" and diag.severity is Severity.WARNING
    assert diag.message == "unused suppression: no CT301 or CT305 finding on this statement"
    assert (diag.span.col, diag.span.end_col) == (7, len(source) - 1)


def test_unknown_code_points_at_the_code() -> None:
    source = "x = 1  # cutile: ignore[CT31]\n"
    (diag,) = finish([], source, "t.py", Config())
    assert diag.code == "CT903"
    assert diag.message == "'CT31' is not a cutile code, code prefix or code name"
    assert source[diag.span.col:diag.span.end_col] == "CT31"
    hinted = finish([], "x = 1  # cutile: ignore[ct-301]\n", "t.py", Config())
    assert [d.code for d in hinted] == ["CT903"]
    assert hinted[0].message.endswith("; did you mean CT301?")


def test_ct902_and_ct903_follow_select_and_ignore() -> None:
    source = "x = 1  # cutile: ignore[CT301]\ny = 2  # cutile: ignore[bogus]\n"
    assert [d.code for d in finish([], source, "t.py", Config(ignore=("CT902",)))] == ["CT903"]
    assert finish([], source, "t.py", Config(ignore=("CT90",))) == []
    assert [d.code for d in finish([], source, "t.py", Config(select=("CT3",)))] == []


def test_suppression_is_judged_on_unselected_findings_too() -> None:
    # `--select CT2` must not make a CT301 suppression look unused.
    source = "use(z)  # cutile: ignore[CT301]\n"
    assert finish([finding(1, "CT301")], source, "t.py", Config(select=("CT2",))) == []


def test_suppression_from_the_cli_on_a_multi_line_kernel_header(cli: Runner,
                                                              tmp_path: Path) -> None:
    kernel = (
        "import cutile as ct\n"
        "from cutile import Mut, Tensor, f32\n\n\n"
        "@ct.kernel\n"
        "def fill(\n"
        "    z: Mut[Tensor[f32, (128,)]],\n"
        "    x,\n"
        ") -> None:{comment}\n"
        "    z.store(ct.zeros((128,), f32))\n")
    write(tmp_path, {"k.py": kernel.format(comment="")})
    assert cli("-q", "k.py").out.startswith("k.py:8:5: CT107")
    write(tmp_path, {"k.py": kernel.format(comment="  # cutile: ignore[CT107]")})
    result = cli("-q", "k.py")
    assert (result.code, result.out) == (0, "")
    write(tmp_path, {"k.py": kernel.format(comment="  # cutile: ignore[CT107, CT201]")})
    result = cli("-q", "k.py")
    assert result.code == 0  # CT902 is a warning by default: shown, not failing
    assert result.out == ("k.py:9:13: CT902 [warning] unused suppression: no CT201 finding on "
                          "this statement\n")
