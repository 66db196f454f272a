"""The host API the facade re-exports: constructors, DLPack, streams, backend info."""

from __future__ import annotations

from types import TracebackType

from .constructors import (
    arange,
    empty,
    empty_like,
    from_dlpack,
    from_numpy,
    full,
    full_like,
    meta,
    ones,
    ones_like,
    rand,
    randn,
    zeros,
    zeros_like,
)
from .context import backend, current_stream, set_current_stream
from .dlpack import CopiedImportWarning
from .hostimpl import verify
from .ops import DeviceOp, GraphOp, LaunchNeverRunWarning
from .partition import Partition
from .tensor import Tensor

verify()  # every host API entry (compiler/hostapi) has its implementation, and the reverse

# The host-side name of tensor handles, for annotations in host code (`ct.Tensor` is the kernel
# annotation `Tensor[dtype, shape]`, which type checkers see as typing.Annotated).
HostTensor = Tensor

__all__ = [
    "CopiedImportWarning", "DeviceOp", "GraphOp", "HostTensor", "LaunchNeverRunWarning",
    "Partition", "Stream", "Tensor", "arange",
    "backend_name", "empty", "empty_like", "from_dlpack", "from_numpy", "full", "full_like",
    "meta", "ones", "ones_like", "rand", "randn", "synchronize", "zeros", "zeros_like",
]


def backend_name() -> str:
    """'cuda' or 'interpreter': the backend chosen for this process (see CUTILE_BACKEND)."""
    return backend().name


def synchronize() -> None:
    """Waits for all work enqueued on the current stream."""
    backend().synchronize(current_stream())


class Stream:
    """A CUDA stream (the interpreter has one). `with stream:` makes it current in this thread,
    so host calls and launches created inside enqueue on it."""

    def __init__(self) -> None:
        be = backend()
        new = getattr(be, "new_stream", None)
        self.handle: int = new() if new is not None else be.default_stream()
        self._saved: list[int | None] = []

    def synchronize(self) -> None:
        backend().synchronize(self.handle)

    def __enter__(self) -> Stream:
        self._saved.append(set_current_stream(self.handle))
        return self

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None,
                 tb: TracebackType | None) -> None:
        set_current_stream(self._saved.pop())
