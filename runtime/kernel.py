"""`@ct.kernel` and `@ct.function`: the launcher objects users call on the host."""

from __future__ import annotations

import inspect
import linecache
from collections.abc import Callable
from types import MethodType
from typing import TYPE_CHECKING, Any, TypeVar, Unpack, overload

from ..compiler.kernel_options import KernelHints, KernelOptions, hint_problem
from ..compiler.pdl import PdlFacts, early_accesses, is_pdl
from ..compiler.specialization import Specialization
from ..compiler.unit import check_kernel, kernel_unit, specialized_ir
from ..diagnostics import messages as msg
from ..diagnostics.diagnostic import Diagnostic, Span
from ..diagnostics.errors import error_for
from ..reader.imports import unread_decorator
from ..reader.source import ModuleInfo, definition, read_module
from .backends.base import CPU, Backend, Buffer, Executable
from .binding import Binder
from .errors import error
from .fastpath import configure_native
from .launch import launch, launch_linked, launch_unchecked, launch_unchecked_linked
from .ops import linked_launchers
from .ownership import State
from .partition import Partition
from .plans import Plans, build_plans, handle_id
from .sites import caller_site
from .tensor import Tensor

if TYPE_CHECKING:
    from ..compiler.compile import Compiled

F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["Kernel", "Tensor", "function", "kernel"]


class Kernel:
    """A kernel function: checked by the shared frontend on first use."""

    def __init__(self, fn: Callable[..., Any], options: dict[str, Any],
                 hints: tuple[tuple[str, int], ...] = (), entry_wait: bool = False) -> None:
        self.fn = fn
        self.options = options
        self.hints = hints  # from with_hints: over the decorator's options when compiling
        self.entry_wait = entry_wait  # `dependent()`: waits for its predecessor first thing
        self.__name__ = fn.__name__
        self.qualname = fn.__qualname__  # its key in the module's parse (a kernel made in a
        # function or a class body is `make.<locals>.copy`)
        self.__doc__ = fn.__doc__
        self._diagnostics: list[Diagnostic] | None = None
        self._module: ModuleInfo | None = None
        self._binder: Binder | None = None
        self._plans: Plans | None = None
        self._executables: dict[tuple[int, Any], Executable] = {}
        self._dependent: Kernel | None = None

    def __repr__(self) -> str:
        return f"<cutile kernel {self.fn.__module__}.{self.fn.__qualname__}>"

    def check(self) -> list[Diagnostic]:
        """The frontend's diagnostics for this kernel (the same the checker reports)."""
        if self._diagnostics is None:
            path, source = _module_source(self.fn)
            self._diagnostics = check_kernel(source, path, self.qualname)
        return self._diagnostics

    def module(self) -> ModuleInfo:
        """The parsed module the kernel is defined in (parsed once per file, shared by its
        kernels and with `check()`)."""
        if self._module is None:
            path, source = _module_source(self.fn)
            info = read_module(source, path)
            if isinstance(info, Diagnostic):
                raise error_for([info])
            if self.qualname not in info.functions:
                raise error_for([self._not_found(info, path)])
            self._module = info
        return self._module

    def _not_found(self, info: ModuleInfo, path: str) -> Diagnostic:
        """Why the parse has no kernel of this name: its decorator names cutile through a
        module cutile cannot read, no decorator it can see, or (CT906) no source at all."""
        node = definition(info, self.qualname)
        if node is not None:
            unread = unread_decorator(info, node)
            return unread or msg.KERNEL_NOT_SEEN.at(info.name_span(node), name=self.__name__)
        line = self.fn.__code__.co_firstlineno  # `python -c`, stdin, a REPL
        return msg.KERNEL_SOURCE_MISSING.at(Span(path, line, 0, line, 0), name=self.__name__,
                                            path=path)

    def binder(self) -> Binder:
        """Matches launch arguments to the signature (built once)."""
        if self._binder is None:
            self.ensure_valid()
            sig, diags = kernel_unit(self.module(), self.qualname).signature
            if diags:
                raise error_for(list(diags))
            self._binder = Binder(self, sig)
        return self._binder

    def plans(self) -> Plans:
        """Launch plans by argument descriptor (the launch fast path; see plans.py)."""
        if self._plans is None:
            self._plans = build_plans(self)
        return self._plans

    def executable(self, backend: Backend, spec: Specialization) -> Executable:
        """The backend's compiled form of one specialization (prepared once, then cached)."""
        key = (id(backend), spec)
        exe = self._executables.get(key)
        if exe is None:
            exe = backend.prepare(self, spec)
            if self.entry_wait:  # nothing before its wait
                exe.pdl = PdlFacts(self.__name__, ())
            elif is_pdl(self.options):  # what it touches before its wait (runtime/pdl.py)
                exe.pdl = early_accesses(specialized_ir(kernel_unit(self.module(),
                                                                    self.qualname), spec))
            self._executables[key] = exe
        return exe

    def with_hints(self, **hints: Unpack[KernelHints]) -> Kernel:
        """The same kernel compiled with other code-generation hints (compiler/kernel_options.py
        declares them) than its decorator gives, e.g. per GPU architecture from a tuning
        table. A hint set to None goes back to the decorator's value."""
        merged = dict(self.hints)
        for name, value in hints.items():
            problem = hint_problem(name, value)
            if problem is not None:
                raise error(msg.BAD_KERNEL_OPTION, None, name=name, problem=problem)
            if value is None:
                merged.pop(name, None)
            else:
                assert isinstance(value, int)  # hint_problem checked it
                merged[name] = value
        return Kernel(self.fn, self.options, tuple(sorted(merged.items())), self.entry_wait)

    def dependent(self) -> Kernel:
        """The same kernel as a programmatic dependent launch (sm_90+) that waits for its
        predecessor before anything else: as a link of a `.then` chain (or its graph) it may be
        launched while the launch before it still runs, its blocks get resident and wait, and
        right after the wait it lets the next launch start. That hides the gap between short
        kernels without touching their code; with nothing before the wait there is nothing to
        check (CT308). A `pdl=True` kernel has its own wait and is returned as it is. Made once
        per kernel (its launch plans and executables are kept)."""
        if is_pdl(self.options) or self.entry_wait:
            return self
        if self._dependent is None:
            self._dependent = Kernel(self.fn, {**self.options, "pdl": True}, self.hints,
                                     entry_wait=True)
        return self._dependent

    def ensure_valid(self) -> None:
        errors = [d for d in self.check() if d.severity.value == "error"]
        if errors:
            raise error_for(errors)

    # `kernel(*args)`: a lazy launch (run it with .sync(), await, .then(fn) or .graph()).
    # The launcher itself, not a method calling it: one Python frame less on every launch.
    __call__ = launch

    # `kernel.unchecked(*args)`: a launch without the safety checks, for measuring what they
    # cost (and as an escape hatch): no ownership (nothing is moved or leased; `.sync()`
    # returns the same objects), no aliasing or scalar-range checks. It compiles and launches
    # exactly as a checked launch does; the first call per kind of arguments still validates
    # them. Two launches writing the same memory, or a tensor freed while one runs, are then
    # the caller's problem.
    unchecked = launch_unchecked

    def compile(self, *args: Any, arch: str = "sm_90", **consts: Any) -> Compiled:
        """Specializes and compiles without launching (and without a GPU): the compiled kernel
        with `.bytecode`, `.cubin` and `.tileir`. Arguments are checked and turned into facts by
        the launcher's binder; `ct.meta` tensors (and partitions of them) stand in for real ones
        at allocator alignment. Nothing is moved or leased."""
        from ..compiler.compile import compile_kernel

        bound = self.binder().bind(tuple(_stand_in(a) for a in args),
                                   {k: _stand_in(v) for k, v in consts.items()}, caller_site(),
                                   aliasing=False)
        return compile_kernel(self.module(), self.qualname, bound.spec, arch)


# `.then(kernel)` and `.then(kernel.unchecked)` launch with the link's site
linked_launchers[Kernel] = launch_linked
configure_native(Kernel, Tensor, launch_unchecked, launch_linked, handle_id)
linked_launchers[MethodType] = launch_unchecked_linked


def _stand_in(value: Any) -> Any:
    """A fresh view of an argument for compiling only: a meta tensor gets a stand-in buffer at
    address 0 (every alignment divides it, as with allocator memory); real tensors keep
    their address. The caller's values are not touched (no move, no lease)."""
    if isinstance(value, (Partition, Tensor)) and value._own.state is State.MOVED:
        return value  # the binder reports the earlier move, as a launch would
    if isinstance(value, Partition):
        return Partition(_stand_in(value._tensor), value.tile, value.order, value.blocks)
    if isinstance(value, Tensor):
        buf = value._buf if value._buf is not None else Buffer(CPU, 0, 0)
        return Tensor(value._backend, buf, value._offset, value._shape, value._strides,
                      value._dtype)
    return value


def _module_source(fn: Callable[..., Any]) -> tuple[str, str]:
    path = inspect.getsourcefile(fn) or inspect.getfile(fn)
    lines = linecache.getlines(path, fn.__globals__)
    return path, "".join(lines)


@overload
def kernel(fn: F, /) -> Kernel: ...
@overload
def kernel(**options: Unpack[KernelOptions]) -> Callable[[F], Kernel]: ...
def kernel(fn: F | None = None, /, **options: Any) -> Kernel | Callable[[F], Kernel]:
    """Marks a kernel. `@ct.kernel` or `@ct.kernel(option=value, ...)` with the options
    compiler/kernel_options.py declares (`unsafe`, `occupancy`, ...)."""
    if fn is not None:
        return Kernel(fn, {})
    return lambda f: Kernel(f, options)


def function(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Marks a helper that kernels may call; it is inlined at every call site. Helpers may be
    unannotated (cutile infers their tile types), so to type checkers the result is
    `Callable[..., Any]`: an annotated kernel calling one is not an untyped call under
    `mypy --strict` (the unannotated `def` itself still needs `# type: ignore[no-untyped-def]`)."""
    fn.__cutile_function__ = True  # type: ignore[attr-defined]
    return fn
