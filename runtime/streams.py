"""The current stream of each thread: a leaf module (it imports nothing of the runtime), so
tensors, DLPack and the constructors can ask for a backend's current stream without importing
`context`, which chooses the backend (and so would tie them into a cycle with it)."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .backends.base import Backend


class _PerThread(threading.local):
    # a class-level default: a missing attribute on a threading.local costs a raised and
    # caught AttributeError (~0.6 us), which every launch would pay
    stream: int | None = None


local = _PerThread()  # `local.stream`: the thread's current stream, None for the default


def stream_of(be: Backend) -> int:
    """The current stream, for callers that hold the backend already."""
    stream = local.stream
    return be.default_stream() if stream is None else stream


def set_current_stream(stream: int | None) -> int | None:
    old = local.stream
    local.stream = stream
    return old
