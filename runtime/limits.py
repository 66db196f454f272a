"""Resource limits as coded errors (CT412) instead of MemoryError, OverflowError or ValueError.

A shape's element count must fit in 63 bits (the device's addressing and NumPy's). An allocation
must fit in its backend's memory (`Backend.memory_limit`: the host's physical memory for the
interpreter, the device's total memory for CUDA); a MemoryError from the allocator itself
becomes the same error, naming what was asked and the limit.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import TypeVar

from ..compiler.dtypes import DType
from ..compiler.hostapi.shapes import MAX_ELEMENTS as MAX_ELEMENTS
from ..diagnostics import messages as msg
from ..diagnostics.errors import LaunchError
from .errors import launch_error
from .sites import Site

T = TypeVar("T")


def host_memory() -> int | None:
    """Physical memory of this machine in bytes (None where the OS does not say)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return None


CHECK_AVAILABLE = 1 << 30  # host allocations from this size on are checked against free memory


def available_memory() -> int | None:
    """Memory the host can give now without swapping (Linux's MemAvailable), or None. Linux
    overcommits: a large allocation beyond it does not fail but gets the process killed when it
    is filled, so host allocations of CHECK_AVAILABLE bytes or more are refused first."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def refuse_if_unavailable(nbytes: int) -> None:
    """A MemoryError (as an allocator would raise) for a large host allocation beyond what is
    free now; `allocating` turns it into CT412."""
    if nbytes >= CHECK_AVAILABLE:
        free = available_memory()
        if free is not None and nbytes > free:
            raise MemoryError(nbytes)


def format_bytes(n: int) -> str:
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if size < 1024 or unit == "PiB":
            return f"{n} B" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")


def check_count(what: str, shape: tuple[int, ...], site: Site) -> int:
    """The element count of `shape`, or CT412 when it does not fit in 63 bits."""
    count = math.prod(shape)
    if count > MAX_ELEMENTS:
        raise launch_error(msg.SHAPE_TOO_LARGE, site, what=what, shape=shape, count=count)
    return count


def too_large(what: str, shape: tuple[int, ...], dtype: DType, nbytes: int,
              limit: str, site: Site) -> LaunchError:
    return launch_error(msg.TOO_LARGE, site, what=what, shape=shape, dtype=dtype.name,
                        size=format_bytes(nbytes), limit=limit)


def check_fits(what: str, shape: tuple[int, ...], dtype: DType, nbytes: int,
               limit: tuple[int, str] | None, site: Site) -> None:
    """CT412 when `nbytes` is more than the backend's memory (`limit`: bytes and where)."""
    if limit is not None and nbytes > limit[0]:
        raise too_large(what, shape, dtype, nbytes,
                        f"{limit[1]} ({format_bytes(limit[0])})", site)


def allocating(what: str, shape: tuple[int, ...], dtype: DType, nbytes: int, site: Site,
               run: Callable[[], T]) -> T:
    """`run()`, with a MemoryError (the host could not give that much now) as CT412."""
    try:
        return run()
    except MemoryError:
        raise too_large(what, shape, dtype, nbytes, "the memory free now", site) from None
