"""NumPy arrays made in host code whose shape and dtype the arguments show (`np.ones((37, 100),
np.float32)`, `np.zeros(n)`, `np.random.rand(5, 80)`, `a.astype(np.float32)`), so that
`ct.from_numpy(a)` has the shape and dtype the run gives it and its launches are checked as
those of `ct.ones(...)` are (NumPy's float64 default included)."""

from __future__ import annotations

import ast

import numpy

from .context import Ctx
from .literals import NOT_KNOWN, known_object
from .uses import head_name, read
from .values import UNKNOWN, HostArrayVal, State, Value

# shape first; the position of `dtype` among the positional arguments
_FILLS = {"numpy.zeros": 1, "numpy.ones": 1, "numpy.empty": 1, "numpy.full": 2}
_RANDOM = {"numpy.random.rand", "numpy.random.randn"}  # dims as arguments, float64
_SIZED = {"numpy.random.random", "numpy.random.random_sample"}  # size as its argument


def numpy_array(ctx: Ctx, st: State, call: ast.Call) -> HostArrayVal | None:
    """The array a NumPy constructor call makes; None when `call` is no such call."""
    name = ctx.info.qualified(call.func)
    if name is None or head_name(call.func) in st.env or any(
            isinstance(a, ast.Starred) for a in call.args) or any(
            k.arg is None for k in call.keywords):
        return None
    if name not in _FILLS and name not in _RANDOM and name not in _SIZED:
        return None
    args = [_known(ctx, st, a) for a in call.args]
    kwargs = {k.arg: _known(ctx, st, k.value) for k in call.keywords if k.arg is not None}
    if name in _RANDOM:
        return HostArrayVal(_shape(tuple(args)), "float64")
    if name in _SIZED:
        return HostArrayVal(_shape(args[0] if args else kwargs.get("size", ())), "float64")
    where = _FILLS[name]
    shape = _shape(args[0] if args else kwargs.get("shape", NOT_KNOWN))
    given = args[where] if len(args) > where else kwargs.get("dtype")
    if name == "numpy.full" and given is None:  # the fill value's dtype, as NumPy takes it
        fill = args[1] if len(args) > 1 else kwargs.get("fill_value", NOT_KNOWN)
        return HostArrayVal(shape, _dtype_name(lambda: numpy.full((0,), fill).dtype, fill))
    return HostArrayVal(shape, "float64" if given is None else _dtype_name(
        lambda: numpy.dtype(given), given))  # type: ignore[call-overload]


def astype(ctx: Ctx, st: State, array: HostArrayVal, call: ast.Call) -> Value:
    """`a.astype(dtype)`: the same shape in that dtype."""
    if len(call.args) != 1 or call.keywords or isinstance(call.args[0], ast.Starred):
        return UNKNOWN
    given = _known(ctx, st, call.args[0])
    return HostArrayVal(array.shape, _dtype_name(lambda: numpy.dtype(given), given))  # type: ignore[call-overload]


def _known(ctx: Ctx, st: State, expr: ast.expr) -> object:
    value = ctx.evaluate(st, expr)
    read(ctx, value)
    return known_object(ctx, st, value, expr)


def _shape(value: object) -> tuple[int, ...] | None:
    dims = (value,) if isinstance(value, int) else value
    if not isinstance(dims, tuple) or not all(
            isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in dims):
        return None
    return dims


def _dtype_name(make: object, given: object) -> str | None:
    if given is NOT_KNOWN:
        return None
    try:
        return str(make().name)  # type: ignore[operator]
    except Exception:  # NumPy refuses it: its own error at run time, not ours to report
        return None
