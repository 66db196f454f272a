"""What a pending launch (a lazy op) offers, for the rule that its results come from .sync().

`kernel(args)` returns an op, not the arguments: indexing it, unpacking it or asking it for a
tensor's attribute is CT406 in the checker and at run time, worded here once.
"""

from __future__ import annotations

from typing import Literal

from ...diagnostics import messages as msg
from ...diagnostics.diagnostic import Diagnostic, Span

Use = Literal["attribute", "unpack", "index"]


# How each way of waiting is named in CT406 (`a, b = await op` into the wrong number of names).
Form = Literal["sync", "await", "graph sync", "graph await"]
_FORMS: dict[Form, str] = {"sync": ".sync() of this launch of {kernel}",
                           "await": "awaiting this launch of {kernel}",
                           "graph sync": ".sync() of this graph of {kernel}",
                           "graph await": "awaiting this graph of {kernel}"}


def unsynced_diagnostic(kernel: str, use: Use, span: Span, attribute: str = "",
                        graph: bool = False) -> Diagnostic:
    words = {"attribute": f"it has no attribute '{attribute}'",
             "unpack": "it cannot be unpacked", "index": "it cannot be indexed"}[use]
    if graph:
        return msg.GRAPH_RESULT_UNSYNCED.at(span, kernel=kernel, use=words)
    return msg.LAUNCH_RESULT_UNSYNCED.at(span, kernel=kernel, use=words)


def sync_unpack_diagnostic(kernel: str, returned: int, names: int, span: Span,
                           form: Form = "sync") -> Diagnostic:
    """CT406: `a, b = op.sync()` (or `await op`, a graph's) where the op hands back another
    number of values."""
    counts = dict(n=returned, s="" if returned == 1 else "s", m=names,
                  ms="" if names == 1 else "s", v="s" if names == 1 else "")
    if form == "sync":
        return msg.SYNC_UNPACK.at(span, kernel=kernel, **counts)
    return msg.WAIT_UNPACK.at(span, how=_FORMS[form].format(kernel=kernel), **counts)


def then_arity_diagnostic(takes: str, returned: int, span: Span) -> Diagnostic:
    """CT406: `op.then(fn)` where `fn` cannot take the op's results as positional arguments."""
    return msg.THEN_ARITY.at(span, takes=takes, n=returned, s="" if returned == 1 else "s")


def takes_words(needed: int, most: int, star: bool) -> str:
    """How many positional arguments a function takes, in words ("2", "1 to 3", "at least 2"):
    `needed` without defaults, `most` in all, `star` with *args."""
    if star:
        return f"at least {needed} positional argument{'' if needed == 1 else 's'}"
    count = str(most) if needed == most else f"{needed} to {most}"
    return f"{count} positional argument{'' if most == 1 else 's'}"


def accepts(needed: int, most: int, star: bool, n: int) -> bool:
    return needed <= n and (star or n <= most)
