"""From a specialization to a launchable CUDA function: compile (cached), load, pack.

Compiling goes through the compiler: `cutile.compiler.api.compile_specialization(info, name,
consts, facts, arch)` returning an object with `.cubin` (and optionally `.slots`, the entry
parameter list, and `.entry`, the symbol name). Until the lowering provides it, launching on
CUDA fails with CT503 saying so; the interpreter backend is unaffected.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...compiler import api
from ...compiler.diagnostics import Diagnostic
from ...compiler.errors import CompileError
from ...compiler.toolchain.key import ArgFacts as ToolchainFacts
from ..cuda import driver
from ..spec import MutFacts, Specialization, TensorFacts
from .abi import Packer, Slot, default_slots
from .cuda import CudaBackend, CudaExecutable

if TYPE_CHECKING:
    from ..backends.base import Buffer


def load_kernel(backend: CudaBackend, spec: Specialization) -> CudaExecutable:
    kernel = spec.kernel
    sig = kernel.binder().sig
    compile_fn = getattr(api, "compile_specialization", None)
    if compile_fn is None:
        raise CompileError([Diagnostic("CT503", "this build of cutile cannot lower kernels to "
                                       "Tile IR yet; use CUTILE_BACKEND=interpreter", sig.span)])
    compiled = compile_fn(kernel.module(), kernel.__name__, spec.const_values,
                          toolchain_facts(spec), backend.arch)
    module = driver.module_load(compiled.cubin)
    function = driver.module_function(module, getattr(compiled, "entry", kernel.__name__))
    slots: list[Slot] = list(getattr(compiled, "slots", None) or default_slots(
        [p.kind for p in sig.params], [len(p.shape) for p in sig.params],
        [p.dtype.name if p.dtype is not None else None for p in sig.params]))
    packer = Packer(slots)
    tensor_args = sorted({s.arg for s in slots if s.field == "ptr"})

    def buffers(args: Any) -> list[Buffer]:
        out = []
        for i in tensor_args:
            v = args[i]
            t = getattr(v, "_tensor", v)
            if t._buf is not None:
                out.append(t._buf)
        return out

    return CudaExecutable(backend, function, module, packer.pack, buffers)


def toolchain_facts(spec: Specialization) -> tuple[ToolchainFacts, ...]:
    """The runtime's facts in the toolchain's key format (stride divisors in elements)."""
    out = []
    params = spec.kernel.binder().sig.params
    for p, f in zip(params, spec.args, strict=True):
        if isinstance(f, MutFacts):
            out.append(_tensor("mut", f.tensor))
        elif isinstance(f, TensorFacts):
            out.append(_tensor("tensor", f))
        elif p.kind == "scalar" and p.dtype is not None:
            out.append(ToolchainFacts("scalar", p.dtype.name))
    return tuple(out)


def _tensor(kind: str, f: TensorFacts) -> ToolchainFacts:
    item = f.dtype.itemsize
    return ToolchainFacts(kind, f.dtype.name, f.rank, f.align,
                          tuple(max(d // item, 0) for d in f.stride_div), f.shape_div,
                          (None,) * f.rank, (None,) * (f.rank - 1) + (1,) if f.contiguous
                          else (None,) * f.rank)
