"""What the generators of checked-in files share (gen_ops.py, gen_options.py): a marked section
of a file rewritten, and the command line that rewrites the files or, with --check, says which
are out of date."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def replace_section(text: str, begin: str, end: str, body: str) -> str:
    """`text` with what lies between the marker lines `begin` and `end` replaced by `body`."""
    pattern = re.compile(re.escape(begin) + ".*?" + re.escape(end), re.S)
    if not pattern.search(text):
        raise SystemExit(f"markers {begin.strip()} / {end.strip()} not found")
    return pattern.sub(lambda m: begin + body + end, text, count=1)


def main(argv: list[str] | None, script: str, doc: str,
         outputs: Callable[[], dict[Path, str]]) -> int:
    """The command line of generator `script` (its file name; `doc`, its docstring): writes
    each file of `outputs` whose text differs, or with --check names them and exits 1."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that files are current")
    args = parser.parse_args(argv)
    stale = {path: text for path, text in outputs().items()
             if not path.exists() or path.read_text(encoding="utf-8") != text}
    if args.check:
        for path in stale:
            shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
            print(f"{shown} is out of date: run scripts/{script}", file=sys.stderr)
        return 1 if stale else 0
    for path, text in stale.items():
        path.write_text(text, encoding="utf-8")
    return 0
