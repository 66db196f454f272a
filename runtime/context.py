"""The active backend and the current stream, chosen lazily on first use.

`CUTILE_BACKEND=cuda|interpreter` forces a backend; otherwise CUDA is used when the driver sees a
GPU, else the interpreter. `CUTILE_DEVICE=i` picks the GPU (cuda:i; default 0).
Nothing touches libcuda until a backend is first needed, and the interpreter path never does.
"""

from __future__ import annotations

import importlib.util
import os
import threading

from ..diagnostics import messages as msg
from .backends.base import Backend
from .errors import device_error
from .streams import local
from .streams import set_current_stream as set_current_stream
from .streams import stream_of as stream_of

ENV = "CUTILE_BACKEND"
DEVICE_ENV = "CUTILE_DEVICE"
_lock = threading.Lock()
_backend: Backend | None = None


_local = local  # the per-thread current stream (streams.py)
_target: tuple[Backend, int] | None = None  # the active backend and its default stream


def backend() -> Backend:
    global _backend
    if _backend is None:
        with _lock:
            if _backend is None:
                _backend = _select()
    return _backend


def set_backend(new: Backend | None) -> Backend | None:
    """Replaces the active backend (None: choose again on next use); returns the old one."""
    global _backend, _target
    with _lock:
        old, _backend, _target = _backend, new, None
    return old


def launch_target() -> tuple[Backend, int]:
    """The active backend and the current stream, in one call for the launch path."""
    global _target
    target = _target
    if target is None:
        be = backend()
        target = _target = (be, be.default_stream())  # a backend's default stream is fixed
    stream = _local.stream
    return target if stream is None else (target[0], stream)


def current_stream() -> int:
    return stream_of(backend())


def _select() -> Backend:
    choice = os.environ.get(ENV, "").strip().lower()
    if choice not in ("", "cuda", "interpreter"):
        from .errors import error

        raise error(msg.BAD_BACKEND_ENV, None, value=choice)
    if choice == "interpreter":
        return _interpreter()
    if choice == "cuda":
        if not _bindings_installed():
            raise device_error(msg.NO_DEVICE, detail="CUTILE_BACKEND=cuda but cuda-python is not "
                               "installed (the light install has no GPU backend); install it "
                               "with pip install 'cutile[cuda]' or use "
                               "CUTILE_BACKEND=interpreter")
        if not _gpu_present():
            raise device_error(msg.NO_DEVICE, detail="CUTILE_BACKEND=cuda but no CUDA device is "
                               "available (no driver or no GPU); unset it or use "
                               "CUTILE_BACKEND=interpreter")
        return _cuda()
    return _cuda() if _gpu_present() else _interpreter()


def _bindings_installed() -> bool:
    """cuda-python (the `cuda` extra) is installed: found without importing it."""
    try:
        return importlib.util.find_spec("cuda.bindings") is not None
    except ImportError:  # no `cuda` package at all
        return False


def _gpu_present() -> bool:
    try:
        from .cuda import driver
    except ImportError:
        return False
    return driver.device_count() > 0


def _interpreter() -> Backend:
    from .backends.interpreter import InterpreterBackend

    return InterpreterBackend()


def _cuda() -> Backend:
    from .backends.cuda import CudaBackend

    return CudaBackend(device_ordinal())


def device_ordinal() -> int:
    """The GPU the CUDA backend uses: `CUTILE_DEVICE` (an ordinal among the visible devices,
    as `cuda:i` numbers them), else 0. One device per process: a process that uses several
    GPUs (tensor parallel) is one process per GPU, each with its own CUTILE_DEVICE."""
    raw = os.environ.get(DEVICE_ENV, "").strip()
    if not raw:
        return 0
    if not raw.isdigit():
        raise device_error(msg.NO_DEVICE, detail=f"{DEVICE_ENV}={raw!r} is not a device number "
                           "(0, 1, ... as cuda:i numbers the visible GPUs)")
    return int(raw)
