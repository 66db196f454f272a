"""Element layouts of host tensors, as plain functions of shapes and strides (no handles): the
leaf below `Tensor` and its helpers (views, DLPack), so none of them imports another for it."""

from __future__ import annotations

import math

from ..compiler.launch.regions import (
    contiguous_strides,
    element_range,
    is_contiguous,
    resolve_dims,
)
from ..diagnostics import messages as msg
from .errors import launch_error
from .sites import Site

__all__ = ["byte_range", "contiguous_strides", "is_contiguous", "resolve_shape"]


def byte_range(shape: tuple[int, ...], strides: tuple[int, ...], item: int) -> tuple[int, int]:
    """Bytes [lo, hi), relative to element 0, that the elements touch."""
    lo, hi = element_range(shape, strides)
    return lo * item, hi * item


def resolve_shape(shape: tuple[int, ...] | int, size: int, old: tuple[int, ...],
                  site: Site) -> tuple[int, ...]:
    """The new shape of `reshape`/`view` (one -1 inferred): CT406 for anything else than ints,
    or for another element count than `size`."""
    dims = (shape,) if isinstance(shape, int) else tuple(shape) if isinstance(
        shape, (tuple, list)) else (None,)
    if not all(isinstance(d, int) and not isinstance(d, bool) for d in dims):
        raise launch_error(msg.BAD_CONSTRUCTOR_ARG, site, what="reshape",
                           want="a shape of ints (-1 for one inferred extent)", got=shape)
    dims = resolve_dims(dims, size)
    if any(d < 0 for d in dims) or math.prod(dims) != size:
        raise launch_error(msg.BAD_RESHAPE, site, a=old, na=size, b=tuple(shape) if not isinstance(
            shape, int) else (shape,), nb=math.prod(dims))
    return dims
