"""Memory hints a view load may carry to tileiras (`load_view_tko`'s optimization hints):
`latency=` (1-10, how long to expect the load to take: longer keeps more TMA stages in flight,
so more bytes per SM for a memory-bound loop) and `allow_tma=` (False: plain loads, no TMA
copy and no shared-memory staging)."""

from __future__ import annotations

from typing import Any

from ...diagnostics import messages as msg
from ..frontend.builder import Builder
from ..ir import Value
from .registry import Call

HINT_PARAMS = "latency: Any = None, allow_tma: Any = None"
LATENCY = range(1, 11)


def load_hints(b: Builder, c: Call, what: str) -> dict[str, Any]:
    """{"latency": n, "allow_tma": flag} for the hints given (CT217 for a bad one)."""
    out: dict[str, Any] = {}
    latency = _given_const(b, c, "latency", what)
    if latency is not None:
        if isinstance(latency, bool) or not isinstance(latency, int) or latency not in LATENCY:
            b.fail(msg.LOAD_HINT, c["latency"].span, what=what,
                   problem=f"latency must be an int from 1 to 10, not {latency!r}")
        out["latency"] = latency
    tma = _given_const(b, c, "allow_tma", what)
    if tma is not None:
        if not isinstance(tma, bool):
            b.fail(msg.LOAD_HINT, c["allow_tma"].span, what=what,
                   problem=f"allow_tma must be True or False, not {tma!r}")
        out["allow_tma"] = tma
    return out


def _given_const(b: Builder, c: Call, name: str, what: str) -> object:
    v = b.known(c[name])
    if isinstance(v, Value) and v.is_const and v.const is None:
        return None
    return b.static_const(c[name], f"the {name} of {what}")
