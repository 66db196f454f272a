"""`@ct.kernel(...)` options and `kernel.with_hints(...)`: which exist and which values they take.

One table for the frontend (decorator keywords, checked at edit time) and the runtime (hints
given per launch configuration), so both say the same thing about the same mistake.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

# option -> (what a valid value is, the test); hints are the options that tune code generation
HINTS: dict[str, tuple[str, Any]] = {
    "occupancy": ("an int from 1 to 32 (CTAs per SM)", lambda v: 1 <= v <= 32),
    "num_ctas": ("1, 2, 4, 8 or 16 (CTAs per cluster)", lambda v: v in (1, 2, 4, 8, 16)),
    "opt_level": ("an int from 0 to 3", lambda v: 0 <= v <= 3),
    # Tile IR 13.3+ `num_worker_warps_per_cta`: warps doing the math (tileiras adds its own
    # producer warps); bytecode 13.3 and 13.4 accept 4 or 8
    "worker_warps": ("4 or 8 (math warps per CTA)", lambda v: v in (4, 8)),
}
OPTIONS = ("unsafe", *HINTS)


def option_problem(name: str, value: object) -> str | None:
    """Why `name=value` is not a valid kernel option, in plain words; None when it is."""
    if name == "unsafe":
        return None if isinstance(value, bool) else "must be True or False"
    want = HINTS.get(name)
    if want is None:
        return f"is not a kernel option (options: {', '.join(OPTIONS)})"
    if value is None:
        return None  # the default: tileiras chooses
    if isinstance(value, bool) or not isinstance(value, int) or not want[1](value):
        return f"must be {want[0]}, not {value!r}"
    return None


def merged(options: Mapping[str, Any], hints: Iterable[tuple[str, Any]]) -> dict[str, Any]:
    """The decorator's options with a specialization's hints (`with_hints`) over them: what
    the lowering writes, so what the compile cache key holds."""
    return {**options, **dict(hints)}
