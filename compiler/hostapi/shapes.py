"""The shape rule of the host constructors (`ct.zeros(shape, ...)` and friends), once for the
runtime (concrete values) and the checker (literal shapes it can read)."""

from __future__ import annotations

import math
import numbers
from typing import Any

from ...diagnostics import messages as msg

MAX_ELEMENTS = 2**63 - 1  # element counts are signed 64-bit on every backend


def shape_problem(what: str, shape: Any) -> tuple[msg.Message, dict[str, Any]] | None:
    """Why `shape` is not a constructor's shape (CT406 for anything but non-negative ints, an int
    being rank 1; CT412 for more than MAX_ELEMENTS elements), as a message and its fields."""
    dims = (shape,) if _is_int(shape) else (
        tuple(shape) if isinstance(shape, tuple | list) else None)
    if dims is None or any(not _is_int(d) or d < 0 for d in dims):
        return msg.BAD_CONSTRUCTOR_ARG, dict(what=f"{what} shape",
                                             want="a tuple of non-negative ints", got=shape)
    dims = tuple(int(d) for d in dims)
    count = math.prod(dims)
    if count > MAX_ELEMENTS:
        return msg.SHAPE_TOO_LARGE, dict(what=what, shape=dims, count=count)
    return None


def _is_int(v: object) -> bool:
    """An int (NumPy's integer scalars too: they register as Integral), never a bool."""
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)
