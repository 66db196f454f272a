"""Showing cutile's errors the way the checker shows findings (its `full` format).

An uncaught `CutileError` prints as `path:line:col: error[CT301]: message`, the source line with
carets, and each note with its own frame; its traceback starts at the user's call: frames inside
cutile are dropped from what is shown (`CUTILE_TRACEBACK=full` keeps them, for debugging cutile
itself). Other exceptions go to the hook that was installed before.
"""

from __future__ import annotations

import linecache
import os
import sys
import traceback
from collections.abc import Callable
from types import TracebackType

from ..diagnostics.diagnostic import render_full
from ..diagnostics.errors import CutileError
from .sites import is_internal

Hook = Callable[[type[BaseException], BaseException, TracebackType | None], object]


def render(err: CutileError) -> str:
    """The error's diagnostics in the checker's `full` format (its message when it has none)."""
    if not err.diagnostics:
        return str(err)

    def lines_of(path: str) -> list[str] | None:
        return [line.rstrip("\n") for line in linecache.getlines(path)] or None

    return "\n".join(render_full(d, lines_of(d.span.path), lines_of) for d in err.diagnostics)


def format_error(err: BaseException) -> str:
    """The traceback and message of `err` (and its causes) as the hook prints them."""
    te = traceback.TracebackException(type(err), err, err.__traceback__)
    keep_internal = os.environ.get("CUTILE_TRACEBACK") == "full"
    seen: set[int] = set()
    stack: list[traceback.TracebackException] = [te]
    while stack:  # the chain of causes and contexts, each once
        one = stack.pop()
        if id(one) in seen:
            continue
        seen.add(id(one))
        if not keep_internal:
            user = [f for f in one.stack if not is_internal(f.filename)]
            if user:
                one.stack = traceback.StackSummary.from_list(user)
        stack += [e for e in (one.__cause__, one.__context__) if e is not None]
    _rewrite_messages(te, err)
    return "".join(te.format())


def _rewrite_messages(te: traceback.TracebackException, err: BaseException | None) -> None:
    """Each CutileError in the chain shows its full rendering (on a line of its own)."""
    while te is not None and err is not None:
        if isinstance(err, CutileError) and hasattr(te, "_str"):
            te._str = "\n" + render(err)
        cause = err.__cause__ or (None if err.__suppress_context__ else err.__context__)
        nxt = te.__cause__ or (None if te.__suppress_context__ else te.__context__)
        if nxt is None or cause is None:
            return
        te, err = nxt, cause


_previous: Hook | None = None
uncaught = False  # an uncaught exception ends the program: launches it dropped stay quiet


def _hook(kind: type[BaseException], err: BaseException, tb: TracebackType | None) -> None:
    global uncaught
    uncaught = True
    chain: BaseException | None = err
    while chain is not None and not isinstance(chain, CutileError):
        chain = chain.__cause__ or chain.__context__
    if chain is None and _previous is not None:
        _previous(kind, err, tb)
        return
    sys.stderr.write(format_error(err))
    sys.stderr.flush()


def install() -> None:
    """Makes uncaught cutile errors print in the full format (once; keeps the previous hook)."""
    global _previous
    if sys.excepthook is _hook:
        return
    _previous = sys.excepthook
    sys.excepthook = _hook
