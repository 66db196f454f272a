"""Runs fuzz cases in a child process, so a hang (even inside C code) or a crash of the
interpreter is caught by the parent: a case that does not answer in time is a hang, a child
that dies is a crash, and either way a fresh child takes over."""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .frames import is_harness

Check = Callable[[Any], "str | None"]  # None: the case passed; else what went wrong


@dataclass(frozen=True)
class Outcome:
    """`kind` is ok, fail, hang or died; `signature` groups failures of one cause."""

    kind: str
    signature: str = ""
    detail: str = ""


def describe(err: BaseException) -> tuple[str, str]:
    """(signature, detail) of an exception: its type and the innermost frame in cutile."""
    frames = traceback.extract_tb(err.__traceback__)
    ours = [f for f in frames if not is_harness(f.filename)] or frames
    where = f"{os.path.basename(ours[-1].filename)}:{ours[-1].lineno}" if ours else "?"
    signature = f"{type(err).__name__} at {where}"
    detail = "".join(traceback.format_exception(err))
    return signature, detail


def _serve(conn: multiprocessing.connection.Connection, check: Check,
           setup: Callable[[], None] | None) -> None:
    if setup is not None:
        setup()
    while True:
        try:
            case = conn.recv()
        except EOFError:
            return
        try:
            problem = check(case)
            answer = ("ok", "", "") if problem is None else \
                ("fail", problem.splitlines()[0][:200], problem)
        except BaseException as err:  # the property: nothing escapes
            answer = ("fail", *describe(err))
        conn.send(answer)


class Worker:
    def __init__(self, check: Check, setup: Callable[[], None] | None = None) -> None:
        self._check = check
        self._setup = setup
        self._ctx = multiprocessing.get_context("fork")
        self._proc: Any = None
        self._conn: multiprocessing.connection.Connection | None = None

    def _start(self) -> multiprocessing.connection.Connection:
        parent, child = self._ctx.Pipe()
        self._proc = self._ctx.Process(target=_serve, args=(child, self._check, self._setup),
                                       daemon=True)
        self._proc.start()
        child.close()
        self._conn = parent
        return parent

    def run(self, case: Any, timeout: float) -> Outcome:
        conn = self._conn or self._start()
        try:
            conn.send(case)
            if not conn.poll(timeout):
                self.close()
                return Outcome("hang", f"no answer in {timeout:g} s", "")
            kind, signature, detail = conn.recv()
        except (EOFError, OSError, BrokenPipeError):
            code = self._proc.exitcode if self._proc is not None else None
            self.close()
            return Outcome("died", f"the worker died (exit {code})", "")
        return Outcome(kind, signature, detail)

    def close(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.join(5)
        if self._conn is not None:
            self._conn.close()
        self._proc, self._conn = None, None
