"""The parity target: the host target's random programs, checked by `cutile-check` and run on
the interpreter one statement at a time (tests/checker/host/parity.py). Every error the checker
reports on a line that ran is one the run raised on that line, with the same code: the checker
never cries wolf. Past a line where the run raised what the checker did not report (it took
that line to succeed, as a program stopped by the error never learns otherwise), the two
follow different programs, so the comparison stops there. Each program is checked in four
forms: as the host target writes it; with every tensor, partition and launch kept in an
attribute of one object (`s.t1` for `t1`), which the checker follows as it follows names; as
one function's body; and as a method keeping them in `self` (up to the first error there).

A program is a list of lines, so a failure shrinks over lines."""

from __future__ import annotations

import ast
import os
import random
import re
import shutil
import sys
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path

from . import host_target

HERE = Path(__file__).resolve().parent
_DIR: list[Path] = []  # one scratch folder per worker process: the program and its kernels
_RUNS: list[Path] = []
# Found only when a launch runs (a kernel's loop step, the interpreter's step budget, a copied
# import): the checker cannot see them coming
RUN_TIME_ONLY = frozenset({"CT411", "CT412", "CT413"})
# The Python error the checker models is a name a failed statement left unbound (a name that no
# code binds stands for code it cannot see; a missing attribute it cannot tell from one set
# where it does not look)
_NAME_ERROR = re.compile(r"NameError: name '(\w+)' is not defined")
_NAME = re.compile(r"\b([tpog]\d+)\b")
HEAD = ["import numpy as np", "from types import SimpleNamespace", "",
        "import cutile as ct", "import host_kernels as hk", "", "s = SimpleNamespace()"]


def setup() -> None:
    host_target.setup()
    sys.path.insert(0, str(HERE.parent / "checker" / "host"))  # the parity harness


def case(rng: random.Random, huge_lines: int = 0) -> list[str]:
    return host_target.case(rng)


def as_attributes(lines: list[str], owner: str = "s") -> list[str]:
    return [_NAME.sub(rf"{owner}.\1", line) for line in lines]


def as_function(lines: list[str]) -> list[str]:
    """The program as one function's body: its first error ends the run."""
    return ["def run() -> None:", *(f"    {line}" for line in lines), "", "", "run()"]


def as_method(lines: list[str]) -> list[str]:
    """The program as a method keeping everything in `self`'s attributes."""
    body = (f"        {line}" for line in as_attributes(lines, "self"))
    return ["class Program:", "    def run(self) -> None:", *body, "", "", "Program().run()"]


FORMS: dict[str, tuple[Callable[[list[str]], list[str]], bool]] = {
    "names": (lambda lines: lines, True), "attributes": (as_attributes, True),
    "function": (as_function, False), "method": (as_method, False)}


def render(lines: list[str]) -> str:
    return "\n".join([*HEAD, *lines]) + "\n"


def check(lines: list[str]) -> str | None:
    for form, (write, top_level) in FORMS.items():
        wrong = _false_alarms(write(lines), top_level)
        if wrong:
            return f"{form}: the checker reports {wrong} where the run raised nothing alike"
    return None


def _false_alarms(lines: list[str], top_level: bool) -> list[tuple[int, str]]:
    from parity import run_cases_file

    from cutile.checker.analyze import analyze_source

    source = render(lines)
    path = _scratch() / f"program_{len(_RUNS)}.py"  # a new name: the run reads it by linecache
    _RUNS.append(path)
    path.write_text(source)
    checked = {(d.span.line, d.code) for d in analyze_source(source, str(path))
               if d.code[:3] in ("CT3", "CT4") and d.severity.name == "ERROR"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ran = run_cases_file(path)
    path.unlink()
    if not top_level:  # one statement: its first error ends it, and the launches it dropped
        first = min((line for line, _ in ran.findings), default=len(source))
        return sorted(f for f in checked if f[0] in ran.executed and f[0] <= first
                      and f not in ran.findings and not (ran.findings and f[1] == "CT305"))
    # past a run-time error the checker did not see coming, the two follow different
    # programs (the checker took that line to succeed): compare up to it. An error is seen
    # where the checker reports its code at its line or at the statement's
    # where the run found what only a run can (a kernel's loop step, its step budget), the
    # checker's finding there is what the statement would raise next: compare before it
    missed = [line if all(f[1] in RUN_TIME_ONLY for f in causes) else line + 0.5
              for line, causes in ran.statements
              if any(f not in checked and (line, f[1]) not in checked for f in causes)]
    # a Python error the checker does not model (unpacking an unseen function's results into
    # too few names, an attribute never set): the checker took the line to get further
    bound = {n.id for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Name)
             and isinstance(n.ctx, ast.Store)}
    missed += [line for line, text in ran.other if not _modeled(text, bound)]
    cutoff = min(missed, default=len(source) + 1)
    return sorted(f for f in checked
                  if f[0] in ran.executed and f[0] < cutoff and f not in ran.findings)


def _modeled(error: str, bound: set[str]) -> bool:
    """A NameError of a name some statement binds (one that raised left it unbound)."""
    found = _NAME_ERROR.match(error)
    return found is not None and found.group(1) in bound


def _scratch() -> Path:
    if not _DIR:
        folder = Path(tempfile.mkdtemp(prefix="cutile-parity-"))
        shutil.copy(HERE / "host_kernels.py", folder / "host_kernels.py")
        sys.path.insert(0, str(folder))
        os.chdir(folder)
        _DIR.append(folder)
    return _DIR[0]
