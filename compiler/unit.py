"""One kernel of one module parse, frozen, and the one place it is specialized.

`kernel_unit(info, name)` is built once per parse and kept in the `ModuleInfo` (which the
reader's one-parse cache shares), so a file's kernels, their `with_hints` variants, the
launcher and `kernel.compile` all see one unit: the kernel's definition, its signature, its
edit-time diagnostics (the checker's) and the hash of the module text. `specialized_ir(unit,
spec)` is the only way from a launch's Specialization (argument facts, Consts, hints, arch) to
typed IR: the interpreter runs its result and the lowering compiles it. The compile cache key
(`compile.specialization_key`) is made from the same inputs before any of that work.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from ..diagnostics.diagnostic import Diagnostic
from ..diagnostics.errors import error_for
from ..reader.source import FunctionDef, ModuleInfo, read_module
from .analysis import analyze_guarded, internal_error
from .frontend.function import KernelResult
from .frontend.params import KernelSignature, read_signature
from .ir import KernelIR
from .specialization import Specialization
from .tiling import persistent_misuse

_lock = threading.Lock()


@dataclass(frozen=True, eq=False)
class KernelUnit:
    info: ModuleInfo
    fn: FunctionDef
    qualname: str  # "<file stem>.<kernel>", the cache's name for it
    # analyses with Const values, by those values: compiling, the status word's spans and the
    # pdl facts of one specialization read one
    _by_consts: dict[tuple[tuple[str, Any], ...], KernelResult] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.fn.name

    @cached_property
    def source_hash(self) -> str:
        """Of the whole module text: helpers, constants and imports feed the IR (hashed when a
        cache key first needs it: the checker makes units of every kernel and never does, so
        it never imports the toolchain package either)."""
        from .toolchain.key import source_hash

        return source_hash(self.info.source)

    @cached_property
    def signature(self) -> tuple[KernelSignature, tuple[Diagnostic, ...]]:
        """The parameters as the launcher binds them, and the problems reading them."""
        sig, diags = read_signature(self.info, self.fn)
        return sig, tuple(diags)

    @cached_property
    def analysis(self) -> KernelResult:
        """The kernel analyzed without Const values: the checker's diagnostics and the editor's
        typed names (hovers, inlay hints) come from this one analysis."""
        return analyze_guarded(self.info, self.fn)

    def with_consts(self, consts: dict[str, Any]) -> KernelResult:
        """The kernel analyzed with these Const values (once per distinct values)."""
        key = tuple(sorted(consts.items()))
        result = self._by_consts.get(key)
        if result is None:
            result = analyze_guarded(self.info, self.fn, consts)
            with _lock:
                result = self._by_consts.setdefault(key, result)
        return result

    @cached_property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        """The kernel's CT1/CT2 diagnostics without Const values (what the checker reports)."""
        return tuple(self.analysis.diagnostics)


def kernel_unit(info: ModuleInfo, name: str) -> KernelUnit:
    """The unit of kernel `name` of this parse (made on first use, then shared)."""
    key = f"unit:{name}"
    unit = info.derived.get(key)
    if unit is None:
        with _lock:
            unit = info.derived.get(key)
            if unit is None:
                unit = KernelUnit(info, info.functions[name], f"{Path(info.path).stem}.{name}")
                info.derived[key] = unit
    assert isinstance(unit, KernelUnit)
    return unit


def check_kernel(source: str, path: str, name: str) -> list[Diagnostic]:
    """The diagnostics of one kernel (and the helpers it inlines), as the JIT reports them:
    its unit's, so the file's other kernels and `with_hints` variants share one analysis."""
    info = read_module(source, path)
    if isinstance(info, Diagnostic):
        return [info]
    return list(kernel_unit(info, name).diagnostics) if name in info.functions else []


def specialized_ir(unit: KernelUnit, spec: Specialization) -> KernelIR:
    """The IR a backend runs for one launch's specialization: KernelError on frontend errors,
    LaunchError when the launch's partitions do not fit how the kernel uses them."""
    result = unit.with_consts(spec.const_values)
    errors = [d for d in result.diagnostics if d.severity.value == "error"]
    if errors or result.ir is None:
        name = unit.name
        missing = internal_error(RuntimeError(f"no IR for {name}"), f"specializing '{name}'",
                                 result.signature.span)
        raise error_for(errors or [missing])
    misuse = persistent_misuse(result.ir, spec)
    if misuse:
        raise error_for(misuse)
    return result.ir
