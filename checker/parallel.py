"""Checking many files on several cores: files are independent given the project index, so each
worker process keeps its own index (a module imported by files of two workers is parsed twice)."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor

from ..diagnostics.diagnostic import Diagnostic
from .config import Config
from .host import ProjectIndex

FileResult = tuple[str | None, list[Diagnostic]]  # the file's text (None if unreadable), findings
CheckFile = Callable[[str, Config, ProjectIndex], FileResult]

MIN_FILES_PER_JOB = 4  # below this, starting processes costs more than it saves

_worker: tuple[CheckFile, ProjectIndex] | None = None


def default_jobs(files: int) -> int:
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(cpus or 1, files // MIN_FILES_PER_JOB))


def check_all(check: CheckFile, tasks: Sequence[tuple[str, Config]], root: str | None,
              jobs: int) -> list[FileResult]:
    """`check(path, config, index)` for every task, in order, on `jobs` processes."""
    if jobs <= 1 or len(tasks) < 2:
        index = ProjectIndex(root)
        return [check(path, config, index) for path, config in tasks]
    # fork keeps the parent's imports (and so start-up is cheap); elsewhere the default method.
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    chunk = max(1, len(tasks) // (jobs * 4))
    with ProcessPoolExecutor(jobs, mp_context=context, initializer=_init,
                             initargs=(check, root)) as pool:
        return list(pool.map(_run, tasks, chunksize=chunk))


def _init(check: CheckFile, root: str | None) -> None:
    global _worker
    _worker = (check, ProjectIndex(root))


def _run(task: tuple[str, Config]) -> FileResult:
    assert _worker is not None, "worker not initialized"
    check, index = _worker
    return check(task[0], task[1], index)
