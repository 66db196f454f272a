"""`padding=` of the load forms: the value a load reads outside the tensor.

It is a compile-time number (a literal, a Const, `-math.inf`, `math.inf` or `math.nan`) that the
tensor's dtype can represent (CT214 otherwise: `math.inf` for an integer tensor, 1e9 for f16,
2.5 for i32). No padding means zero. The lowering maps zero, -0.0, NaN and the infinities to the
partition view's padding, and any other number to a select on the in-bounds mask
(`lower/padding.py`)."""

from __future__ import annotations

import math
from typing import Any

from ...diagnostics import messages as msg
from ..dtypes import DType, integer_range
from ..frontend.builder import Arg, Builder
from ..ir import Value
from ..types import ConstType, describe

PAD_PARAM = "*, padding: Any = None"  # the keyword parameter every load form declares


def padding_attrs(b: Builder, arg: Arg, dtype: DType, what: str) -> dict[str, Any]:
    """{} for no padding, else {"padding": value} with the value checked against `dtype`."""
    if b.is_none(arg):
        return {}
    v = b.known(arg)
    if not isinstance(v, Value) or not isinstance(v.type, ConstType) or \
            v.type.kind not in ("int", "float", "bool"):
        got = "a tuple" if not isinstance(v, Value) else describe(v.type)
        b.fail(msg.PADDING_KIND, arg.span, what=what, got=got)
    value = b.static_const(arg, f"the padding of {what}")
    assert isinstance(value, (int, float, bool))
    return {"padding": _representable(b, arg, value, dtype)}


def _representable(b: Builder, arg: Arg, value: float, dtype: DType) -> float | int | bool:
    def bad(hint: str = "") -> None:
        b.fail(msg.PADDING_RANGE, arg.span, value=_shown(value), dtype=dtype, hint=hint)

    if dtype.is_float:
        if math.isinf(value) and not dtype.has_inf:
            bad(f" ({dtype} has no infinity; use math.nan or its largest value, "
                f"{dtype.finite_max:g})")
        if math.isfinite(value) and abs(value) > dtype.finite_max:
            bad(f" (its largest finite value is {dtype.finite_max:g})")
        return float(value)
    if not math.isfinite(value) or value != int(value):
        bad(f" ({dtype} tensors pad with integers)")
    lo, hi = integer_range(dtype)
    if not lo <= int(value) <= hi:
        bad(f" (its range is {lo}..{hi})")
    return bool(value) if dtype.is_bool else int(value)


def _shown(value: float) -> str:
    if isinstance(value, float) and math.isinf(value):
        return "-math.inf" if value < 0 else "math.inf"
    if isinstance(value, float) and math.isnan(value):
        return "math.nan"
    return repr(value)
