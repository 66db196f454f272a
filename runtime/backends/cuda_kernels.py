"""From a specialization to a launchable CUDA function: compile (cached by the compiler), load
the cubin once, and pack parameters by the lowering's entry ABI (`Compiled.slots`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...compiler.compile import Compiled, compile_kernel
from ...compiler.specialization import Specialization
from .pack import Packer

if TYPE_CHECKING:
    from .base import KernelSource
    from .cuda import CudaBackend, CudaExecutable


def compile_for(backend: CudaBackend, kernel: KernelSource, spec: Specialization) -> Compiled:
    """The launcher's specialization compiled for the backend's device (its arch)."""
    return compile_kernel(kernel.module(), kernel.__name__, spec, backend.arch, tileir=False)


def load_kernel(backend: CudaBackend, kernel: KernelSource, spec: Specialization) -> CudaExecutable:
    """Compiled, loaded and wrapped by the backend (`backend.executable`: this module does not
    import cuda.py, which imports it lazily)."""
    compiled = compile_for(backend, kernel, spec)
    function = backend.function(compiled.key.digest(), compiled.cubin, compiled.entry)
    return backend.executable(function, Packer(compiled.slots))
