"""The exception hierarchy users catch: `ct.CutileError` and its kinds. Each carries Diagnostics.

Which class a failure raises is its code's behaviour in the registry (`Code.raises`, a class
name: the registry sits below this module); `error_class` is the one place that maps it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from .codes import CODES, Raises, Severity
from .diagnostic import Diagnostic, render_concise

E = TypeVar("E", bound="CutileError")


class CutileError(Exception):
    # A failed launch or `.then` chain hands its arguments back here (the tuple `.sync()` would
    # have returned), so the caller can rebind them; empty for other errors.
    results: tuple[object, ...] = ()

    def __init__(self, diagnostics: Sequence[Diagnostic] | str) -> None:
        self.diagnostics: tuple[Diagnostic, ...] = (
            () if isinstance(diagnostics, str) else tuple(diagnostics))
        text = diagnostics if isinstance(diagnostics, str) else "\n".join(
            render_concise(d) for d in self.diagnostics)
        super().__init__(text)


class KernelError(CutileError):
    """Frontend diagnostics (CT1xx, CT2xx) for a kernel that cannot be compiled."""


class OwnershipError(CutileError):
    """Ownership rules (CT3xx): use after move, aliasing, writes to leased tensors."""


class LaunchError(CutileError):
    """Launch arguments that do not fit the kernel (CT4xx)."""


class CompileError(CutileError):
    """tileiras failed or is missing (CT5xx)."""


class DeviceError(CutileError):
    """The CUDA driver or device failed (CT5xx)."""


_CLASSES: dict[Raises, type[CutileError]] = {
    cls_kind: cls for cls in (KernelError, OwnershipError, LaunchError, CompileError, DeviceError,
                              CutileError)
    for cls_kind in Raises if cls_kind.value == cls.__name__
}


def error_class(code: str) -> type[CutileError]:
    """The exception class findings of `code` raise at run time."""
    return _CLASSES[CODES[code].raises]


def error_for(diagnostics: Sequence[Diagnostic]) -> CutileError:
    """The exception for a failure: the class its first error's code declares."""
    first = next((d for d in diagnostics if d.severity is Severity.ERROR), diagnostics[0])
    return error_class(first.code)(diagnostics)


def expected_error(kind: type[E], diagnostics: Sequence[Diagnostic]) -> E:
    """`error_for` where the caller knows the class it raises (a helper typed for it): a code the
    registry maps to another class is a bug in the caller, caught by the tests."""
    err = error_for(diagnostics)
    if not isinstance(err, kind):
        raise TypeError(f"{diagnostics[0].code} raises {type(err).__name__} by the registry, "
                        f"not {kind.__name__}")
    return err
