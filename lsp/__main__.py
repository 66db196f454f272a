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
    parser.add_argument("--debounce-ms", type=float, default=DEFAULT_DEBOUNCE_S * 1000,
                        help="wait this long after the last change before analysing (default 150)")
    parser.add_argument("--log-level", default="WARNING", help="stderr log level (default WARNING)")
    parser.add_argument("--version", action="version", version=f"cutile-lsp {_version()}")
    return parser


def _version() -> str:
    try:
        return version("cutile")
    except PackageNotFoundError:  # a source tree that was never installed
        return "0+unknown"


def main(argv: Sequence[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    # stdout carries the protocol: logs go to stderr only.
    logging.basicConfig(stream=sys.stderr, level=args.log_level.upper(),
                        format="cutile-lsp %(levelname)s %(name)s: %(message)s")
    server = create_server(max(0.0, args.debounce_ms) / 1000)
    if args.tcp is not None:
        server.start_tcp("127.0.0.1", args.tcp)
    else:
        server.start_io()


if __name__ == "__main__":
    main()
