"""Codes carry their behaviour: every registry entry declares its severity, whether a comment can
suppress it, the exception it raises at run time and its quick fix, and the checker, the language
server and the runtime derive these from the entry. No other table of codes is left."""

from __future__ import annotations

import pickle
import re
from pathlib import Path

import pytest

import cutile as ct
from cutile import f32
from cutile.checker.analyze import Report, analyze_source, finish
from cutile.checker.config import Config
from cutile.checker.fixes import FIXES
from cutile.compiler.dtypes import BY_NAME as DTYPES
from cutile.diagnostics import messages as msg
from cutile.diagnostics.codes import CODES, Family, QuickFix, Raises, Severity
from cutile.diagnostics.diagnostic import Diagnostic, Span
from cutile.diagnostics.errors import error_class, error_for
from cutile.lsp.suppress import suppression_fix
from cutile.runtime.errors import launch_error, ownership_error

ROOT = Path(__file__).resolve().parents[1]
SPAN = Span("t.py", 1, 0, 1, 1)


def test_every_code_declares_every_behaviour() -> None:
    for code, entry in CODES.items():
        assert code.startswith(entry.family.prefix), code
        assert isinstance(entry.family, Family) and isinstance(entry.raises, Raises), code
        assert isinstance(entry.severity, Severity), code
        assert isinstance(entry.suppressible, bool) and isinstance(entry.fatal, bool), code
        assert entry.fix is None or isinstance(entry.fix, QuickFix), code
        assert not (entry.fatal and entry.suppressible), f"{code}: a crash cannot be silenced"
        assert entry.behaviour.startswith(f"Severity: {entry.severity.value}."), code
    assert not CODES["CT100"].suppressible  # nothing in a file that does not parse was checked


def test_every_declared_class_and_fix_exists() -> None:
    for kind in Raises:
        cls = getattr(ct, kind.value)
        assert issubclass(cls, ct.CutileError) and cls.__name__ == kind.value
    assert {e.fix for e in CODES.values() if e.fix is not None} == set(QuickFix) == set(FIXES)


def test_diagnostics_are_born_with_their_code_severity() -> None:
    for code, entry in CODES.items():
        assert Diagnostic(code, "m", SPAN).severity is entry.severity
        assert msg.UNUSED_SUPPRESSION_ANY.at(SPAN).severity is Severity.WARNING


def test_message_at_keeps_its_fields() -> None:
    diag = msg.DTYPE_MIX.at(SPAN, op="add", a=DTYPES["f32"], b="f16")
    assert diag.message == "cannot add f32 and f16 tiles: use .astype() to convert one of them"
    assert dict(diag.fields) == {"op": "add", "a": "f32", "b": "f16"}  # a dtype kept as its text
    assert msg.DTYPE_MIX.made(diag) and not msg.WHERE_DTYPES.made(diag)
    assert diag == Diagnostic(diag.code, diag.message, SPAN)  # fields are data, not identity


def test_checker_severity_and_suppression_follow_the_registry() -> None:
    for code, entry in CODES.items():
        [reported] = finish([Diagnostic(code, "m", SPAN)], "x = 1\n", "t.py", Config())
        assert reported.severity is entry.severity, code
        kept = finish([Diagnostic(code, "m", SPAN)], "x = 1  # cutile: ignore\n", "t.py",
                      Config())
        assert (code in [d.code for d in kept]) is not entry.suppressible, code
        # ...and the editor offers a suppression comment exactly where the checker honours one
        assert (suppression_fix("x = 1\n", 1, code) is not None) is entry.suppressible, code


def test_fatal_codes_are_always_reported_and_break_the_run() -> None:
    for code, entry in CODES.items():
        assert Config(ignore=(code,)).enabled(code, "t.py") is entry.fatal, code
        assert Report(diagnostics=[Diagnostic(code, "m", SPAN)]).broken is entry.fatal, code


def test_a_syntax_error_is_not_silenced_on_the_command_line() -> None:
    source = "def f(:  # cutile: ignore\n    pass\n"
    diags = analyze_source(source, "t.py")
    assert [d.code for d in diags] == ["CT100", "CT902"]
    assert diags[1].message == ("this suppression has no effect: CT100 cannot be suppressed; fix "
                                "the finding instead")
    listed = analyze_source("def f(:  # cutile: ignore[CT100, syntax-error]\n", "t.py")
    assert [d.code for d in listed] == ["CT100", "CT902"]


def test_the_exception_class_is_the_registry_one() -> None:
    for code, entry in CODES.items():
        err = error_for([Diagnostic(code, "m", SPAN)])
        assert type(err) is error_class(code) is getattr(ct, entry.raises.value), code
    # the first error decides; warnings before it do not
    mixed = [Diagnostic("CT902", "m", SPAN), Diagnostic("CT301", "m", SPAN)]
    assert type(error_for(mixed)) is ct.OwnershipError


def test_typed_runtime_helpers_check_the_registry() -> None:
    err = ownership_error(msg.USE_AFTER_MOVE, SPAN, name="z", how="by .partition()")
    assert isinstance(err, ct.OwnershipError) and err.diagnostics[0].fields["name"] == "z"
    with pytest.raises(TypeError, match="CT301 raises OwnershipError by the registry, not "
                                        "LaunchError"):
        launch_error(msg.USE_AFTER_MOVE, SPAN, name="z", how="by .partition()")


@ct.kernel
def _copy(z: ct.Mut[ct.Tensor[f32, (128,)]], x: ct.Tensor[f32, (-1,)]) -> None:
    z.store(ct.load_tile_like(x, z))


def _raised(action: object) -> ct.CutileError:
    assert callable(action)
    with pytest.raises(ct.CutileError) as info:
        action()
    return info.value


def test_runtime_failures_raise_their_registry_class(monkeypatch: pytest.MonkeyPatch) -> None:
    moved = ct.zeros((128,), f32)
    moved.partition((128,))
    failures = [
        _raised(lambda: moved.numpy()),  # CT301
        _raised(lambda: ct.zeros((100,), f32).partition((0,))),  # CT408
        _raised(lambda: _copy.with_hints(occupancy=0)),  # CT114
        _raised(lambda: _copy(ct.zeros((128,), f32), ct.zeros((128,), f32))),  # CT304
        _raised(lambda: _copy(ct.zeros((128,), f32).partition((128,)), 1.0)),  # CT406
    ]
    codes = [f.diagnostics[0].code for f in failures]
    assert codes == ["CT301", "CT408", "CT114", "CT304", "CT406"]
    for failure in failures:
        assert type(failure) is error_class(failure.diagnostics[0].code)


# Behaviour picked by a code or a code prefix outside the registry: `diag.code == "CT202"`,
# `code.startswith("CT9")`, a set or dict of code literals.
_TABLES = [
    re.compile(r"\.code\s*(==|!=)\s*['\"]CT"),
    re.compile(r"\bcode\s+(not\s+)?in\s+[\(\[\{]\s*['\"]CT"),
    re.compile(r"startswith\(\(?\s*['\"]CT\d"),
    re.compile(r"[\(\[\{]\s*['\"]CT\d+['\"]\s*[,:]\s*(['\"]CT|Severity)"),
]
# Exceptions built by hand from diagnostics instead of through the registry's class.
_BY_HAND = re.compile(r"\b(KernelError|OwnershipError|LaunchError|CompileError|DeviceError"
                      r"|CutileError)\(\s*(?![rfbu]?['\"])[\[\w]")


def test_no_other_table_of_codes() -> None:
    offenders = []
    for folder in ("compiler", "checker", "lsp", "runtime", "scripts", "diagnostics",
                   "reader"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel == "diagnostics/codes.py":
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if any(p.search(line) for p in _TABLES):
                    offenders.append(f"{rel}:{number}: {line.strip()}")
                if rel != "diagnostics/errors.py" and _BY_HAND.search(line):
                    offenders.append(f"{rel}:{number}: {line.strip()}")
    assert offenders == []


def test_findings_pickle_with_their_fields() -> None:
    # cutile-check sends findings between processes.
    diag = msg.USE_AFTER_MOVE_LAUNCH.at(SPAN, name="z", kernel="'add'")
    back = pickle.loads(pickle.dumps(diag))
    assert back == diag and dict(back.fields) == {"name": "z", "kernel": "'add'"}
    assert msg.USE_AFTER_MOVE_LAUNCH.made(back) and back.severity is diag.severity
