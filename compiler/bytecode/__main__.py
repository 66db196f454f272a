"""`python -m cutile.compiler.bytecode --dump FILE`: print a bytecode file in our text form."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .decoder import decode, read_version
from .printer import print_module
from .wire import BytecodeFormatError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cutile.compiler.bytecode")
    parser.add_argument("--dump", metavar="FILE", required=True,
                        help="a Tile IR bytecode file to decode and print")
    args = parser.parse_args(argv)
    data = Path(args.dump).read_bytes()
    try:
        version = read_version(data)
        text = print_module(decode(data))
    except BytecodeFormatError as exc:
        print(f"{args.dump}: not valid Tile IR bytecode: {exc}", file=sys.stderr)
        return 1
    print(f"// Tile IR bytecode {version}, {len(data)} bytes")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
