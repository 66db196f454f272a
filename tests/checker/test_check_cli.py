"""The cutile-check command line: exit codes, flags, standard input, and running it as a real
process (console script and `python -m`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from checker_fixtures import BAD_SIGNATURE, CLEAN, MOVED, SYNTAX_ERROR, Runner, write

from cutile.checker.analyze import analyze_source
from cutile.diagnostics.codes import CODES
from cutile.reader import decode

CT107_LINE = ("k.py:6:39: CT107 [error] kernel parameter 'x' needs an annotation such as "
              "Tensor[f32, (-1,)], Mut[Tensor[f32, (128,)]] or Const[int]")


def test_clean_file_exits_zero(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": CLEAN})
    result = cli("k.py")
    assert result.code == 0
    assert result.out == "All checks passed (1 file checked).\n"


def test_finding_exits_one_with_concise_line(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": BAD_SIGNATURE})
    result = cli("k.py")
    assert result.code == 1
    assert result.out.splitlines() == [
        CT107_LINE, "Found 1 finding in 1 file checked: 1 error."]


def test_quiet_drops_the_summary(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": BAD_SIGNATURE})
    assert cli("-q", "k.py").out == CT107_LINE + "\n"


def test_exit_zero_keeps_findings_but_exits_zero(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": BAD_SIGNATURE})
    result = cli("--exit-zero", "-q", "k.py")
    assert (result.code, result.out) == (0, CT107_LINE + "\n")


def test_directories_are_walked_for_py_and_pyi(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path, {"pkg/a.py": BAD_SIGNATURE, "pkg/sub/b.pyi": SYNTAX_ERROR,
                     "pkg/notes.txt": SYNTAX_ERROR, "pkg/c.py": CLEAN})
    result = cli("-q", "pkg")
    paths = [line.split(":")[0] for line in result.out.splitlines()]
    assert paths == [os.path.join("pkg", "a.py"), os.path.join("pkg", "sub", "b.pyi")]
    assert result.code == 1


def test_default_path_is_the_working_directory(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": BAD_SIGNATURE, ".venv/lib/x.py": SYNTAX_ERROR})
    result = cli("-q")
    assert result.out.splitlines() == [CT107_LINE]


def test_missing_path_is_ct904_no_such_file_and_exit_two(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": CLEAN})
    result = cli("-q", "k.py", "nope.py")
    assert result.code == 2
    assert result.out == "nope.py:1:1: CT904 [error] no such file or directory: nope.py\n"


def test_directory_without_python_files_warns_ct905(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path, {"docs/notes.txt": "text", "src/k.py": CLEAN, "src/.venv/x.py": CLEAN})
    (tmp_path / "empty").mkdir()
    result = cli("docs", "empty", "src")
    assert result.code == 0  # a warning, as ruff's: nothing failed
    assert result.out.splitlines() == [
        "docs:1:1: CT905 [warning] no Python files found under docs",
        "empty:1:1: CT905 [warning] no Python files found under empty",
        "Found 2 findings in 1 file checked: 2 warnings."]
    write(tmp_path, {"only_venv/.venv/x.py": CLEAN})  # excluded files count as none
    assert cli("-q", "only_venv").out == (
        "only_venv:1:1: CT905 [warning] no Python files found under only_venv\n")


def test_lsp_is_a_path_not_a_subcommand(cli: Runner, tmp_path: Path) -> None:
    """Issue 29: `cutile-check lsp` started the language server instead of checking the folder
    lsp/, and with standard input at its end exited 0 having checked nothing. The server is
    `cutile-lsp`; here lsp is a path like any other."""
    missing = cli("lsp", stdin="")
    assert (missing.code, missing.out) == (
        2, "lsp:1:1: CT904 [error] no such file or directory: lsp\n"
           "Found 1 finding in 0 files checked: 1 error.\n")
    write(tmp_path, {"lsp/server.py": BAD_SIGNATURE})
    found = cli("-q", "lsp", stdin="")
    assert found.code == 1
    assert found.out == CT107_LINE.replace("k.py", os.path.join("lsp", "server.py")) + "\n"
    assert cli("lsp", "--stdio").code == 2  # the server's options are not the checker's


def test_select_and_ignore(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": BAD_SIGNATURE, "s.py": SYNTAX_ERROR})
    assert {ln[:ln.index(":")] for ln in cli("-q", "--select", "CT1").out.splitlines()} == {
        "k.py", "s.py"}
    assert cli("-q", "--select", "CT107").out.startswith("k.py:6:39: CT107")
    only_syntax = cli("-q", "--ignore", "CT107")
    assert only_syntax.out.startswith("s.py:") and "CT107" not in only_syntax.out
    by_name = cli("-q", "--ignore", "bad-signature,syntax-error")
    assert (by_name.code, by_name.out) == (0, "")
    assert cli("-q", "--select", "CT3").code == 0
    assert cli("-q", "--select", "CT3", "--extend-select", "CT100").out.startswith("s.py")


def test_unknown_code_on_the_command_line_is_a_usage_error(cli: Runner) -> None:
    """A mistyped flag is not a configuration error (CT901): a usage error with the closest
    codes; an empty list would select nothing, silently."""
    result = cli("--select", "CT77")
    assert result.code == 2
    assert result.err.startswith("cutile-check: error: 'CT77' in '--select' is not a cutile code")
    assert "CT901" not in result.err
    typo = cli("--ignore", "CT3010,use-after-mov")
    assert typo.code == 2 and typo.err.rstrip().endswith("did you mean CT301?")
    assert cli("--ignore", "use-after-mov").err.rstrip().endswith("did you mean use-after-move?")
    for flag in ("--select", "--extend-select", "--ignore"):
        empty = cli(flag, " , ")
        assert (empty.code, empty.err) == (
            2, f"cutile-check: error: {flag} needs a code, code prefix or code name (e.g. CT3)\n")


def test_unknown_option_is_a_usage_error(cli: Runner) -> None:
    result = cli("--no-such-flag")
    assert result.code == 2
    assert "unrecognized arguments: --no-such-flag" in result.err


def test_statistics(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path, {"a.py": BAD_SIGNATURE, "b.py": BAD_SIGNATURE, "c.py": SYNTAX_ERROR})
    result = cli("--statistics", "-q")
    assert result.out == "    2  CT107  bad-signature\n    1  CT100  syntax-error\n"
    assert result.code == 1


def test_explain_prints_the_registry_entry(cli: Runner) -> None:
    result = cli("--explain", "CT201")
    assert result.code == 0
    assert result.out.startswith("CT201 (shape-mismatch): Tile shapes that do not broadcast")
    assert "Example:" in result.out and "ct.zeros((64,), f32)" in result.out
    assert cli("--explain", "use-after-move").out.startswith("CT301 (use-after-move)")


def test_explain_unknown_code(cli: Runner) -> None:
    """A usage error (not CT901) naming the closest codes, not a dump of all of them."""
    result = cli("--explain", "CT000")
    assert (result.code, result.out) == (2, "")
    assert result.err == ("cutile-check: error: --explain: 'CT000' is not a cutile code, code "
                          "prefix or code name; did you mean CT100?\n")
    far = cli("--explain", "nothing-like-it")
    assert far.code == 2 and far.err.endswith("('--explain CT' lists every code)\n")


def test_explain_a_prefix_lists_its_codes(cli: Runner) -> None:
    result = cli("--explain", "ct41")
    assert result.code == 0
    assert [line.split()[:2] for line in result.out.splitlines()] == [
        ["CT410", "persistent-without-loop"], ["CT411", "loop-step"], ["CT412", "too-large"],
        ["CT413", "write-to-copied-import"]]
    every = cli("--explain", "CT").out.splitlines()
    assert [line.split()[0] for line in every] == sorted(CODES)


def test_codes_are_in_numeric_order() -> None:
    """The registry lists CT412 before CT411 (entries are grouped by topic): --explain, the
    SARIF rules and docs/codes.md follow CODES, which is sorted."""
    assert list(CODES) == sorted(CODES)


def test_version(cli: Runner) -> None:
    result = cli("--version")
    assert result.code == 0
    assert result.out.startswith("cutile-check ")


def test_stdin_with_filename(cli: Runner) -> None:
    result = cli("-", "--stdin-filename", "k.py", "-q", stdin=BAD_SIGNATURE)
    assert (result.code, result.out) == (1, CT107_LINE + "\n")


def test_stdin_filename_alone_reads_standard_input(cli: Runner, tmp_path: Path) -> None:
    """As ruff: --stdin-filename without a path reads standard input (it used to check the
    working directory and ignore the flag); with other paths it is a usage error."""
    write(tmp_path, {"other.py": BAD_SIGNATURE.replace("fill", "other")})
    result = cli("--stdin-filename", "k.py", "-q", stdin=BAD_SIGNATURE)
    assert (result.code, result.out) == (1, CT107_LINE + "\n")
    mixed = cli("--stdin-filename", "k.py", "other.py", stdin=BAD_SIGNATURE)
    assert (mixed.code, mixed.out) == (2, "")
    assert "--stdin-filename" in mixed.err and "cannot be combined with other paths" in mixed.err


def test_stdin_without_filename_is_named_dash(cli: Runner) -> None:
    result = cli("-", "-q", stdin=SYNTAX_ERROR)
    assert result.code == 1
    assert result.out.startswith("-:") and " CT100 " in result.out


def test_stdin_cannot_be_mixed_with_paths(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": CLEAN})
    result = cli("-", "k.py", stdin=CLEAN)
    assert result.code == 2
    assert "standard input" in result.err


def test_undecodable_file_is_reported_not_crashed(cli: Runner, tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_bytes(b"x = '\xff\xfe'\n")
    write(tmp_path, {"k.py": BAD_SIGNATURE})
    result = cli("-q")
    assert result.code == 1
    lines = result.out.splitlines()
    assert lines[0].startswith("bad.py:1:6: CT906 [error] cannot decode the file: byte 0xff")
    assert lines[1] == CT107_LINE


def _unreadable_tree(tmp_path: Path) -> None:
    write(tmp_path, {"k.py": BAD_SIGNATURE, "dir.py/notes.txt": "not python"})
    (tmp_path / "bad.py").write_bytes(b"x = 1\ny = '\xed\xa0\x80'\n")
    (tmp_path / "broken.py").symlink_to(tmp_path / "gone.py")
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "pipe.py")  # reading it would wait for a writer forever


UNREADABLE_LINES = [
    "bad.py:2:6: CT906 [error] cannot decode the file: byte 0xed on line 2 is not valid UTF-8; "
    "it starts the lone surrogate U+D800, which UTF-8 does not encode; the file declares no coding "
    "cookie, so it must be UTF-8",
    "broken.py:1:1: CT906 [error] cannot read this file: it is a broken symbolic link to "
    "{gone} (No such file or directory)",
    CT107_LINE,
    "pipe.py:1:1: CT906 [error] cannot read this file: it is a named pipe (FIFO), not a file",
]


def test_unreadable_files_are_ct906_and_the_others_are_checked(cli: Runner,
                                                              tmp_path: Path) -> None:
    _unreadable_tree(tmp_path)
    expected = [line.format(gone=tmp_path / "gone.py") for line in UNREADABLE_LINES
                if hasattr(os, "mkfifo") or "pipe" not in line]
    walked = cli("-q", ".")
    assert (walked.code, walked.out.splitlines()) == (1, expected)
    named = cli("-q", "bad.py", "broken.py", "k.py", *(["pipe.py"] if hasattr(os, "mkfifo")
                                                      else []))
    assert (named.code, named.out.splitlines()) == (1, expected)
    # a directory named like a file is walked as the directory it is
    assert cli("-q", "dir.py").out == (
        "dir.py:1:1: CT905 [warning] no Python files found under dir.py\n")


def test_a_file_without_read_permission(cli: Runner, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {"k.py": BAD_SIGNATURE, "secret.py": CLEAN})
    real_open = os.open

    def refuse(path: str, flags: int, *args: int) -> int:
        if os.path.basename(path) == "secret.py":  # as a chmod 000 file for a non-root user
            raise PermissionError(13, "Permission denied", path)
        return real_open(path, flags, *args)

    monkeypatch.setattr(decode.os, "open", refuse)
    result = cli("-q", ".")
    assert result.code == 1
    assert result.out.splitlines() == [
        CT107_LINE, "secret.py:1:1: CT906 [error] cannot read this file: Permission denied"]


@pytest.mark.parametrize("fmt", ["concise", "full", "json", "sarif", "github"])
def test_unreadable_files_in_every_format_with_a_strict_stdout(tmp_path: Path, fmt: str) -> None:
    """A file name with bytes that are not UTF-8 and a UTF-8 terminal that refuses surrogates
    (PYTHONIOENCODING=utf-8:strict, a non-C locale): no UnicodeEncodeError."""
    _unreadable_tree(tmp_path)
    (tmp_path / os.fsdecode(b"n\xffame.py")).write_bytes(b"x = (\n")
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict"}
    done = subprocess.run([sys.executable, "-m", "cutile.checker", "--output-format", fmt, "."],
                          cwd=tmp_path, env=env, capture_output=True, timeout=120, check=False)
    assert done.returncode == 1 and b"Traceback" not in done.stderr, done.stderr
    assert done.stdout.count(b"CT906") >= 2 + hasattr(os, "mkfifo")
    assert b"n\xffame.py" in done.stdout or b"n%FFame.py" in done.stdout \
        or b"n\\udcffame.py" in done.stdout  # raw bytes, a SARIF URI or a JSON escape
    if fmt in ("json", "sarif"):
        json.loads(done.stdout)


def _subprocess(*argv: str, cwd: Path,
                stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, input=stdin, capture_output=True, text=True,
                          timeout=60, check=False)


def test_console_script_runs(tmp_path: Path) -> None:
    write(tmp_path, {"k.py": BAD_SIGNATURE})
    script = Path(sys.executable).with_name("cutile-check")
    proc = _subprocess(str(script), "-q", "k.py", cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (1, CT107_LINE + "\n")


def test_python_dash_m_reads_stdin(tmp_path: Path) -> None:
    proc = _subprocess(sys.executable, "-m", "cutile.checker", "-", "--stdin-filename", "k.py",
                       "--output-format", "github", cwd=tmp_path, stdin=BAD_SIGNATURE)
    assert proc.returncode == 1
    assert proc.stdout.startswith(
        "::error file=k.py,line=6,col=39,endLine=6,endColumn=40,title=CT107::kernel parameter")


def test_a_reader_that_leaves_early_gets_no_traceback(tmp_path: Path) -> None:
    """`cutile-check | head -0`: the pipe is closed before the findings are written; the
    checker stops quietly (as ruff), with no BrokenPipeError traceback on stderr."""
    write(tmp_path, {"k.py": BAD_SIGNATURE})
    proc = subprocess.Popen([sys.executable, "-m", "cutile.checker", "."], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before anything is printed
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 1
    assert b"Traceback" not in err and b"Broken" not in err, err


# app.py has a safe fix (CT301), k.py a finding without one (CT107): every mode has findings
# left or something to fix, so each would exit 1 without --exit-zero.
EXIT_ZERO_MODES = [
    [], ["--statistics"], ["--fix"], ["--fix", "--unsafe-fixes"], ["--diff"],
    ["--diff", "--fix"], ["--diff", "--unsafe-fixes"], ["--fix", "--statistics"], ["-q"],
    *(["--output-format", fmt] for fmt in ("full", "json", "github", "sarif")),
    ["--fix", "--output-format", "json"], ["-", "--stdin-filename", "app.py"],
    ["-", "--diff"], ["-", "--fix"], ["--stdin-filename", "app.py", "--fix"],
]


@pytest.mark.parametrize("flags", EXIT_ZERO_MODES, ids=" ".join)
def test_exit_zero_wins_in_every_mode(cli: Runner, tmp_path: Path, flags: list[str]) -> None:
    """As ruff: --exit-zero turns every status but 2 into 0 (--diff used to exit 1)."""
    stdin = MOVED + BAD_SIGNATURE.replace("import cutile as ct\n", "").replace(
        "from cutile import Mut, Tensor, f32\n", "")
    paths = [] if "-" in flags or "--stdin-filename" in flags else ["app.py", "k.py"]
    write(tmp_path, {"app.py": MOVED, "k.py": BAD_SIGNATURE})
    assert cli(*flags, *paths, stdin=stdin).code == 1
    write(tmp_path, {"app.py": MOVED, "k.py": BAD_SIGNATURE})
    assert cli("--exit-zero", *flags, *paths, stdin=stdin).code == 0
    # a configuration error is never hidden
    write(tmp_path, {"app.py": MOVED, "k.py": BAD_SIGNATURE,
                     "pyproject.toml": "[tool.cutile-check]\nnope = 1\n"})
    assert cli("--exit-zero", *flags, *paths, stdin=stdin).code == 2
    (tmp_path / "pyproject.toml").unlink()


@pytest.mark.parametrize("value", ["-3", "0", "two"])
def test_jobs_must_be_a_positive_number(cli: Runner, tmp_path: Path, value: str) -> None:
    write(tmp_path, {"k.py": CLEAN})
    result = cli("--jobs", value, "k.py")
    assert result.code == 2 and "argument --jobs:" in result.err
    assert cli("--jobs", "2", "k.py").code == 0


@pytest.mark.parametrize(("source", "detail"), [
    ("def f(:\n", "unexpected ':'"),
    ("a = 1 2\n", "unexpected '2'"),
    ("x = 1 +\n", "unexpected end of line"),
    ("else:\n", "unexpected 'else'"),
    ("x = [a b]\n", "perhaps you forgot a comma?"),
    ("if x\n    pass\n", "expected ':'"),
])
def test_syntax_error_says_what_python_stopped_at(source: str, detail: str) -> None:
    """Python's bare "invalid syntax" used to be repeated after CT100's own words."""
    [diag] = analyze_source(source, "s.py")
    assert (diag.code, diag.message) == ("CT100", f"invalid syntax: {detail}")


def test_syntax_error_from_the_cli(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path, {"s.py": SYNTAX_ERROR})
    assert cli("-q", "s.py").out == "s.py:1:12: CT100 [error] invalid syntax: unexpected ':'\n"
