"""The interpreter backend: host memory, kernels executed by the NumPy interpreter."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...compiler.lower.abi import range_checks
from .base import Executable
from .host import HostExecutable, HostMemoryBackend

if TYPE_CHECKING:
    from ...compiler.specialization import Specialization
    from .base import KernelSource


class InterpreterBackend(HostMemoryBackend):
    name = "interpreter"

    def prepare(self, kernel: KernelSource, spec: Specialization) -> Executable:
        from ..interpreter.program import build_program

        program = build_program(kernel, spec)
        return HostExecutable(self, program.run, reports=bool(range_checks(program.ir)))
