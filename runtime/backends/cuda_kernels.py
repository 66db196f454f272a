"""From a specialization to a launchable CUDA function: compile (cached by the compiler), load
the cubin once, and pack parameters by the lowering's entry ABI (`Compiled.slots`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...compiler.compile import Compiled, compile_kernel
from ...compiler.lower.abi import range_checks
from ...compiler.specialization import Specialization
from ...compiler.unit import kernel_unit, specialized_ir
from .pack import Packer
from .status import StatusExecutable

if TYPE_CHECKING:
    from .base import KernelSource
    from .cuda import CudaBackend, CudaExecutable


def compile_for(backend: CudaBackend, kernel: KernelSource, spec: Specialization) -> Compiled:
    """The launcher's specialization compiled for the backend's device (its arch)."""
    return compile_kernel(kernel.module(), kernel.qualname, spec, backend.arch, tileir=False)


def load_kernel(backend: CudaBackend, kernel: KernelSource, spec: Specialization
                ) -> CudaExecutable | StatusExecutable:
    """Compiled, loaded and wrapped by the backend (`backend.executable`: this module does not
    import cuda.py, which imports it lazily). A kernel with run-time range() steps passes a
    status word to each launch (status.py)."""
    compiled = compile_for(backend, kernel, spec)
    function = backend.function(compiled.key.digest(), compiled.cubin, compiled.entry)
    exe = backend.executable(function, Packer(compiled.slots))
    if not any(slot.field == "status" for slot in compiled.slots):
        return exe
    ir = specialized_ir(kernel_unit(kernel.module(), kernel.qualname), spec)
    return StatusExecutable(exe, backend, kernel.__name__, [op.span for op in range_checks(ir)])
