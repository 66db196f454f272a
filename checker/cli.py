"""`cutile-check [PATHS]`: check files, directories or standard input and report the findings.

Exit status: 0 when no finding has error severity, 1 when some does, 2 for a usage or
configuration error or an internal error (even with --exit-zero: a crash must never pass).
"""

from __future__ import annotations

import argparse
import codecs
import importlib
import json
import sys
from collections.abc import Sequence
from typing import TextIO

from ..diagnostics import messages as msg
from ..diagnostics.codes import CODES
from ..diagnostics.diagnostic import Severity
from .analyze import Report, analyze_paths, analyze_stdin
from .config import Overrides
from .explain import explain
from .formats import FORMATS
from .formats.sarif import tool_version
from .selection import normalize_pattern

PROG = "cutile-check"


class UsageError(Exception):
    """A bad command line: reported on stderr with exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Check cutile kernels and the host code that launches them: ownership "
                    "(CT3), launches (CT4), kernel syntax (CT1) and tile types (CT2).",
        epilog="Exit status: 0 clean, 1 findings of error severity, 2 usage, configuration or "
               "internal error.")
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="files or directories to check ('-' reads standard input; "
                             "default: the current directory)")
    parser.add_argument("--output-format", choices=sorted(FORMATS), default="concise",
                        help="how findings are printed (default: concise)")
    parser.add_argument("--select", action="append", metavar="CODES",
                        help="only report these codes or prefixes (comma-separated, e.g. CT3,"
                             "CT201); replaces the configured selection")
    parser.add_argument("--extend-select", action="append", default=[], metavar="CODES",
                        help="report these codes in addition to the selection")
    parser.add_argument("--ignore", action="append", default=[], metavar="CODES",
                        help="do not report these codes or prefixes")
    parser.add_argument("--exit-zero", action="store_true",
                        help="exit 0 even with findings (still 2 on errors)")
    parser.add_argument("--force-exclude", action="store_true",
                        help="apply exclude settings to paths named on the command line too "
                             "(for pre-commit)")
    parser.add_argument("--statistics", action="store_true",
                        help="print the number of findings per code instead of the findings")
    parser.add_argument("--explain", metavar="CODE",
                        help="describe a code (e.g. CT301 or use-after-move) and exit")
    parser.add_argument("--config", metavar="PATH",
                        help="use this pyproject.toml instead of the nearest one to each file")
    parser.add_argument("--stdin-filename", metavar="PATH",
                        help="the file name standard input stands for (config, messages)")
    parser.add_argument("--jobs", type=int, metavar="N",
                        help="check files on N processes (default: one per core)")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="print findings only, no summary line")
    parser.add_argument("--version", action="version", version=f"{PROG} {tool_version()}")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["lsp"]:  # `cutile-check lsp [ARGS]`: the language server (check a
        return _serve(args_list[1:])  # folder named lsp as `lsp/` or `./lsp`)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # argparse exits on --help, --version and usage errors
        return stop.code if isinstance(stop.code, int) else 2
    try:
        return _run(args)
    except UsageError as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return 2


def _serve(argv: list[str]) -> int:
    # Imported by name: the language server depends on the checker, not the other way round.
    server = importlib.import_module("cutile.lsp.__main__")
    server.main(argv)
    return 0


def _run(args: argparse.Namespace) -> int:
    if args.explain is not None:
        text = explain(args.explain)
        if text is None:
            raise UsageError(f"CT901 unknown code '{args.explain}' (codes: "
                             f"{', '.join(CODES)})")
        sys.stdout.write(text)
        return 0
    overrides = Overrides(
        select=_codes(args.select, "--select") if args.select else None,
        extend_select=_codes(args.extend_select, "--extend-select"),
        ignore=_codes(args.ignore, "--ignore"),
        config_path=args.config,
        force_exclude=args.force_exclude,
        jobs=args.jobs,
    )
    paths: list[str] = args.paths or ["."]
    if "-" in paths:
        if len(paths) > 1:
            raise UsageError("'-' (standard input) cannot be combined with other paths")
        report = analyze_stdin(sys.stdin.buffer.read(), args.stdin_filename,
                               overrides)
    else:
        report = analyze_paths(paths, overrides)
    _print(report, args)
    if report.broken:
        return 2
    if report.failed and not args.exit_zero:
        return 1
    return 0


def _codes(values: list[str], flag: str) -> tuple[str, ...]:
    out: list[str] = []
    for value in values:
        for item in value.split(","):
            if not item.strip():
                continue
            code = normalize_pattern(item)
            if code is None:
                raise UsageError("CT901 " + msg.CONFIG_BAD_CODE.format(value=item.strip(),
                                                                       key=flag))
            out.append(code)
    return tuple(out)


def _print(report: Report, args: argparse.Namespace) -> None:
    fmt: str = args.output_format
    if args.statistics:
        rows = report.statistics()
        if fmt == "json":
            data = [{"code": c, "name": CODES[c].name, "count": n} for c, n in rows]
            write(json.dumps(data, indent=2) + "\n")
        else:
            write("".join(f"{n:>5}  {c}  {CODES[c].name}\n" for c, n in rows))
    else:
        write(FORMATS[fmt](report))
    if fmt in ("concise", "full") and not args.quiet:
        print(summary(report))


def _escaped_bytes(err: UnicodeError) -> tuple[str | bytes, int]:
    """Encode-error handler: a file name's bytes that do not decode in the file system's
    encoding (Python keeps them as surrogate escapes) go out as those bytes, as `ls` prints
    them; any other character the stream's encoding lacks goes out as a backslash escape."""
    if not isinstance(err, UnicodeEncodeError):
        raise err
    chunk = err.object[err.start:err.end]
    if all("\udc80" <= ch <= "\udcff" for ch in chunk):
        return bytes(ord(ch) - 0xDC00 for ch in chunk), err.end
    return codecs.backslashreplace_errors(err)


codecs.register_error("cutile-check-output", _escaped_bytes)


def write(text: str, stream: TextIO | None = None) -> None:
    """Print findings whatever the file names hold and the terminal's encoding can show:
    never a UnicodeEncodeError (a file named with bytes that are not UTF-8 raised one)."""
    out = stream if stream is not None else sys.stdout
    try:
        out.write(text)
        return
    except UnicodeEncodeError:  # nothing was written: the text is encoded before the write
        pass
    encoding = getattr(out, "encoding", None) or "utf-8"
    data = text.encode(encoding, errors="cutile-check-output")
    buffer = getattr(out, "buffer", None)
    if buffer is not None:
        out.flush()
        buffer.write(data)
        buffer.flush()
    else:
        out.write(data.decode(encoding, errors="backslashreplace"))


def summary(report: Report) -> str:
    files = _plural(len(report.files), "file")
    if not report.diagnostics:
        return f"All checks passed ({files} checked)."
    counts = [(_plural(sum(d.severity is s for d in report.diagnostics), s.value))
              for s in Severity if any(d.severity is s for d in report.diagnostics)]
    return (f"Found {_plural(len(report.diagnostics), 'finding')} in {files} checked: "
            f"{', '.join(counts)}.")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
