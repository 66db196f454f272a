"""The tileiras toolchain: discovery, version negotiation, compiling, and the cubin caches."""

from .cache import DiskCache, MemoryCache
from .discover import Toolchain, find_toolchain
from .key import ArgFacts, SpecializationKey, source_hash
from .service import Compiled, KernelCompiler, default_compiler
from .tileiras import ARCHS, compile_cubin, disassemble, negotiate, tool_info

__all__ = [
    "ARCHS", "ArgFacts", "Compiled", "DiskCache", "KernelCompiler", "MemoryCache",
    "SpecializationKey", "Toolchain", "compile_cubin", "default_compiler", "disassemble",
    "find_toolchain", "negotiate", "source_hash", "tool_info",
]
