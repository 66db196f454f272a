"""`python -m cutile.lsp` / `cutile-lsp`: run the language server over stdio (or TCP)."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version

from .server import DEFAULT_DEBOUNCE_S, create_server


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cutile-lsp", description="The cutile language server.")
    parser.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (default)")
    parser.add_argument("--tcp", type=int, metavar="PORT", help="listen on 127.0.0.1:PORT instead")
    parser.add_argument("--debounce-ms", type=_debounce_ms, default=DEFAULT_DEBOUNCE_S * 1000,
                        help="wait this long after the last change before analysing "
                             f"(0 to {MAX_DEBOUNCE_MS}, default 150)")
    parser.add_argument("--log-level", type=_log_level, default="WARNING",
                        help=f"stderr log level: {', '.join(LOG_LEVELS)} (default WARNING)")
    parser.add_argument("--version", action="version", version=f"cutile-lsp {_version()}")
    return parser


MAX_DEBOUNCE_MS = 10_000  # longer, and edits would look unanalysed
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def _debounce_ms(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a number of milliseconds, not {text!r}") from None
    if not 0 <= value <= MAX_DEBOUNCE_MS:  # also refuses nan and inf
        raise argparse.ArgumentTypeError(f"expected 0 to {MAX_DEBOUNCE_MS} milliseconds, "
                                         f"not {text!r}")
    return value


def _log_level(text: str) -> str:
    if text.upper() not in LOG_LEVELS:
        raise argparse.ArgumentTypeError(f"expected one of {', '.join(LOG_LEVELS)}, not {text!r}")
    return text.upper()


def _version() -> str:
    try:
        return version("cutile")
    except PackageNotFoundError:  # a source tree that was never installed
        return "0+unknown"


def main(argv: Sequence[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    # stdout carries the protocol: logs go to stderr only.
    logging.basicConfig(stream=sys.stderr, level=args.log_level,
                        format="cutile-lsp %(levelname)s %(name)s: %(message)s")
    server = create_server(args.debounce_ms / 1000)
    if args.tcp is not None:
        server.start_tcp("127.0.0.1", args.tcp)
    else:
        server.start_io()
    # LSP: status 0 after shutdown, 1 when the client exits (or goes away) without it.
    sys.exit(0 if server.shut_down else 1)


if __name__ == "__main__":
    main()
