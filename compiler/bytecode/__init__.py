"""Our own CUDA Tile IR bytecode writer (and a reader for tests and `--dump`).

`ir` holds modules in memory, `builder` appends validated ops, `optable` is the one declarative
table of op layouts, `encoder`/`decoder` turn modules into bytes and back, `printer` shows them.
"""

from .builder import Builder, BuildError, entry
from .decoder import decode, read_version
from .encoder import EncodeError, encode
from .ir import Block, Function, Module, Op, Value
from .printer import print_module
from .version import DEFAULT, SUPPORTED, V13_3, V13_4, Version
from .wire import BytecodeFormatError

__all__ = [
    "DEFAULT", "SUPPORTED", "V13_3", "V13_4", "Block", "BuildError", "Builder",
    "BytecodeFormatError", "EncodeError", "Function", "Module", "Op", "Value", "Version",
    "decode", "encode", "entry", "print_module", "read_version",
]
