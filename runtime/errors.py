"""Building the runtime's errors: a code, the registry's wording, the user's call site, notes."""

from __future__ import annotations

from typing import Any

from ..compiler import messages as msg
from ..compiler.diagnostics import Diagnostic, Note, Span
from ..compiler.errors import DeviceError, LaunchError, OwnershipError
from .sites import Site, caller_site


def where(site: Site | Span | None) -> Span:
    if site is None:
        return caller_site().span()
    return site if isinstance(site, Span) else site.span()


def diagnostic(message: msg.Message, site: Site | Span | None, notes: tuple[Note, ...] = (),
               **fields: Any) -> Diagnostic:
    return Diagnostic(message.code, message.format(**fields), where(site), notes=notes)


def ownership_error(message: msg.Message, site: Site | Span | None,
                    notes: tuple[Note, ...] = (), **fields: Any) -> OwnershipError:
    return OwnershipError([diagnostic(message, site, notes, **fields)])


def launch_error(message: msg.Message, site: Site | Span | None, **fields: Any) -> LaunchError:
    return LaunchError([diagnostic(message, site, **fields)])


NO_DEVICE = msg.NO_DEVICE
DRIVER_ERROR = msg.DRIVER_ERROR


def device_error(message: msg.Message, **fields: Any) -> DeviceError:
    return DeviceError([diagnostic(message, None, **fields)])


def error_for(diags: list[Diagnostic]) -> OwnershipError | LaunchError:
    """The exception for a launch contract's verdict: its first code decides the kind."""
    if diags[0].code.startswith("CT3"):
        return OwnershipError(diags)
    return LaunchError(diags)
