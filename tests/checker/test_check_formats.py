"""Each output format, on real CLI runs and on a report with notes in two files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from checker_fixtures import BAD_SIGNATURE, CLEAN, MOVED, Runner, write

from cutile.checker.analyze import Report
from cutile.checker.formats import FORMATS, full, github, sarif
from cutile.diagnostics.codes import CODES
from cutile.diagnostics.diagnostic import Diagnostic, Note, Severity, Span

HOST = "x = 1\nz = make()\nz.partition((128,))\nuse(z)\n"
OTHER = "def launch(z):\n    return z\n"


def noted_report(tmp_path: Path) -> Report:
    """A CT301 whose notes point at another line of the file and at a second file."""
    write(tmp_path, {"host.py": HOST, "lib.py": OTHER})
    host, lib = str(tmp_path / "host.py"), str(tmp_path / "lib.py")
    diag = Diagnostic(
        "CT301", "'z' was moved by .partition() and cannot be used here",
        Span(host, 4, 4, 4, 5),
        notes=(Note("'z' was moved here", Span(host, 3, 0, 3, 19)),
               Note("the launch is defined here", Span(lib, 1, 4, 1, 10)),
               Note("rebind it from the result")))
    warn = Diagnostic("CT902", "unused suppression: no CT201 finding on this statement",
                      Span(host, 1, 7, 1, 30), Severity.WARNING)
    return Report([warn, diag], [host], {host: HOST})


def sarif_schema() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(sarif.SCHEMA_FILE.read_text())
    return data


def validate_sarif(doc: Any) -> None:
    schema = sarif_schema()
    jsonschema.validators.validator_for(schema)(schema).validate(doc)


def test_schema_ships_in_the_package() -> None:
    assert sarif.SCHEMA_FILE.is_file()
    assert sarif_schema()["title"].startswith("Static Analysis Results Format (SARIF)")


def test_full_draws_carets_and_note_frames(tmp_path: Path) -> None:
    text = full.render(noted_report(tmp_path))
    host, lib = str(tmp_path / "host.py"), str(tmp_path / "lib.py")
    assert f"{host}:4:5: error[CT301]: 'z' was moved by .partition()" in text
    assert "4 | use(z)\n  |     ^\n" in text
    assert f"  = note: {host}:3:1: 'z' was moved here\n  |\n3 | z.partition((128,))\n" \
           "  | ^^^^^^^^^^^^^^^^^^^\n" in text
    # The note in a file that was not itself checked still gets its frame (read on demand).
    assert f"  = note: {lib}:1:5: the launch is defined here\n  |\n1 | def launch(z):\n" \
           "  |     ^^^^^^\n" in text
    assert "  = note: rebind it from the result" in text
    assert f"{host}:1:8: warning[CT902]" in text


def test_full_format_from_the_cli(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": BAD_SIGNATURE})
    out = cli("--output-format", "full", "-q", "k.py").out
    assert out == (
        "k.py:6:39: error[CT107]: kernel parameter 'x' needs an annotation such as "
        "Tensor[f32, (-1,)], Mut[Tensor[f32, (128,)]] or Const[int]\n"
        "  |\n"
        "6 | def fill(z: Mut[Tensor[f32, (128,)]], x) -> None:\n"
        "  |                                       ^\n\n")


def test_full_carets_count_terminal_columns(cli: Runner, tmp_path: Path) -> None:
    """A wide character (CJK, emoji) takes two columns of a terminal, a combining mark none:
    the carets pad by columns (as ruff), or they sit left of the finding; tabs stay tabs."""
    lead = 's = "\t核😀e\u0301"; print('
    write(tmp_path, {"k.py": MOVED.replace("print(z)\n", lead + "z)\n")})
    out = cli("--output-format", "full", "-q", "k.py").out.splitlines()
    assert out[0].startswith("k.py:13:20: error[CT301]")
    assert out[2] == f"13 | {lead}z)"
    # `s = "` (5 columns), the tab, 核 and 😀 (2 each), e and its accent (1), `"; print(` (9)
    assert out[3] == "   | " + " " * 5 + "\t" + " " * (4 + 1 + 9) + "^"


def test_json_fields_and_one_based_columns(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": BAD_SIGNATURE})
    result = cli("--output-format", "json", "k.py")
    assert result.code == 1
    assert json.loads(result.out) == [{
        "path": "k.py", "line": 6, "col": 39, "end_line": 6, "end_col": 40, "code": "CT107",
        "name": "bad-signature", "severity": "error",
        "message": "kernel parameter 'x' needs an annotation such as Tensor[f32, (-1,)], "
                   "Mut[Tensor[f32, (128,)]] or Const[int]",
        "fields": {"name": "x"}, "notes": []}]


def test_json_notes(tmp_path: Path) -> None:
    data = json.loads(FORMATS["json"](noted_report(tmp_path)))
    assert data[1]["notes"][0] == {"message": "'z' was moved here", "path": str(
        tmp_path / "host.py"), "line": 3, "col": 1, "end_line": 3, "end_col": 20}
    assert data[1]["notes"][2] == {"message": "rebind it from the result"}
    assert data[0]["severity"] == "warning"


def test_json_clean_run_is_an_empty_list(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": CLEAN})
    result = cli("--output-format", "json", "k.py")
    assert (result.code, json.loads(result.out)) == (0, [])


def test_github_annotations_escape_and_levels(tmp_path: Path) -> None:
    report = noted_report(tmp_path)
    lines = github.render(report).splitlines()
    host = str(tmp_path / "host.py")
    assert lines[0].startswith(f"::warning file={host},line=1,col=8,endLine=1,endColumn=31,"
                               "title=CT902::unused suppression")
    assert lines[1].startswith(f"::error file={host},line=4,col=5,endLine=4,endColumn=6,"
                               "title=CT301::'z' was moved")
    # Notes keep their place: in the message, and as a notice annotation at that place.
    assert (f"%0A{host}:3:1: note: 'z' was moved here%0A{tmp_path / 'lib.py'}:1:5: note: "
            "the launch is defined here%0Arebind it from the result") in lines[1]
    assert lines[2] == (f"::notice file={host},line=3,col=1,endLine=3,endColumn=20,"
                        f"title=CT301 note::'z' was moved here (see CT301 at {host}:4:5)")
    assert lines[3].startswith(f"::notice file={tmp_path / 'lib.py'},line=1,col=5,")
    assert len(lines) == 4  # the note without a place has no annotation of its own
    tricky = Diagnostic("CT100", "50% done\nnext", Span("a,b:c.py", 1, 0, 1, 1))
    assert github.line(tricky) == (
        "::error file=a%2Cb%3Ac.py,line=1,col=1,endLine=1,endColumn=2,title=CT100::50%25 done"
        "%0Anext")


def test_sarif_from_the_cli_is_valid(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": BAD_SIGNATURE})
    result = cli("--output-format", "sarif", "k.py")
    assert result.code == 1
    doc = json.loads(result.out)
    validate_sarif(doc)
    run = doc["runs"][0]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == list(CODES)
    (res,) = run["results"]
    assert res["ruleId"] == "CT107" and res["level"] == "error"
    assert run["tool"]["driver"]["rules"][res["ruleIndex"]]["id"] == "CT107"
    loc = res["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == "k.py"
    assert loc["region"] == {"startLine": 6, "startColumn": 39, "endLine": 6, "endColumn": 40}


def test_sarif_related_locations_and_levels_are_valid(tmp_path: Path) -> None:
    doc = sarif.document(noted_report(tmp_path))
    validate_sarif(doc)
    warn, err = doc["runs"][0]["results"]
    assert warn["level"] == "warning"
    assert [r["message"]["text"] for r in err["relatedLocations"]] == [
        "'z' was moved here", "the launch is defined here"]
    assert err["message"]["text"].endswith("\nrebind it from the result")


def test_sarif_columns_never_zero() -> None:
    diag = Diagnostic("CT999", "boom", Span("x.py", 1, 0, 1, 0))
    doc = sarif.document(Report([diag], ["x.py"], {}))
    validate_sarif(doc)
    region = doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
    assert region["startColumn"] == 1 and region["endColumn"] == 1


def test_the_schema_rejects_a_broken_document() -> None:
    # Guards the validation itself: a zero column must fail, or the tests above prove nothing.
    doc = sarif.document(Report([Diagnostic("CT999", "boom", Span("x.py", 1, 0, 1, 0))], [], {}))
    doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startColumn"] = 0
    with pytest.raises(jsonschema.ValidationError):
        validate_sarif(doc)


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_every_format_runs_from_the_cli(cli: Runner, tmp_path: Path, fmt: str) -> None:
    write(tmp_path, {"k.py": BAD_SIGNATURE})
    result = cli("--output-format", fmt, "k.py")
    assert result.code == 1
    assert "CT107" in result.out


@pytest.mark.parametrize("severity", ["error", "warning", "note"])
def test_every_format_shows_the_severity(cli: Runner, tmp_path: Path, severity: str) -> None:
    """Issue 29: the concise format printed warnings and errors alike. Every format carries the
    severity after configuration."""
    write(tmp_path, {"pyproject.toml": f'[tool.cutile-check]\nseverity = {{CT1 = "{severity}"}}\n',
                     "k.py": BAD_SIGNATURE})
    concise = cli("-q", "k.py").out
    assert concise.startswith(f"k.py:6:39: CT107 [{severity}] kernel parameter 'x'")
    assert cli("-q", "--output-format", "full", "k.py").out.startswith(
        f"k.py:6:39: {severity}[CT107]: ")
    command = {"error": "error", "warning": "warning", "note": "notice"}[severity]
    assert cli("--output-format", "github", "k.py").out.startswith(
        f"::{command} file=k.py,line=6,col=39,")
    assert json.loads(cli("--output-format", "json", "k.py").out)[0]["severity"] == severity
    sarif_doc = json.loads(cli("--output-format", "sarif", "k.py").out)
    assert sarif_doc["runs"][0]["results"][0]["level"] == severity




def test_github_keeps_the_place_of_each_note(cli: Runner, tmp_path: Path) -> None:
    """Issue 29: the github format dropped where "'z' was moved here" points. It stays in the
    message and gets a notice annotation of its own on that line."""
    write(tmp_path, {"app.py": MOVED})
    out = cli("--output-format", "github", "app.py").out.splitlines()
    assert len(out) == 2
    assert out[0].startswith("::error file=app.py,line=13,col=7,endLine=13,endColumn=8,"
                             "title=CT301::'z' was moved into a launch of 'add'")
    assert out[0].endswith("%0Aapp.py:12:5: note: 'z' was moved here")
    assert out[1] == ("::notice file=app.py,line=12,col=5,endLine=12,endColumn=6,"
                      "title=CT301 note::'z' was moved here (see CT301 at app.py:13:7)")
