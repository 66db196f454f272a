"""Our own CUDA Tile IR bytecode writer (and a reader for tests and `--dump`).

`ir` holds modules in memory, `builder` appends validated ops, `optable` is the one declarative
table of op layouts, `encoder`/`decoder` turn modules into bytes and back, `printer` shows them.
The names below load their module on first use, so the frontend (which only needs the op
definitions' attribute enums) does not pay for the encoder, decoder and printer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_getattr

if TYPE_CHECKING:
    from .builder import Builder, BuildError, entry
    from .decoder import decode, read_version
    from .encoder import EncodeError, encode
    from .ir import Block, Function, Module, Op, Value
    from .printer import print_module
    from .version import DEFAULT, SUPPORTED, V13_3, V13_4, Version
    from .wire import BytecodeFormatError

_HOMES = {
    "Builder": "builder", "BuildError": "builder", "entry": "builder",
    "decode": "decoder", "read_version": "decoder", "EncodeError": "encoder", "encode": "encoder",
    "Block": "ir", "Function": "ir", "Module": "ir", "Op": "ir", "Value": "ir",
    "print_module": "printer", "DEFAULT": "version", "SUPPORTED": "version", "V13_3": "version",
    "V13_4": "version", "Version": "version", "BytecodeFormatError": "wire",
}


__getattr__ = lazy_getattr(__name__, _HOMES, globals())


__all__ = [
    "DEFAULT", "SUPPORTED", "V13_3", "V13_4", "Block", "BuildError", "Builder",
    "BytecodeFormatError", "EncodeError", "Function", "Module", "Op", "Value", "Version",
    "decode", "encode", "entry", "print_module", "read_version",
]
