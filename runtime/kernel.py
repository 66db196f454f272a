"""`@ct.kernel` and `@ct.function`: the launcher objects users call on the host."""

from __future__ import annotations

import inspect
import linecache
from collections.abc import Callable
from typing import Any, TypeVar, overload

from ..compiler.api import check_kernel
from ..compiler.diagnostics import Diagnostic
from ..compiler.errors import KernelError
from ..compiler.frontend.module import ModuleInfo, parse_module
from ..compiler.frontend.signature import read_signature
from .backends.base import Backend, Executable
from .binding import Binder
from .launch import launch
from .ops import LaunchOp
from .spec import Specialization
from .tensor import Tensor

F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["Kernel", "Tensor", "function", "kernel"]


class Kernel:
    """A kernel function: checked by the shared frontend on first use."""

    def __init__(self, fn: Callable[..., Any], options: dict[str, Any]) -> None:
        self.fn = fn
        self.options = options
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__
        self._diagnostics: list[Diagnostic] | None = None
        self._module: ModuleInfo | None = None
        self._binder: Binder | None = None
        self._executables: dict[tuple[int, Any], Executable] = {}

    def __repr__(self) -> str:
        return f"<cutile kernel {self.fn.__module__}.{self.fn.__qualname__}>"

    def check(self) -> list[Diagnostic]:
        """The frontend's diagnostics for this kernel (the same the checker reports)."""
        if self._diagnostics is None:
            path, source = _module_source(self.fn)
            self._diagnostics = check_kernel(source, path, self.fn.__name__)
        return self._diagnostics

    def module(self) -> ModuleInfo:
        """The parsed module the kernel is defined in (parsed once)."""
        if self._module is None:
            path, source = _module_source(self.fn)
            info = parse_module(source, path)
            if isinstance(info, Diagnostic):
                raise KernelError([info])
            self._module = info
        return self._module

    def binder(self) -> Binder:
        """Matches launch arguments to the signature (built once)."""
        if self._binder is None:
            self.ensure_valid()
            info = self.module()
            sig, diags = read_signature(info, info.functions[self.fn.__name__])
            if diags:
                raise KernelError(diags)
            self._binder = Binder(self, sig)
        return self._binder

    def executable(self, backend: Backend, spec: Specialization) -> Executable:
        """The backend's compiled form of one specialization (prepared once, then cached)."""
        key = (id(backend), spec.key)
        exe = self._executables.get(key)
        if exe is None:
            exe = backend.prepare(spec)
            self._executables[key] = exe
        return exe

    def ensure_valid(self) -> None:
        errors = [d for d in self.check() if d.severity.value == "error"]
        if errors:
            raise KernelError(errors)

    def __call__(self, *args: Any, **kwargs: Any) -> LaunchOp:
        """A lazy launch: run it with .sync(), await, .then(fn) or .graph()."""
        return launch(self, args, kwargs)


def _module_source(fn: Callable[..., Any]) -> tuple[str, str]:
    path = inspect.getsourcefile(fn) or inspect.getfile(fn)
    lines = linecache.getlines(path, fn.__globals__)
    return path, "".join(lines)


@overload
def kernel(fn: F, /) -> Kernel: ...
@overload
def kernel(*, unsafe: bool = ..., occupancy: int | None = ..., num_ctas: int | None = ...,
           opt_level: int | None = ...) -> Callable[[F], Kernel]: ...
def kernel(fn: F | None = None, /, **options: Any) -> Kernel | Callable[[F], Kernel]:
    """Marks a kernel. `@ct.kernel` or `@ct.kernel(unsafe=..., occupancy=..., num_ctas=...)`."""
    if fn is not None:
        return Kernel(fn, {})
    return lambda f: Kernel(f, options)


def function(fn: F) -> F:
    """Marks a helper that kernels may call; it is inlined at every call site."""
    fn.__cutile_function__ = True  # type: ignore[attr-defined]
    return fn
