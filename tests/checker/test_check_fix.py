"""`cutile-check --fix`, `--unsafe-fixes` and `--diff`: the fixes the language server offers,
applied by the same core (`checker/fixes.py`, `checker/autofix.py`), then checked again.

The cases under fixes/cases are input files with `# E:` expectations and what `--fix` (`.safe`)
and `--fix --unsafe-fixes` (`.unsafe`) make of them. The corpus test runs every fix the checker
finds over the project's test corpus (tests/cases, tests/checker) and checks each fixed finding
is gone and nothing new appears.
"""

from __future__ import annotations

import re
import shutil
from collections import Counter
from pathlib import Path

import pytest
from checker_fixtures import Runner, expected, write

from cutile.checker import cli as cli_module
from cutile.checker.analyze import FileFix, analyze_source
from cutile.checker.autofix import FixFinder, fix_source, plan_fixes
from cutile.checker.cli import _write_fix
from cutile.checker.edits import Applicability, Edit, Fix, overlaps
from cutile.diagnostics.codes import CODES

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CASES = sorted((HERE / "fixes" / "cases").glob("*.py"))
CORPUS = sorted((ROOT / "tests" / "cases").rglob("*.py")) + sorted(HERE.rglob("*.py"))
FIXABLE_CODES = {code for code, entry in CODES.items() if entry.fix is not None}

SYNCED_LATER = '''\
import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def add(z: Mut[Tensor[f32, (128,)]], x: Tensor[f32, (-1,)]) -> None:
    z.store(ct.load_tile_like(x, z))


x = ct.ones((1024,), f32)
z = ct.zeros((1024,), f32).partition((128,))
op = add(z, x)
print(z)
op.sync()
'''

SYNCED = SYNCED_LATER.replace("op = add(z, x)\nprint(z)\nop.sync()\n",
                              "add(z, x).sync()\nprint(z)\n")


@pytest.mark.parametrize("mode", ["safe", "unsafe"])
@pytest.mark.parametrize("case", CASES, ids=[p.stem for p in CASES])
def test_fix_cases(cli: Runner, tmp_path: Path, case: Path, mode: str) -> None:
    source = case.read_text()
    found = sorted((d.span.line, d.code) for d in analyze_source(source, case.name))
    assert found == expected(source)  # the input is what its comments say
    shutil.copy(case, tmp_path / case.name)
    flags = ["--fix"] if mode == "safe" else ["--fix", "--unsafe-fixes"]
    cli(*flags, "-q", case.name)
    fixed = (tmp_path / case.name).read_text()
    assert fixed == case.with_suffix(f".{mode}").read_text()
    # Fixing again finds nothing more to do: the loop ran until it was done.
    again = cli(*flags, "-q", "--diff", case.name)
    assert (again.code, again.out) == (0, "")


def test_fix_corpus_fixes_every_fixable_finding() -> None:
    """Every finding of the test corpus that has an applicable fix (unsafe ones included) is
    gone after `--fix --unsafe-fixes`; no finding of another code appears, and no more of one."""
    fixed_codes: Counter[str] = Counter()
    kinds: set[Applicability] = set()
    for path in CORPUS:
        source = path.read_text(encoding="utf-8")
        name = str(path)
        before = analyze_source(source, name)
        finder = FixFinder(source, name)
        with_fix = [(d, finder.fix(d, unsafe=True)) for d in before if d.entry.fix is not None]
        if not any(fix for _, fix in with_fix):
            continue
        kinds |= {fix.applicability for _, fix in with_fix if fix is not None}
        result = fix_source(source, name, before, lambda text, n=name: analyze_source(text, n),
                            unsafe=True)
        fixable = Counter(d.code for d, fix in with_fix if fix is not None)
        counts, after = Counter(d.code for d in before), Counter(d.code for d in result.diagnostics)
        for code in FIXABLE_CODES:
            assert after[code] == counts[code] - fixable[code], (path, code, result.source)
        assert all(after[c] <= counts[c] for c in after), (path, after, counts)
        assert result.fixed == sum(fixable.values()), path
        fixed_codes += fixable
    # the corpus exercises every fix the registry declares, safe and unsafe ones
    assert set(fixed_codes) == FIXABLE_CODES
    assert kinds == {Applicability.SAFE, Applicability.UNSAFE}


def test_diff_prints_the_changes_and_writes_nothing(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path, {"app.py": SYNCED})
    result = cli("--diff", "app.py")
    assert result.code == 1  # something to fix (ruff's --diff)
    assert result.out.startswith("--- a/app.py\n+++ b/app.py\n")
    assert "-add(z, x).sync()\n+z, x = add(z, x).sync()\n" in result.out
    assert result.err == "Would fix 1 finding.\n"
    assert (tmp_path / "app.py").read_text() == SYNCED
    # the unsafe fix waits (moves op.sync() up): only with --unsafe-fixes
    write(tmp_path, {"later.py": SYNCED_LATER})
    assert cli("--diff", "later.py").code == 0
    unsafe = cli("--diff", "--unsafe-fixes", "later.py")
    assert unsafe.code == 1 and "+z, x = op.sync()\n print(z)\n-op.sync()\n" in unsafe.out


def test_fix_writes_and_reports_what_remains(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path, {"app.py": SYNCED, "later.py": SYNCED_LATER})
    result = cli("--fix", "app.py", "later.py")
    assert result.code == 1  # later.py's unsafe fix was not applied
    assert "z, x = add(z, x).sync()\n" in (tmp_path / "app.py").read_text()
    assert (tmp_path / "later.py").read_text() == SYNCED_LATER
    assert result.out.endswith(
        "Found 2 findings (1 fixed, 1 remaining) in 2 files checked: 1 error.\n"
        "1 more fixable with --unsafe-fixes.\n")
    result = cli("--fix", "--unsafe-fixes", "later.py")
    assert (result.code, result.out) == (
        0, "Found 1 finding (1 fixed, 0 remaining) in 1 file checked.\n")
    assert cli("later.py").out == "All checks passed (1 file checked).\n"


def test_summary_says_what_is_fixable(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path, {"app.py": SYNCED, "later.py": SYNCED_LATER})
    assert cli("app.py", "later.py").out.endswith(
        "Found 2 findings in 2 files checked: 2 errors.\n"
        "1 fixable with --fix (1 more with --unsafe-fixes).\n")
    assert cli("later.py").out.endswith(
        "No safe fixes (1 fixable with --fix --unsafe-fixes).\n")
    assert cli("--unsafe-fixes", "later.py").out.endswith("1 fixable with --fix.\n")


def test_fix_keeps_the_file_encoding_and_line_breaks(cli: Runner, tmp_path: Path) -> None:
    latin = ("# -*- coding: latin-1 -*-\n# café\n" + SYNCED).replace("\n", "\r\n")
    (tmp_path / "app.py").write_bytes(latin.encode("latin-1"))
    assert cli("--fix", "-q", "app.py").code == 0
    data = (tmp_path / "app.py").read_bytes()
    assert data == latin.replace("add(z, x).sync()", "z, x = add(z, x).sync()").encode("latin-1")


def test_fix_from_stdin_prints_the_fixed_text(cli: Runner) -> None:
    result = cli("--fix", "-", "--stdin-filename", "app.py", stdin=SYNCED)
    assert result.code == 0
    assert result.out == SYNCED.replace("add(z, x).sync()", "z, x = add(z, x).sync()")
    assert result.err == "Found 1 finding (1 fixed, 0 remaining) in 1 file checked.\n"
    unchanged = cli("--fix", "-", stdin=SYNCED_LATER)  # nothing safe to fix: the text as it was
    assert (unchanged.code, unchanged.out) == (1, SYNCED_LATER)
    assert "CT301 [error]" in unchanged.err


def test_a_file_that_changed_meanwhile_is_ct907(tmp_path: Path) -> None:
    path = tmp_path / "app.py"
    path.write_text(SYNCED)
    stale = FileFix(str(path), "x = 1\n", "x = 2\n")
    found = _write_fix(stale)
    assert found is not None and found.code == "CT907" and CODES["CT907"].fatal
    assert "changed while it was checked" in found.message
    assert path.read_text() == SYNCED
    gone = _write_fix(FileFix(str(tmp_path / "gone.py"), "", "x\n"))
    assert gone is not None and gone.code == "CT907"


def test_overlapping_fixes_wait_for_the_next_round() -> None:
    a = Fix("a", (Edit(1, 0, 1, 4, "x"),), applicability=Applicability.SAFE)
    b = Fix("b", (Edit.insert(1, 4, "y"),), applicability=Applicability.SAFE)
    c = Fix("c", (Edit.insert(2, 0, "z"),), applicability=Applicability.SAFE)
    assert overlaps(a.edits, b.edits) and not overlaps(a.edits, c.edits)


PAIR = '''\
import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def pair(a: Mut[Tensor[f32, (64,)]], b: Mut[Tensor[f32, (64,)]]) -> None:
    a.store(ct.zeros((64,), f32))
    b.store(ct.zeros((64,), f32))


def run() -> None:
    a = ct.zeros((1024,), f32).partition((64,))
    b = ct.zeros((1024,), f32).partition((64,))
    op = pair(a, b)
    print(a)
    print(b)
    op.sync()
'''


def test_one_wait_per_launch_per_round() -> None:
    """Uses of two arguments of one launch: one wait is added (before the first), not two."""
    diags = analyze_source(PAIR, "app.py")
    assert [(d.code, d.fields["name"]) for d in diags] == [("CT301", "a"), ("CT301", "b")]
    plan = plan_fixes(PAIR, "app.py", diags, unsafe=True)
    assert len(plan.fixed) == 1
    done = fix_source(PAIR, "app.py", diags, lambda t: analyze_source(t, "app.py"), True)
    assert (done.diagnostics, done.fixed) == ([], 1)
    assert done.source == PAIR.replace("    print(a)\n    print(b)\n    op.sync()\n",
                                       "    a, b = op.sync()\n    print(a)\n    print(b)\n")


def test_display_only_fixes_are_never_applied() -> None:
    """f32 * i32 has no lossless direction: both conversions are editor choices only."""
    source = (HERE / "fixes" / "cases" / "astype_forms.py").read_text()
    [diag] = [d for d in analyze_source(source, "a.py") if "i32" in d.message]
    fixes = FixFinder(source, "a.py").fixes(diag)
    assert len(fixes) == 2 and {f.applicability for f in fixes} == {Applicability.DISPLAY}
    assert FixFinder(source, "a.py").fix(diag, unsafe=True) is None


# One CT202 is reported: the second `tb + ta` is typed only once the first is fixed (round 2).
HIDDEN = '''\
import cutile as ct
from cutile import Mut, Tensor, f16, f32


@ct.kernel
def mix(z: Mut[Tensor[f32, (128,)]], a: Tensor[f32, (-1,)], b: Tensor[f16, (-1,)]) -> None:
    ta = ct.load_tile_like(a, z)
    tb = ct.load_tile_like(b, z)
    z.store((ta + tb) * (tb + ta))
'''

SUMMARY = re.compile(r"^Found (\d+) findings? \((\d+) fixed, (\d+) remaining\)", re.M)
SOURCES = {**{p.stem: p.read_text() for p in CASES}, "pair": PAIR, "hidden": HIDDEN}


@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
@pytest.mark.parametrize("name", sorted(SOURCES))
def test_fix_summary_counts_add_up(cli: Runner, tmp_path: Path, name: str, unsafe: bool) -> None:
    """"Found N" is what a plain check reports, and fixed + remaining = N: a fix that settles
    more than its own finding (one wait for two uses, sync_forms' CT305s) counts all it
    settled, and a finding that appears only in a later round (HIDDEN) is not counted twice."""
    write(tmp_path, {"app.py": SOURCES[name]})
    found = len(analyze_source(SOURCES[name], "app.py"))
    flags = ["--fix", "--unsafe-fixes"] if unsafe else ["--fix"]
    result = cli(*flags, "app.py")
    remaining = len(analyze_source((tmp_path / "app.py").read_text(), "app.py"))
    match = SUMMARY.search(result.out)
    if match is None:  # nothing was fixable: the plain summary
        assert found == remaining and "fixed" not in result.out, result.out
        return
    assert tuple(map(int, match.groups())) == (found, found - remaining, remaining), result.out


def test_an_unwritable_file_keeps_its_findings(cli: Runner, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """CT907: the file is left as it was, so its findings are those of its text on disk, at
    their places, and nothing in it counts as fixed; the other files are fixed as usual."""
    write(tmp_path, {"app.py": SOURCES["sync_forms"], "ok.py": SYNCED})
    plain = cli("-q", "app.py").out.splitlines()
    real_open = open

    def refuse_app(path: str, mode: str = "r", *args: object, **kw: object) -> object:
        if "w" in mode and str(path).endswith("app.py"):
            raise PermissionError(13, "Permission denied", path)
        return real_open(path, mode, *args, **kw)  # type: ignore[call-overload]

    monkeypatch.setattr(cli_module, "open", refuse_app, raising=False)
    result = cli("--fix", "--unsafe-fixes", "app.py", "ok.py")
    assert result.code == 2
    lines = result.out.splitlines()
    assert lines[0] == "app.py:1:1: CT907 [error] cannot write the fixed file: Permission denied"
    assert lines[1:len(plain) + 1] == plain  # the original findings, at their original lines
    assert lines[-1] == (f"Found {len(plain) + 2} findings (1 fixed, {len(plain) + 1} "
                         f"remaining) in 2 files checked: {len(plain) + 1} errors.")
    assert (tmp_path / "app.py").read_text() == SOURCES["sync_forms"]
    assert "z, x = add(z, x).sync()" in (tmp_path / "ok.py").read_text()
