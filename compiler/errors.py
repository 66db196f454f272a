"""The exception hierarchy users catch: `ct.CutileError` and its kinds. Each carries Diagnostics."""

from __future__ import annotations

from collections.abc import Sequence

from .diagnostics import Diagnostic, render_concise


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
