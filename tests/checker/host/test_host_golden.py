"""The host side's behaviour, recorded: what the checker's host analysis reports (codes,
messages, spans, notes) and the ownership facts editors hover, over the examples and the test
corpus, and what the interpreter raises running the host cases and rule snippets. A refactor of
the host API must leave `golden/host.golden` unchanged; a deliberate change rewrites it:

    .venv/bin/python tests/checker/host/test_host_golden.py --write
"""

from __future__ import annotations

import difflib
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

from cutile.checker.host import ProjectIndex, check_host, ownership_view
from cutile.diagnostics.diagnostic import Diagnostic, Span
from cutile.reader.source import parse_module

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
GOLDEN = HERE / "golden" / "host.golden"
for helpers in (HERE, HERE.parent):  # run as a script: the helpers import by name
    if str(helpers) not in sys.path:
        sys.path.insert(0, str(helpers))

from hostcheck import with_prelude  # noqa: E402
from parity import run_cases_file  # noqa: E402


def checked_files() -> list[Path]:
    """The examples and the test corpus whose host code the checker reads."""
    groups = [sorted((ROOT / "examples").glob("*.py")),
              sorted((ROOT / "examples" / "qwen3").glob("*.py")),
              sorted((ROOT / "tests" / "cases").rglob("*.py")),
              sorted((HERE / "cases").rglob("*.py"))]
    return [p for group in groups for p in group]


def host_cases() -> list[Path]:
    return sorted((HERE / "cases").rglob("*.py"))


def snippets() -> list[tuple[str, str]]:
    from test_host_parity import SNIPPETS

    return list(SNIPPETS)


def _span(span: Span | None, names: dict[str, str]) -> str:
    if span is None:
        return "-"
    path = names.get(span.path, span.path)
    return f"{path}:{span.line}:{span.col}-{span.end_line}:{span.end_col}"


def _text(text: str, names: dict[str, str]) -> str:
    for full, short in names.items():
        text = text.replace(full, short)
    return text


def _diagnostics(diags: Iterable[Diagnostic], names: dict[str, str]) -> list[str]:
    out = []
    for d in diags:
        out.append(f"  {_span(d.span, names)} {d.code} {_text(d.message, names)}")
        out += [f"    note {_span(n.span, names)} {_text(n.message, names)}" for n in d.notes]
    return out


def _checker(path: Path, source: str, shown: str) -> list[str]:
    info = parse_module(source, str(path))
    if isinstance(info, Diagnostic):
        return [f"== checker {shown}", f"  unparsed {info.code}"]
    names = {str(path): shown}
    out = [f"== checker {shown}", *_diagnostics(check_host(info, ProjectIndex()), names)]
    view = ownership_view(info, ProjectIndex())
    out.append(f"== facts {shown}")
    out += [f"  {_span(f.span, names)} {f.name}: {_text(f.summary, names)}"
            for f in view.facts]
    return out


def _runtime(path: Path, shown: str) -> list[str]:
    ran = run_cases_file(path)
    names = {str(path): shown}
    out = [f"== runtime {shown}", *_diagnostics(ran.raised, names)]
    out += [f"  warned {line} {_text(text, names)}" for line, text in ran.warned]
    out += [f"  other {line} {_text(text, names)}" for line, text in ran.other]
    return out


def golden_text() -> str:
    lines: list[str] = []
    for path in checked_files():
        lines += _checker(path, path.read_text(), str(path.relative_to(ROOT)))
    for path in host_cases():
        lines += _runtime(path, str(path.relative_to(ROOT)))
    with tempfile.TemporaryDirectory() as tmp:
        for name, snippet in snippets():
            path = Path(tmp) / f"{name.replace('-', '_')}.py"
            path.write_text(with_prelude(snippet))
            shown = f"snippet:{name}"
            lines += _checker(path, path.read_text(), shown)
            lines += _runtime(path, shown)
    return "\n".join(lines) + "\n"


def test_host_behaviour_matches_the_golden_record() -> None:
    now, before = golden_text(), GOLDEN.read_text()
    if now != before:
        diff = difflib.unified_diff(before.splitlines(), now.splitlines(), "golden", "now",
                                    lineterm="", n=1)
        raise AssertionError("host behaviour changed:\n" + "\n".join(list(diff)[:80]))


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit(__doc__)
    GOLDEN.parent.mkdir(exist_ok=True)
    GOLDEN.write_text(golden_text())
