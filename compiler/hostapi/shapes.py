"""The argument rules of the host constructors (`ct.zeros(shape, dtype)` and friends), once for
the runtime (concrete values) and the checker (the literal arguments it can read): the shape,
the dtype, `ct.arange`'s count, `ct.full`'s value and the seed. The runtime checks them in this
order (count, shape, dtype, value, seed) and raises the first problem."""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from ...diagnostics import messages as msg
from ..dsl.markers import as_dtype
from ..dtypes import ALL_DTYPES, DType

Problem = tuple[msg.Message, dict[str, Any]]

MAX_ELEMENTS = 2**63 - 1  # element counts are signed 64-bit on every backend


def shape_problem(what: str, shape: Any) -> Problem | None:
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


DTYPE_FORMS = ('a dtype: a cutile one (ct.f32), its name ("f32", "float32"), or a NumPy or '
               'torch one (np.float32, np.dtype("float32"), torch.float32)')


def dtype_problem(dtype: object) -> Problem | None:
    """A dtype argument that names no cutile dtype."""
    if as_dtype(dtype) is not None:
        return None
    return msg.BAD_CONSTRUCTOR_ARG, dict(what="dtype", want=DTYPE_FORMS, got=dtype)


def float_dtype_problem(what: str, dt: DType) -> Problem | None:
    """`ct.rand`/`ct.randn` draw floats: an integer dtype would truncate every draw to 0, bool
    make it all True."""
    if dt.is_float:
        return None
    floats = ", ".join(t.name for t in ALL_DTYPES if t.is_float)
    return msg.BAD_CONSTRUCTOR_ARG, dict(what=f"{what} dtype", want=f"a float dtype ({floats}); "
                                         "for random integers use ct.randint in a kernel",
                                         got=dt.name)


def count_problem(what: str, n: object) -> Problem | None:
    """`ct.arange(n, ...)`: n must be an int (its sign is the shape rule's)."""
    if _is_int(n):
        return None
    return msg.BAD_CONSTRUCTOR_ARG, dict(what=what, want="a non-negative int", got=n)


def seed_problem(what: str, seed: object) -> Problem | None:
    if seed is None or (_is_int(seed) and seed >= 0):  # type: ignore[operator]
        return None
    return msg.BAD_CONSTRUCTOR_ARG, dict(what=f"{what} seed", want="None or a non-negative int",
                                         got=seed)


def fill_number(value: object, dt: DType) -> int | float | None:
    """`value` as the number `ct.full` and `fill_` store in `dt`: an integer dtype truncates a
    finite float (as torch.full does) and needs it to fit; None when it cannot be stored."""
    if isinstance(value, bool | np.bool_) or _is_int(value):
        number: int | float = int(value)  # type: ignore[call-overload]
    elif isinstance(value, float | np.floating):
        number = float(value)
    else:
        return None
    if dt.is_integer:
        if isinstance(number, float) and not math.isfinite(number):
            return None
        info = np.iinfo(np.dtype(dt.storage))
        n = int(number)
        return n if int(info.min) <= n <= int(info.max) else None
    if dt.is_float and isinstance(number, int):
        try:
            return float(number)  # past the dtype's range it rounds to inf, as on the device
        except OverflowError:  # beyond float64: no float dtype can even round it
            return None
    return number


def fill_problem(value: object, dt: DType) -> Problem | None:
    if fill_number(value, dt) is not None:
        return None
    return msg.BAD_CONSTRUCTOR_ARG, dict(what="fill value", want=f"a number that fits in "
                                         f"{dt.name}", got=value)


def no_dlpack(kind: str) -> str:
    """`ct.from_dlpack`'s words for an object of type `kind` that has no `__dlpack__`."""
    return f"{kind} does not support DLPack"
