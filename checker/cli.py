"""`cutile-check [PATHS]`: check files, directories or standard input and report the findings.

Exit status: 0 when no finding has error severity, 1 when some does, 2 for a usage or
configuration error or an internal error (even with --exit-zero: a crash must never pass).
`--fix` applies the fixes the language server offers as quick fixes, then reports what remains;
`--diff` prints them instead and exits 1 when there is something to fix.

The language server is `cutile-lsp`: here every argument is a path, so `cutile-check lsp` checks
a folder named lsp.
"""

from __future__ import annotations

import argparse
import codecs
import difflib
import io
import json
import os
import sys
import tokenize
from collections.abc import Sequence
from typing import TextIO

from ..diagnostics import messages as msg
from ..diagnostics.codes import BY_NAME, CODES
from ..diagnostics.diagnostic import Diagnostic, Severity, Span
from ..reader.decode import read_bytes
from .analyze import FileFix, FixMode, Report, analyze_paths, analyze_stdin
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
    parser.add_argument("--fix", action="store_true",
                        help="apply the safe fixes, check again and report what remains")
    parser.add_argument("--unsafe-fixes", action="store_true",
                        help="with --fix or --diff, apply the unsafe fixes too (they change what "
                             "runs: a wait for a launch, a dtype conversion)")
    parser.add_argument("--diff", action="store_true",
                        help="print the changes the fixes would make, write nothing; exit 1 when "
                             "there are some")
    parser.add_argument("--exit-zero", action="store_true",
                        help="exit 0 even with findings or changes --diff would make (still 2 on "
                             "errors)")
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
                        help="read standard input as the file PATH (config, messages); "
                             "implies '-' when no path is given")
    parser.add_argument("--jobs", type=_jobs, metavar="N",
                        help="check files on N processes, N >= 1 (default: one per core, "
                             "at most one per 4 files)")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="print findings only, no summary line")
    parser.add_argument("--version", action="version", version=f"{PROG} {tool_version()}")
    return parser


def _jobs(text: str) -> int:
    """`--jobs N`: a whole number of processes, at least one (argparse reports the error)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def main(argv: Sequence[str] | None = None) -> int:
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
    except BrokenPipeError:  # `cutile-check | head`: the reader left; stop quietly, as ruff
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no error at exit
        return 1


def _run(args: argparse.Namespace) -> int:
    if args.explain is not None:
        text = explain(args.explain)
        if text is None:
            hint = _did_you_mean(args.explain) or " ('--explain CT' lists every code)"
            raise UsageError(f"--explain: '{args.explain.strip()}' is not a cutile code, code "
                             f"prefix or code name{hint}")
        write(text)
        return 0
    overrides = Overrides(
        select=_codes(args.select, "--select") if args.select else None,
        extend_select=_codes(args.extend_select, "--extend-select"),
        ignore=_codes(args.ignore, "--ignore"),
        config_path=args.config,
        force_exclude=args.force_exclude,
        jobs=args.jobs,
    )
    paths = _paths(args)
    fix = FixMode(unsafe=args.unsafe_fixes) if args.fix or args.diff else None
    if "-" in paths:
        if len(paths) > 1:
            raise UsageError("'-' (standard input) cannot be combined with other paths")
        source = sys.stdin.buffer.read()
        report = analyze_stdin(source, args.stdin_filename, overrides, fix)
        if args.fix and not args.diff:  # the fixed text on stdout, findings on stderr (ruff)
            fixed = report.fixes[0].after if report.fixes else None
            sys.stdout.buffer.write(source if fixed is None else _encode_like(source, fixed))
            sys.stdout.flush()
            return _finish(report, args, sys.stderr)
    else:
        report = analyze_paths(paths, overrides, fix)
        if args.fix and not args.diff:
            _write_fixes(report)
    if args.diff:
        return _print_diff(report, args.exit_zero)
    return _finish(report, args, sys.stdout)


def _paths(args: argparse.Namespace) -> list[str]:
    """The paths to check; `--stdin-filename` alone reads standard input (as ruff). Named paths
    besides it are an error: ruff warns and drops them, which is easy to miss."""
    paths: list[str] = args.paths
    if args.stdin_filename is None:
        return paths or ["."]
    if any(p != "-" for p in paths):
        raise UsageError("--stdin-filename names the file standard input stands for; it cannot "
                         "be combined with other paths (give '-' or no path)")
    return ["-"]


def _finish(report: Report, args: argparse.Namespace, stream: TextIO) -> int:
    _print(report, args, stream)
    if report.broken:
        return 2
    if report.failed and not args.exit_zero:
        return 1
    return 0


def _write_fixes(report: Report) -> None:
    """Writes each fixed file; one that cannot be written keeps its text and so its findings
    (a CT907 says why), and nothing in it counts as fixed."""
    for change in list(report.fixes):
        failure = _write_fix(change)
        if failure is not None:
            report.revert(change)
            report.diagnostics.append(failure)
    report.diagnostics.sort(key=Diagnostic.sort_key)


def _write_fix(change: FileFix) -> Diagnostic | None:
    """Writes a fixed text back in the file's own encoding (its coding cookie or byte order
    mark), unless the file changed since it was read; CT907 says why it could not."""
    try:
        raw = read_bytes(change.path)
        if _encode_like(raw, change.before) != raw:
            raise OSError("the file changed while it was checked")
        data = _encode_like(raw, change.after)
        with open(change.path, "wb") as fh:
            fh.write(data)
    except (OSError, SyntaxError, UnicodeError) as err:
        detail = getattr(err, "strerror", None) or str(err)
        return msg.UNWRITABLE_FILE.at(Span(change.path, 1, 0, 1, 0), detail=detail)
    return None


def _encode_like(raw: bytes, text: str) -> bytes:
    """`text` in the encoding `raw` was decoded from (a cookie, a byte order mark, else UTF-8).
    Raises SyntaxError for a bad cookie (the file was read, so it had none) or UnicodeError."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    return text.encode(encoding)


def _print_diff(report: Report, exit_zero: bool) -> int:
    """`--diff`: the changes on stdout as a unified diff, a count on stderr; exit 1 when there
    is something to fix (ruff's behaviour; 0 with --exit-zero), 2 when the run itself failed."""
    for change in report.fixes:
        write("".join(difflib.unified_diff(
            change.before.splitlines(keepends=True), change.after.splitlines(keepends=True),
            f"a/{_diff_path(change.path)}", f"b/{_diff_path(change.path)}")))
    fatal = [d for d in report.diagnostics if d.entry.fatal]
    write(FORMATS["concise"](Report(diagnostics=fatal)), sys.stderr)
    count = report.fixed
    print(f"Would fix {_plural(count, 'finding')}." if report.fixes else "No fixes to apply.",
          file=sys.stderr)
    if report.broken:
        return 2
    return 1 if report.fixes and not exit_zero else 0


def _diff_path(path: str) -> str:
    return path.replace(os.sep, "/").lstrip("/")


def _codes(values: list[str], flag: str) -> tuple[str, ...]:
    out: list[str] = []
    for value in values:
        items = [item.strip() for item in value.split(",") if item.strip()]
        if not items:  # `--select ""` would otherwise select nothing, silently
            raise UsageError(f"{flag} needs a code, code prefix or code name (e.g. CT3)")
        for item in items:
            code = normalize_pattern(item)
            if code is None:
                raise UsageError(msg.CONFIG_BAD_CODE.format(value=item, key=flag)
                                 + _did_you_mean(item))
            out.append(code)
    return tuple(out)


def _did_you_mean(word: str) -> str:
    """"; did you mean CT301?": the codes and names closest to a mistyped one."""
    text = word.strip()
    close = (difflib.get_close_matches(text.upper(), CODES, n=3, cutoff=0.75)
             + difflib.get_close_matches(text.lower(), BY_NAME, n=2))
    return f"; did you mean {' or '.join(close)}?" if close else ""


def _print(report: Report, args: argparse.Namespace, stream: TextIO) -> None:
    fmt: str = args.output_format
    if args.statistics:
        rows = report.statistics()
        if fmt == "json":
            data = [{"code": c, "name": CODES[c].name, "count": n} for c, n in rows]
            write(json.dumps(data, indent=2) + "\n", stream)
        else:
            write("".join(f"{n:>5}  {c}  {CODES[c].name}\n" for c, n in rows), stream)
    else:
        write(FORMATS[fmt](report), stream)
    if fmt in ("concise", "full") and not args.quiet:
        write(summary(report, fixing=args.fix, unsafe=args.unsafe_fixes) + "\n", stream)


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


def summary(report: Report, fixing: bool = False, unsafe: bool = False) -> str:
    """The last line(s): counts by severity, what --fix fixed, and what it could fix."""
    files = _plural(len(report.files), "file")
    remaining = len(report.diagnostics)
    if not remaining and not report.fixed:
        return f"All checks passed ({files} checked)."
    found = _plural(remaining + report.fixed, "finding")
    if fixing:
        found += f" ({report.fixed} fixed, {remaining} remaining)"
    counts = [(_plural(sum(d.severity is s for d in report.diagnostics), s.value))
              for s in Severity if any(d.severity is s for d in report.diagnostics)]
    line = f"Found {found} in {files} checked" + (f": {', '.join(counts)}." if counts else ".")
    return line + _fixable_hint(report, fixing, unsafe)


def _fixable_hint(report: Report, fixing: bool, unsafe: bool) -> str:
    """ruff's hint: how many remaining findings a fix would remove, and how many more an
    unsafe one would (computed only for findings of codes that declare a fix)."""
    if not any(d.entry.fix is not None for d in report.diagnostics):
        return ""  # nothing to ask the fixes (and libcst stays unloaded)
    from .autofix import fixable

    try:
        safe, unsafe_only = fixable(report.sources, report.diagnostics)
    except Exception:  # a bug in a fix must not cost the findings already printed
        return ""
    if unsafe:
        safe, unsafe_only = safe + unsafe_only, 0
    if fixing:  # what is left fixable after --fix is unsafe only
        return f"\n{unsafe_only} more fixable with --unsafe-fixes." if unsafe_only else ""
    more = f" ({unsafe_only} more with --unsafe-fixes)" if unsafe_only else ""
    if safe:
        return f"\n{safe} fixable with --fix{more}."
    if unsafe_only:
        return f"\nNo safe fixes ({unsafe_only} fixable with --fix --unsafe-fixes)."
    return ""


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
