"""From a specialization to a launchable CUDA function: compile (cached by the compiler), load
the cubin once, and pack parameters by the lowering's entry ABI (`Compiled.slots`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...compiler.compile import Compiled, compile_kernel
from ...compiler.specialization import Specialization
from .pack import Packer

if TYPE_CHECKING:
    from ..kernel import Kernel
    from .cuda import CudaBackend, CudaExecutable


def compile_for(backend: CudaBackend, kernel: Kernel, spec: Specialization) -> Compiled:
    """The launcher's specialization compiled for the backend's device (its arch)."""
    return compile_kernel(kernel.module(), kernel.__name__, spec, backend.arch, tileir=False)


def load_kernel(backend: CudaBackend, kernel: Kernel, spec: Specialization) -> CudaExecutable:
    from .cuda import CudaExecutable

    compiled = compile_for(backend, kernel, spec)
    function = backend.function(compiled.key.digest(), compiled.cubin, compiled.entry)
    return CudaExecutable(backend, function, Packer(compiled.slots))
