"""Building the runtime's errors: a code, the registry's wording, the user's call site, notes.

The exception class is the registry's (`Code.raises`, through `compiler.errors.error_for`); the
typed helpers below only state which class their callers expect, checked against the registry.
"""

from __future__ import annotations

from typing import Any

from ..diagnostics import messages as msg
from ..diagnostics.diagnostic import Diagnostic, Note, Span
from ..diagnostics.errors import (
    CutileError,
    DeviceError,
    LaunchError,
    OwnershipError,
    error_for,
    expected_error,
)
from .sites import Site, caller_site


def where(site: Site | Span | None) -> Span:
    if site is None:
        return caller_site().span()
    return site if isinstance(site, Span) else site.span()


def diagnostic(message: msg.Message, site: Site | Span | None, notes: tuple[Note, ...] = (),
               **fields: Any) -> Diagnostic:
    return message.at(where(site), notes, **fields)


def error(message: msg.Message, site: Site | Span | None, notes: tuple[Note, ...] = (),
          **fields: Any) -> CutileError:
    """The exception the registry declares for `message`'s code."""
    return error_for([diagnostic(message, site, notes, **fields)])


def ownership_error(message: msg.Message, site: Site | Span | None,
                    notes: tuple[Note, ...] = (), **fields: Any) -> OwnershipError:
    return expected_error(OwnershipError, [diagnostic(message, site, notes, **fields)])


def launch_error(message: msg.Message, site: Site | Span | None, **fields: Any) -> LaunchError:
    return expected_error(LaunchError, [diagnostic(message, site, **fields)])


NO_DEVICE = msg.NO_DEVICE
DRIVER_ERROR = msg.DRIVER_ERROR


def device_error(message: msg.Message, **fields: Any) -> DeviceError:
    return expected_error(DeviceError, [diagnostic(message, None, **fields)])
