"""The Python object an argument of the host API certainly is at run time, where the analysis
can know it (numbers, strings, None, cutile dtypes, tuples of those, NumPy's and math's
attributes such as `np.float32`, and `np.dtype("float32")`), so the runtime's own argument
rules (compiler/hostapi/shapes.py) judge it as they judge the value at run time."""

from __future__ import annotations

import ast
import math
from typing import Any

import numpy

from ...reader.source import literal_value
from .context import Ctx
from .uses import head_name
from .values import UNKNOWN, DTypeVal, IntVal, LiteralVal, State, TupleVal, Value

NOT_KNOWN: Any = type("NotKnown", (), {"__repr__": lambda self: "NOT_KNOWN"})()
_MODULES: dict[str, object] = {"numpy": numpy, "math": math}


def known_object(ctx: Ctx, st: State, value: Value, expr: ast.expr | None) -> object:
    """What `expr` (whose abstract value is `value`) evaluates to; NOT_KNOWN where unknown."""
    if isinstance(value, (IntVal, LiteralVal)):
        return value.value
    if isinstance(value, DTypeVal):
        return value.dtype
    if isinstance(value, TupleVal):
        items = tuple(known_object(ctx, st, v, None) for v in value.items)
        return NOT_KNOWN if NOT_KNOWN in items else items
    if expr is None:
        return NOT_KNOWN
    literal = literal_value(expr)
    if literal is not None:
        return literal
    if head_name(expr) in st.env:
        return NOT_KNOWN
    if isinstance(expr, ast.Call):
        return _numpy_dtype(ctx, st, expr)
    module, _, attr = (ctx.info.qualified(expr) or "").rpartition(".")
    if module in _MODULES:
        return getattr(_MODULES[module], attr, NOT_KNOWN)
    return NOT_KNOWN


def _numpy_dtype(ctx: Ctx, st: State, call: ast.Call) -> object:
    """`np.dtype(x)` of a known `x`."""
    if (head_name(call.func) in st.env or ctx.info.qualified(call.func) != "numpy.dtype"
            or len(call.args) != 1 or call.keywords or isinstance(call.args[0], ast.Starred)):
        return NOT_KNOWN
    arg = known_object(ctx, st, UNKNOWN, call.args[0])
    if arg is NOT_KNOWN:
        return NOT_KNOWN
    try:
        return numpy.dtype(arg)  # type: ignore[call-overload]
    except Exception:  # NumPy refuses it: a TypeError at run time, not ours to report
        return NOT_KNOWN
