"""`[tool.cutile-check]` discovery and options, and CT901 for bad configuration."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from checker_fixtures import BAD_SIGNATURE, CLEAN, SYNTAX_ERROR, Runner, write

from cutile.checker.config import Config, Overrides, config_from_mapping, read_pyproject
from cutile.checker.discovery import ConfigResolver
from cutile.diagnostics.diagnostic import Severity


def lines(out: str) -> list[str]:
    return out.splitlines()


def test_nearest_pyproject_with_the_table_wins(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path, {
        "pyproject.toml": '[tool.cutile-check]\nignore = ["CT107"]\n',
        "a/k.py": BAD_SIGNATURE,
        # A nearer pyproject.toml without the table does not count (ruff's rule).
        "b/pyproject.toml": '[project]\nname = "b"\n',
        "b/k.py": BAD_SIGNATURE,
        "c/pyproject.toml": '[tool.cutile-check]\nselect = ["CT"]\n',
        "c/k.py": BAD_SIGNATURE,
    })
    result = cli("-q", ".")
    assert lines(result.out) == [
        f"{os.path.join('c', 'k.py')}:6:39: CT107 [error] kernel parameter 'x' needs an annotation "
        "such as Tensor[f32, (-1,)], Mut[Tensor[f32, (128,)]] or Const[int]"]
    assert result.code == 1


def test_resolver_caches_and_reads_each_file_once(tmp_path: Path) -> None:
    write(tmp_path, {"pyproject.toml": '[tool.cutile-check]\nignore = ["CT1"]\nbogus = 1\n'})
    (tmp_path / "x" / "y").mkdir(parents=True)
    resolver = ConfigResolver()
    first = resolver.for_dir(str(tmp_path / "x" / "y"))
    assert first is resolver.for_dir(str(tmp_path / "x")) is resolver.for_file(
        str(tmp_path / "k.py"))
    assert first.ignore == ("CT1",)
    assert [d.code for d in resolver.diagnostics] == ["CT901"]


def test_unknown_key_points_at_its_line(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path, {
        "pyproject.toml": '[project]\nname = "x"\n\n[tool.cutile-check]\nselect = ["CT1"]\n'
                          'extend_select = ["CT2"]\n',
        "k.py": CLEAN})
    result = cli("-q")
    assert result.code == 2
    assert lines(result.out) == [
        "pyproject.toml:6:1: CT901 [error] unknown option 'extend_select' in [tool.cutile-check]; "
        "did you mean 'extend-select'?"]


def test_bad_values_point_at_the_value(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path, {
        "pyproject.toml": '[tool.cutile-check]\nselect = [\n  "CT1",\n  "CT77",\n]\n'
                          'exclude = "build"\n'
                          '[tool.cutile-check.severity]\nCT2 = "fatal"\nCT3 = "warning"\n',
        "k.py": BAD_SIGNATURE})
    result = cli("-q")
    assert result.code == 2  # the configuration error wins over exit 1
    assert lines(result.out) == [
        "k.py:6:39: CT107 [error] kernel parameter 'x' needs an annotation such as "
        "Tensor[f32, (-1,)], Mut[Tensor[f32, (128,)]] or Const[int]",
        "pyproject.toml:4:3: CT901 [error] 'CT77' in 'select' is not a cutile code, code prefix "
        "or code name (see cutile-check --explain)",
        "pyproject.toml:6:1: CT901 [error] option 'exclude' must be a list of strings",
        "pyproject.toml:8:1: CT901 [error] option 'severity.CT2' must be one of \"error\", "
        "\"warning\", \"note\""]


def test_exit_zero_does_not_hide_a_config_error(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path, {"pyproject.toml": "[tool.cutile-check]\nselect = 3\n", "k.py": CLEAN})
    assert cli("--exit-zero").code == 2


def test_toml_syntax_error_is_ct901_at_its_line(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path, {"pyproject.toml": '[tool.cutile-check]\nselect = ["CT1"\n', "k.py": CLEAN})
    result = cli("-q")
    assert result.code == 2
    assert lines(result.out) == [
        "pyproject.toml:2:1: CT901 [error] cannot read pyproject.toml: Unclosed array"]
    write(tmp_path, {"pyproject.toml": '[tool.cutile-check]\n\nselect = ["CT1",,]\n'})
    (line,) = lines(cli("-q").out)
    assert line.startswith("pyproject.toml:3:17: CT901 [error] cannot read pyproject.toml: ")


def test_ct901_cannot_be_ignored(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path, {"pyproject.toml": '[tool.cutile-check]\nignore = ["CT9"]\nnope = 1\n',
                     "k.py": CLEAN})
    result = cli("-q", "--ignore", "CT901")
    assert result.code == 2 and "CT901 [error] unknown option 'nope'" in result.out


def test_per_file_ignores(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path, {
        "pyproject.toml": '[tool.cutile-check.per-file-ignores]\n"tests/*" = ["CT107"]\n'
                          '"legacy.py" = ["CT1"]\n',
        "tests/t.py": BAD_SIGNATURE, "legacy.py": SYNTAX_ERROR, "src/k.py": BAD_SIGNATURE})
    result = cli("-q")
    assert [ln.split(":")[0] for ln in lines(result.out)] == [os.path.join("src", "k.py")]


def test_exclude_and_extend_exclude(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path, {
        "pyproject.toml": '[tool.cutile-check]\nextend-exclude = ["gen", "docs/*.py"]\n',
        "gen/a.py": SYNTAX_ERROR, "docs/b.py": SYNTAX_ERROR, "docs/deep/c.py": SYNTAX_ERROR,
        "build/d.py": SYNTAX_ERROR, "k.py": BAD_SIGNATURE})
    result = cli("-q")
    # `docs/*.py` is an fnmatch glob: `*` also crosses folders.
    assert [ln.split(":")[0] for ln in lines(result.out)] == ["k.py"]


def test_exclude_replaces_the_defaults(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path, {"pyproject.toml": '[tool.cutile-check]\nexclude = ["k.py"]\n',
                     "build/d.py": SYNTAX_ERROR, "k.py": BAD_SIGNATURE})
    assert [ln.split(":")[0] for ln in lines(cli("-q").out)] == [os.path.join("build", "d.py")]


def test_explicit_files_are_checked_unless_force_exclude(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path, {"pyproject.toml": '[tool.cutile-check]\nextend-exclude = ["gen"]\n',
                     "gen/a.py": BAD_SIGNATURE})
    path = os.path.join("gen", "a.py")
    assert cli("-q", path).code == 1
    forced = cli("--force-exclude", path)
    assert (forced.code, forced.out) == (0, "All checks passed (0 files checked).\n")
    stdin = cli("-", "--stdin-filename", path, "--force-exclude", "-q", stdin=BAD_SIGNATURE)
    assert (stdin.code, stdin.out) == (0, "")


def test_named_folders_inside_excluded_ones_are_checked(cli: Runner, tmp_path: Path) -> None:
    """Issue 29: every file below a path holding `site-packages` (a default exclude) was
    skipped, so checking an installed package said CT905 and exited 0. Excludes apply to what
    the walk meets, not to the folders the user named or those above them."""
    pkg = os.path.join(".venv", "lib", "python3.12", "site-packages", "pkg")
    write(tmp_path, {f"{pkg}/k.py": BAD_SIGNATURE, f"{pkg}/build/gen.py": BAD_SIGNATURE,
                     f"{pkg}/sub/m.py": BAD_SIGNATURE, "app.py": CLEAN})
    result = cli("-q", pkg)
    assert result.code == 1
    assert [ln.split(":")[0] for ln in lines(result.out)] == [
        os.path.join(pkg, "k.py"), os.path.join(pkg, "sub", "m.py")]  # build/ below is met
    site = os.path.dirname(pkg)  # named: site-packages itself is walked
    assert len(lines(cli("-q", site).out)) == 2
    # walking from above, .venv is met and skipped
    assert cli(".").out == "All checks passed (1 file checked).\n"


def test_a_named_folder_that_matches_an_exclude_is_checked(cli: Runner, tmp_path: Path) -> None:
    """ruff's rule: a path named on the command line is checked even when an exclude (default
    or configured) matches it, unless --force-exclude; a folder found while walking is not."""
    write(tmp_path, {"pyproject.toml": '[tool.cutile-check]\nextend-exclude = ["gen"]\n',
                     "build/b.py": BAD_SIGNATURE, "gen/g.py": BAD_SIGNATURE,
                     "gen/deep/d.py": BAD_SIGNATURE, "k.py": CLEAN})
    assert cli(".").out == "All checks passed (1 file checked).\n"
    named = cli("-q", "build", "gen")
    assert named.code == 1
    assert [ln.split(":")[0] for ln in lines(named.out)] == [
        os.path.join("build", "b.py"), os.path.join("gen", "deep", "d.py"),
        os.path.join("gen", "g.py")]
    # a named folder that --force-exclude skips is a CT905 warning, as an empty one is
    deep = os.path.join("gen", "deep")
    forced = cli("--force-exclude", "build", "gen", deep)
    assert forced.code == 0
    assert lines(forced.out) == [
        f"{p}:1:1: CT905 [warning] no Python files found under {p}" for p in ("build", "gen", deep)
    ] + ["Found 3 findings in 0 files checked: 3 warnings."]
    # a named file is skipped quietly: pre-commit names every staged file
    quiet = cli("--force-exclude", os.path.join("build", "b.py"))
    assert (quiet.code, quiet.out) == (0, "All checks passed (0 files checked).\n")


def test_excluded_entry_matches_the_entry_not_its_parents(tmp_path: Path) -> None:
    config = config_from_mapping({"extend-exclude": ["gen", "docs/*.py"]}, str(tmp_path))
    assert config.excluded_entry(str(tmp_path / "src" / "gen"))
    assert config.excluded_entry(str(tmp_path / "docs" / "a.py"))
    assert not config.excluded_entry(str(tmp_path / "gen" / "a.py"))  # gen was named
    assert not config.excluded_entry(str(tmp_path / "site-packages" / "a.py"))
    assert config.excluded(str(tmp_path / "site-packages" / "a.py"))  # --force-exclude's test


def test_severity_override_turns_errors_into_warnings(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path, {"pyproject.toml": '[tool.cutile-check]\nseverity = {CT1 = "warning"}\n',
                     "k.py": BAD_SIGNATURE})
    result = cli("--output-format", "full", "k.py")
    assert result.code == 0  # warnings are shown but do not fail the run
    assert result.out.startswith("k.py:6:39: warning[CT107]")
    assert result.out.endswith("Found 1 finding in 1 file checked: 1 warning.\n")


def test_a_severity_for_an_always_error_code_is_ct901(cli: Runner, tmp_path: Path) -> None:
    """CT901, CT904, CT907 and CT999 stay errors: a severity for one of them by its code used
    to be ignored silently; a prefix (CT9) still applies to the other codes it covers."""
    write(tmp_path, {"pyproject.toml": '[tool.cutile-check.severity]\nCT901 = "note"\n'
                                       'CT9 = "note"\nCT999 = "warning"\n',
                     "k.py": BAD_SIGNATURE + "x = 1  # cutile: ignore[CT201]\n"})
    result = cli("-q", "k.py")
    assert result.code == 2
    assert lines(result.out) == [
        "k.py:6:39: CT107 [error] kernel parameter 'x' needs an annotation such as "
        "Tensor[f32, (-1,)], Mut[Tensor[f32, (128,)]] or Const[int]",
        "k.py:8:8: CT902 [note] unused suppression: no CT201 finding on this statement",
        "pyproject.toml:2:1: CT901 [error] option 'severity.CT901' cannot change CT901: it is "
        "always an error",
        "pyproject.toml:4:1: CT901 [error] option 'severity.CT999' cannot change CT999: it is "
        "always an error"]


def test_most_specific_severity_wins() -> None:
    config = config_from_mapping({"severity": {"CT": "note", "CT107": "error", "CT1": "warning"}})
    assert config.severity_of("CT107", Severity.ERROR) is Severity.ERROR
    assert config.severity_of("CT101", Severity.ERROR) is Severity.WARNING
    assert config.severity_of("CT201", Severity.ERROR) is Severity.NOTE
    assert config.severity_of("CT999", Severity.ERROR) is Severity.ERROR


def test_explicit_config_file(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path, {"pyproject.toml": '[tool.cutile-check]\nignore = ["CT107"]\n',
                     "alt.toml": '[tool.cutile-check]\nselect = ["CT1"]\n', "k.py": BAD_SIGNATURE})
    assert cli("-q", "k.py").code == 0
    assert cli("-q", "--config", "alt.toml", "k.py").code == 1
    missing = cli("-q", "--config", "none.toml", "k.py")
    assert missing.code == 2 and "CT901 [error] cannot read none.toml" in missing.out


def test_explicit_config_without_the_table(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path, {"alt.toml": '[tool.other]\n', "k.py": CLEAN})
    result = cli("-q", "--config", "alt.toml")
    assert result.code == 2
    assert result.out == "alt.toml:1:1: CT901 [error] alt.toml has no [tool.cutile-check] table\n"


def test_command_line_select_replaces_the_file_selection(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path, {"pyproject.toml": '[tool.cutile-check]\nignore = ["CT107"]\n',
                     "k.py": BAD_SIGNATURE})
    assert cli("-q").code == 0
    assert cli("-q", "--select", "CT107").code == 1
    assert cli("-q", "--extend-select", "CT107").code == 0  # the file's ignore still applies


def test_read_pyproject_returns_typed_options(tmp_path: Path) -> None:
    write(tmp_path, {"pyproject.toml": '[tool.cutile-check]\nselect = ["use-after-move", "ct2"]\n'
                                       'extend-select = ["CT9"]\n'
                                       'per-file-ignores = {"t/*" = ["CT3"]}\n'})
    config, diags = read_pyproject(str(tmp_path / "pyproject.toml"))
    assert diags == []
    assert config == Config(root=str(tmp_path), source=str(tmp_path / "pyproject.toml"),
                            select=("CT301", "CT2"), extend_select=("CT9",),
                            per_file_ignores=(("t/*", ("CT3",)),))
    with pytest.raises(AttributeError):
        config.select = ()  # type: ignore[misc]


def test_overrides_apply_on_top(tmp_path: Path) -> None:
    config = Config(select=("CT1",), ignore=("CT107",))
    assert not config.with_overrides(Overrides()).enabled("CT107", "k.py")
    assert config.with_overrides(Overrides(select=("CT107",))).enabled("CT107", "k.py")
    assert not config.with_overrides(Overrides(ignore=("CT1",))).enabled("CT101", "k.py")
