"""Lazy device work: `DeviceOp` (a launch, or a `.then` chain) and `GraphOp` (`op.graph()`).

Nothing runs when an op is created. `.sync()` enqueues it, waits, and hands back the arguments;
`await op` enqueues it from a worker thread (first launches may compile) and polls its event, so
the event loop never blocks; `.then(fn)` enqueues, hands the results to `fn` at once (later work
on the same stream is ordered after this op) and continues with the op `fn` returns;
`.graph()` captures the op into a graph that owns its arguments until `g.sync()`.

Failures and cancellation are deterministic (docs/runtime.md): an op whose compile, enqueue or
wait fails is finished with that error, hands its arguments back (`err.results`), and raises the
same error from every later `.sync()`/`await`; a `.then` chain stops at its first failure. A
cancelled `await` first lets the worker thread finish enqueueing, so the op is then either still
owning its arguments (enqueued: a later `.sync()` or `await` hands them back) or failed (handed
back through the error): never half-started, never both.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import enum
import inspect
import sys
import warnings
import weakref
from abc import ABC, abstractmethod
from collections.abc import Callable, Generator
from types import CodeType, TracebackType
from typing import TYPE_CHECKING, Any

from ..compiler.hostapi import HANDLE_ATTRIBUTES
from ..compiler.launch import MoveFacts, moved_diagnostic
from ..compiler.launch.ops_api import (
    Form,
    Use,
    accepts,
    sync_unpack_diagnostic,
    takes_words,
    then_arity_diagnostic,
    unsynced_diagnostic,
)
from ..diagnostics import messages as msg
from ..diagnostics.diagnostic import Note
from ..diagnostics.errors import CutileError, LaunchError, error_for, expected_error
from . import native, render
from .backends.base import DONE, Backend, Event, Executable, Graph
from .errors import launch_error, ownership_error
from .ownership import OpRef, Owned, State
from .pdl import start_dependent
from .sites import (
    LinkSite,
    Site,
    caller_site,
    internal_files,
    receiver_name,
    site_of,
    unpack_target,
)
from .streams import set_current_stream


class LaunchNeverRunWarning(UserWarning):
    """CT305: a launch was created and dropped without .sync(), await, .then or .graph()."""


class Phase(enum.Enum):
    CREATED = "created"
    STARTING = "starting"  # an await's worker thread is enqueueing it (it may compile)
    ENQUEUED = "enqueued"
    DONE = "done"  # finished: completed, or failed (then the op's `_error` is set)


# module constants: the hot paths compare against these without two attribute lookups
_CREATED, _STARTING, _ENQUEUED, _DONE = Phase.CREATED, Phase.STARTING, Phase.ENQUEUED, Phase.DONE
_LIVE = State.LIVE


Results = tuple[Any, ...]

# launchers of callables a `.then` link calls with (callable, link site, results) instead of
# fn(*results), by the callable's exact type (kernel.py registers Kernel's)
linked_launchers: dict[type, Callable[[Any, Site, Results], Any]] = {}

# The worker-thread start of each op an await is starting (only awaits pay for it).
_starting: weakref.WeakKeyDictionary[DeviceOp, concurrent.futures.Future[Results]] = (
    weakref.WeakKeyDictionary())


def _attach_results(err: BaseException, results: Results) -> None:
    """The handles the failed op gives back, on the error (unless a nearer op set them)."""
    if isinstance(err, CutileError) and "results" not in err.__dict__:
        err.results = results


def _settle(op: DeviceOp) -> None:
    """For an op that is not CREATED or ENQUEUED: waits for an await's worker thread that is
    starting it, then raises the error it failed with, if any."""
    fut = _starting.get(op)
    if fut is not None:
        concurrent.futures.wait((fut,))
    failure: tuple[BaseException, TracebackType | None] | None = getattr(op, "_error", None)
    if failure is not None:
        # with the traceback it failed with: re-raising the object as it is would stack each
        # wait's frames onto the last one's
        raise failure[0].with_traceback(failure[1])


def _start_in_worker(op: DeviceOp) -> concurrent.futures.Future[Results] | None:
    """Starts a CREATED op on a worker thread (the first launch may compile) and returns that
    start; None when the op was started already (or is being started: then that start)."""
    if op.phase is not _CREATED:
        return _starting.get(op)
    op.phase = _STARTING
    fut: concurrent.futures.Future[Results] = concurrent.futures.Future()
    _starting[op] = fut

    def work() -> None:
        try:
            fut.set_result(op._run_start())
        except BaseException as err:  # the op recorded it: the awaiting side re-raises it
            fut.set_exception(err)
        finally:
            _starting.pop(op, None)

    asyncio.get_running_loop().run_in_executor(None, work)
    return fut


async def _await_start(fut: concurrent.futures.Future[Results]) -> None:
    """Waits for a worker's start. A cancellation meanwhile still waits for it to end (the op is
    then enqueued and owns its arguments, or failed and handed them back), then is re-raised."""
    waiting = asyncio.wrap_future(fut)
    cancelled = False
    while not waiting.done():
        try:
            await asyncio.wait((waiting,))
        except asyncio.CancelledError:
            cancelled = True
    if cancelled:
        waiting.exception()  # retrieved here: the op keeps its failure for a later .sync()
        raise asyncio.CancelledError
    waiting.result()  # the start's failure, if it failed


class DeviceOp(ABC):
    """Work that runs on the device when asked to. Subclasses: LaunchOp, ChainOp."""

    # `_error` is set only when the op fails (so launches do not pay for it): read it with
    # getattr. Kept on the op, not in a table, so a failed op and its arguments can be freed.
    # It is the error and its traceback when it failed (each wait raises it from there).
    __slots__ = ("__weakref__", "_error", "_graph_site", "_graphed", "backend", "phase", "site",
                 "stream")

    def __init__(self, backend: Backend, stream: int, site: Site) -> None:
        self.phase = _CREATED
        self.backend = backend
        self.stream = stream
        self.site = site
        self._graphed = False
        self._graph_site: Site | None = None

    @property
    def finished(self) -> bool:
        return self.phase is Phase.DONE

    @abstractmethod
    def _prepare(self) -> None:
        """Host work before enqueueing (compiling), kept out of graph capture."""

    @abstractmethod
    def _start(self) -> Results:
        """Enqueues the work once (later calls return the same results) without waiting."""

    @abstractmethod
    def _run_start(self) -> Results:
        """`_start`'s work for an op not started yet (CREATED, or STARTING on a worker)."""

    @abstractmethod
    def _event(self) -> Event:
        """Completes when all the enqueued work is done."""

    @abstractmethod
    def _complete(self) -> None:
        """The work is done (or ordered before everything after): end leases, return handles."""

    def start(self) -> DeviceOp:
        """Enqueues the op without waiting and returns it; `.sync()` (or await) later waits
        and hands the arguments back. Leases and moves last until then."""
        if self._graphed:
            self._check_not_graphed()
        self._start()
        return self

    def sync(self) -> Results:
        """Runs the op, waits for it, and returns its arguments (a tuple, in order)."""
        if self._graphed:
            self._check_not_graphed()
        results = self._start()
        self._wait(self._event())
        self._complete()
        frame = sys._getframe(1)
        check_unpack(self, frame.f_code, frame.f_lasti, len(results))
        return results

    def _wait(self, event: Event) -> None:
        try:
            event.wait()
        except CutileError as err:  # the device reported the work failed: it is over
            self._fail(err)
            raise

    def _fail(self, err: BaseException) -> None:
        """Finishes the op with `err`: nothing of it is pending any more, so its arguments are
        handed back (on the error) and every later wait raises `err` again."""
        self._error = (err, err.__traceback__)
        _attach_results(err, getattr(self, "_results", ()))  # unless a nearer op set them
        if self.phase is not _DONE:
            self._complete()
        self.phase = _DONE

    def _label(self) -> str:
        return "a kernel"

    if not TYPE_CHECKING:  # kept from mypy: ops are not iterable or indexable

        def __iter__(self) -> Any:
            raise _unsynced(self, "unpack")

        def __getitem__(self, index: Any) -> Any:
            raise _unsynced(self, "index")

    def __await__(self) -> Generator[Any, None, Results]:
        self._check_not_graphed()
        frame = sys._getframe(1)  # `a, b = await op`: unpacked into as many names?
        return self._wait_async(frame.f_code, frame.f_lasti).__await__()

    async def _wait_async(self, code: CodeType, lasti: int) -> Results:
        fut = _start_in_worker(self)
        if fut is not None:
            await _await_start(fut)
        results = self._start()  # started: its results, or its failure raised again
        event, delay = self._event(), 0.0
        while not event.done():  # a cancellation here leaves the arguments with the op
            await asyncio.sleep(delay)
            delay = min(delay * 2 or 2e-5, 1e-3)
        self._wait(event)
        self._complete()
        check_unpack(self, code, lasti, len(results), "await")
        return results

    def then(self, fn: Callable[..., DeviceOp | Results]) -> DeviceOp:
        """`fn(*results)` builds the next op (or returns values); the chain's result is its."""
        if self._graphed:
            self._check_not_graphed()
        frame = sys._getframe(1)
        code = frame.f_code  # caller_of(frame), inlined: a user's file needs no walk
        site = ((code, frame.f_lasti) if internal_files.get(code.co_filename) is False
                else site_of(frame))
        return ChainOp(self, fn, LinkSite(site))

    def graph(self) -> GraphOp:
        """Captures the op into a graph (running it once); replay() runs it again."""
        self._check_not_graphed()
        if self.phase is not Phase.CREATED:  # its work is already on the stream: nothing to record
            raise launch_error(msg.GRAPH_OF_STARTED_OP, caller_site())
        self._graphed = True
        return GraphOp(self, caller_site())

    def _check_not_graphed(self) -> None:
        if self._graphed:
            site = caller_site()
            own = Owned()
            own._move("into a graph by .graph()", self._graph_site or site)
            raise ownership_error(msg.USE_AFTER_MOVE, site, _moved_note(own, site),
                                  name=receiver_name(site, "the launch"), how=own._how)


def _moved_note(own: Owned, site: Site) -> tuple[Note, ...]:
    name = receiver_name(site, "the launch")
    return (Note(msg.MOVED_HERE.format(name=name), own._site.span()),) if own._site else ()


class LaunchOp(DeviceOp):
    """One kernel launch. Holds its Mut partitions exclusively and leases its inputs.

    Built once per launch, so it stays light: slots, no event until someone waits (`_event`
    records one then: the stream's work up to that point includes this launch), and the weak
    reference that moves and leases point at only when the launch owns something."""

    __slots__ = ("_args", "_done_event", "_exe", "_failed", "_get_exe", "_grid", "_muts",
                 "_reads", "_ref", "_results", "kernel_name")

    def __init__(self, kernel_name: str, backend: Backend, exe: Executable | None,
                 prepare: Callable[[], Executable] | None, args: list[Any],
                 grid: tuple[int, int, int], site: Site, stream: int) -> None:
        """`exe` when already known, else `prepare` gets it (compiling) before enqueueing."""
        self.phase = _CREATED  # DeviceOp.__init__, inlined: one call less per launch
        self.backend = backend
        self.stream = stream
        self.site = site
        self._graphed = False
        self._graph_site = None
        self.kernel_name = kernel_name
        self._exe = exe
        self._get_exe = prepare
        self._args: list[Any] | tuple[()] = args  # () once complete
        self._grid = grid
        self._results: Results = ()
        # indices into _args: the Mut partitions it holds, the tensors it leases (the plan's
        # tuples, so a launch allocates no lists for them)
        self._muts: tuple[int, ...] = ()
        self._reads: tuple[int, ...] = ()
        self._done_event: Event | None = None
        self._ref: OpRef | None = None

    def _own_ref(self) -> OpRef:
        """What moves and leases of this launch point at (weakly: a dropped launch frees them)."""
        ref = self._ref
        if ref is None:
            ref = self._ref = weakref.ref(self)
        return ref

    def sync(self) -> Results:
        """Runs the launch, waits for it, and returns its arguments (a tuple, in order)."""
        if self._graphed:
            self._check_not_graphed()
        frame = sys._getframe(1)  # `a, b = op.sync()` into as many names as it returns?
        last = _last_sync
        if (frame.f_lasti != last[1] or frame.f_code is not last[0]
                or len(self._results) != last[2]):
            check_unpack(self, frame.f_code, frame.f_lasti, len(self._results))
        phase = self.phase
        if phase is _CREATED:  # _start and _event, inlined: every synced launch runs this
            exe = self._exe
            if exe is None:
                self._run_start()  # compiles first
            else:
                self.phase = _ENQUEUED
                try:  # free unless it raises
                    # None, or the event that checks the launch's status word (status.py)
                    self._done_event = exe.enqueue(self._args, self._grid, self.stream)
                except BaseException as err:
                    self._fail(err)
                    raise
        elif phase is not _ENQUEUED:
            _settle(self)  # being started by an await, or failed: raises its error
        event = self._done_event
        try:
            if event is None:  # nothing asked about it yet: wait for the stream, no event needed
                self.backend.finish(self.stream)
            elif event is not DONE:  # the host backends' work is done when enqueued
                event.wait()
        except CutileError as err:  # the device reported the work failed: it is over
            self._fail(err)
            raise
        self._complete()
        return self._results

    def _prepare(self) -> None:
        if self._exe is None:
            assert self._get_exe is not None
            try:
                self._exe = self._get_exe()
            except BaseException:
                # .sync() (or await) was called and raised: the user did run it, so no CT305
                # later (`_failed` is set only here: launches that never fail skip the store)
                self._failed = True
                raise

    def _start(self) -> Results:
        phase = self.phase
        if phase is _CREATED:
            self._run_start()
        elif phase is not _ENQUEUED:
            _settle(self)
        return self._results

    def _run_start(self) -> Results:
        try:
            if self._exe is None:
                self._prepare()
            assert self._exe is not None
            self.phase = _ENQUEUED
            self._done_event = self._exe.enqueue(self._args, self._grid, self.stream)
        except BaseException as err:
            self._fail(err)
            raise
        return self._results

    def _event(self) -> Event:
        event = self._done_event
        if event is None:
            event = self._done_event = self.backend.record(self.stream)
        return event

    def _complete(self) -> None:
        if self.phase is _DONE:
            return
        self.phase = _DONE
        args = self._args
        for i in self._muts:
            args[i]._state = _LIVE
        ref = self._ref
        for i in self._reads:
            v = args[i]
            if v._leases is ref:  # the common case: the only reader (Owned._release, inlined)
                v._leases = None
            else:
                assert ref is not None
                v._release(ref)
        self._args = ()  # no allocation

    def _label(self) -> str:
        return f"'{self.kernel_name}'"

    def __del__(self) -> None:
        if (self.phase is _CREATED and not self._graphed and not getattr(self, "_failed", False)
                and not render.uncaught):  # an uncaught error unwound it: one root cause
            span = self.site.span()
            text = msg.LAUNCH_NEVER_RUN.format(kernel=f"'{self.kernel_name}'")
            warnings.warn_explicit(f"{msg.LAUNCH_NEVER_RUN.code} {text}", LaunchNeverRunWarning,
                                   span.path, span.line)

    def __repr__(self) -> str:
        return f"<cutile launch of {self.kernel_name} grid={self._grid} {self.phase.value}>"


class ChainOp(DeviceOp):
    """`first.then(fn)`: first's results go to fn as soon as first is enqueued.

    A chain of n links is n ChainOps each pointing at the previous one; every walk along it is
    a loop, so chains of any length stay clear of the recursion limit."""

    __slots__ = ("_checks", "_first", "_fn", "_next", "_results")

    def __init__(self, first: DeviceOp, fn: Callable[..., DeviceOp | Results],
                 site: Site) -> None:
        self.phase = _CREATED  # DeviceOp.__init__, inlined: one call less per link
        self.backend = first.backend
        self.stream = first.stream
        self.site = site
        self._graphed = False
        self._graph_site = None
        self._first = first
        self._fn = fn
        self._next: DeviceOp | None = None
        self._results: Results = ()
        # completion events of launches this chain completed by ordering alone (their status
        # words, status.py): the chain's own event waits for them too
        self._checks: list[Event] | None = None

    def _root(self) -> DeviceOp:
        op: DeviceOp = self
        while type(op) is ChainOp:
            op = op._first
        return op

    @property
    def kernel_name(self) -> str:
        return getattr(self._root(), "kernel_name", "a chain")

    def _prepare(self) -> None:
        self._root()._prepare()

    def _start(self) -> Results:
        phase = self.phase
        if phase is _CREATED:
            return self._run_start()
        if phase is not _ENQUEUED:
            _settle(self)
        return self._results

    def _run_start(self) -> Results:
        self.phase = _ENQUEUED
        links: list[ChainOp] = [self]  # the links not started yet, last first
        op: DeviceOp = self._first
        # exact type tests, not isinstance: that goes through ABCMeta (~0.13 us) on every link
        while type(op) is ChainOp and op.phase is _CREATED:
            op.phase = _ENQUEUED
            links.append(op)
            op = op._first
        results: Results = ()
        prev_args: list[Any] | tuple[()] = ()  # the arguments of `prev` below
        i = len(links)  # links[i:] have run
        step = native.chain_step  # the usual link in one C call (None: off)
        try:  # free unless something raises
            results = op._start()
            while i:
                i -= 1
                link = links[i]
                first = link._first
                # the work that completes now (what follows is ordered after it on the
                # stream): `op`, or the op the previous link (`first`) got from its fn. Its
                # status checks (status.py) wait for the chain's end.
                done = first if first is op else links[i + 1]._next
                if step is not None:  # a kernel with compiled plan and enqueue: the body
                    stepped = step(link, first, done, results)  # below, compiled
                    if stepped is not None:
                        results = stepped
                        continue
                prev: LaunchOp | None = None  # the launch before the next one (runtime/pdl.py)
                if type(done) is LaunchOp:
                    prev, prev_args = done, done._args  # _complete drops _args, not the list
                    if done._done_event is not None:
                        self._pend(done._done_event)
                elif done is not None:  # a chain: its checks, and its last launch's
                    for event in _status_events(done):
                        self._pend(event)
                first._complete()
                fn = link._fn
                direct = linked_launchers.get(type(fn))
                # a kernel: launched with the link's site (no walk for the caller)
                nxt = (_call_link(fn, link, results) if direct is None
                       else direct(fn, link.site, results))
                if type(nxt) is LaunchOp:  # LaunchOp._start, inlined for a compiled launch
                    link._next = nxt
                    exe = nxt._exe
                    if exe is None and prev is not None and nxt.phase is _CREATED:
                        exe = _prepared(nxt)  # compiled now: a pdl kernel is checked first
                    if exe is not None and nxt.phase is _CREATED:
                        nxt.phase = _ENQUEUED
                        facts = exe.pdl
                        if facts is not None and prev is not None:
                            start_dependent(nxt, exe, facts, prev, prev_args)
                        else:
                            try:
                                nxt._done_event = exe.enqueue(nxt._args, nxt._grid,
                                                              nxt.stream)
                            except BaseException as err:
                                nxt._fail(err)
                                raise
                        results = nxt._results
                    else:
                        results = nxt._start()
                elif isinstance(nxt, DeviceOp):
                    link._next = nxt
                    results = nxt._start()
                else:
                    results = tuple(nxt) if isinstance(nxt, tuple) else (nxt,)
                link._results = results
        except BaseException as err:
            # the handles in hand: a failed launch's own arguments (set by it), else the
            # results the failing fn was given
            _attach_results(err, results)
            for failed in links[:i + 1]:  # the failing link and every one after it
                failed._fail(err)
            raise
        return self._results

    def _pend(self, event: Event) -> None:
        if self._checks is None:
            self._checks = []
        self._checks.append(event)

    def _event(self) -> Event:
        op: DeviceOp = self
        while type(op) is ChainOp:
            if op._next is not None:
                last = op._next._event()
                break
            op = op._first  # fn returned values: the last enqueued work is further back
        else:
            last = op._event()
        return last if self._checks is None else _AllDone([*self._checks, last])

    def _complete(self) -> None:
        if self._next is not None:
            self._next._complete()
        self.phase = _DONE


def _prepared(op: LaunchOp) -> Executable:
    """The launch's executable, compiled now; a failure fails the launch (as `_run_start`)."""
    try:
        op._prepare()
    except BaseException as err:
        op._fail(err)
        raise
    assert op._exe is not None
    return op._exe


def _call_link(fn: Callable[..., Any], link: ChainOp, results: Results) -> Any:
    """`fn(*results)`; a TypeError because `fn` cannot take that many values is CT406 at the
    `.then(...)` (the arguments are the previous op's results, all of them, in order)."""
    try:
        return fn(*results)
    except TypeError:
        wrong = _arity_problem(fn, len(results))
        if wrong is None:
            raise
        raise error_for([then_arity_diagnostic(wrong, len(results), link.site.span())]) from None


def _arity_problem(fn: Callable[..., Any], n: int) -> str | None:
    """How `fn` takes positional arguments, when it cannot take `n` of them (else None)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is p.KEYWORD_ONLY and p.default is p.empty for p in params):
        return None  # a required keyword: not a matter of how many values
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    needed = sum(p.default is p.empty for p in positional)
    star = any(p.kind is p.VAR_POSITIONAL for p in params)
    if accepts(needed, len(positional), star, n):
        return None
    return takes_words(needed, len(positional), star)


def _retarget(op: DeviceOp, stream: int) -> int | None:
    """Points an op (and the launches a chain makes as it starts) at `stream`; returns the
    current stream to restore afterwards."""
    link: DeviceOp = op
    while True:
        link.stream = stream
        if type(link) is not ChainOp:
            break
        link = link._first
    return set_current_stream(stream)


# the last `.sync()` site found fine: (code, lasti, values); a loop's syncs skip the lookup
_last_sync: list[Any] = [None, -1, -1]


def check_unpack(op: DeviceOp, code: CodeType, lasti: int, returned: int,
                 form: Form = "sync") -> None:
    """CT406 when the `.sync()` (or await) at (code, lasti) is unpacked into another number of
    names."""
    found = unpack_target(code, lasti)
    if found is not None and found[0] != returned:
        if isinstance(op, LaunchOp):
            op._failed = True  # it was asked to run: no CT305 when it is dropped
        raise error_for([sync_unpack_diagnostic(op._label(), returned, found[0], found[1],
                                                form)])
    if form == "sync":
        _last_sync[:] = (code, lasti, returned)


def _unsynced(op: DeviceOp, use: Use, attribute: str = "") -> LaunchError:
    root = op._root() if type(op) is ChainOp else op
    if isinstance(root, LaunchOp):
        root._failed = True  # one root cause: no CT305 as well when it (or its chain) is dropped
    diag = unsynced_diagnostic(op._label(), use, caller_site().span(), attribute)
    return expected_error(LaunchError, [diag])


def _handle_attribute(name: str) -> property:
    def get(op: DeviceOp) -> Any:
        raise _unsynced(op, "attribute", name)

    return property(get)


for _name in HANDLE_ATTRIBUTES:  # `op.unpartition()`, `op.shape`: the launch, not its results
    setattr(DeviceOp, _name, _handle_attribute(_name))


def _graph_unsynced(graph: GraphOp, use: Use, attribute: str = "") -> LaunchError:
    diag = unsynced_diagnostic(graph._op._label(), use, caller_site().span(), attribute,
                               graph=True)
    return expected_error(LaunchError, [diag])


def _graph_attribute(name: str) -> property:
    def get(graph: GraphOp) -> Any:
        raise _graph_unsynced(graph, "attribute", name)

    return property(get)


class GraphOp:
    """A captured op: the graph owns the op's arguments until `sync()` hands them back."""

    def __init__(self, op: DeviceOp, site: Site) -> None:
        self._op = op
        self.site = site
        op._graph_site = site
        self._backend = op.backend
        self._stream = op.stream
        op._prepare()
        capture = self._backend.capture_stream(self._stream)
        restore = _retarget(op, capture)
        self._backend.begin_capture(capture)
        try:
            self._results = op._start()
        finally:
            self._graph: Graph | None = self._backend.end_capture(capture)
            set_current_stream(restore)
        self._own = Owned()
        self.replay()

    def replay(self) -> None:
        """Enqueues one more run of the captured work; does not wait (and records nothing:
        every replay is on the graph's stream, so waiting for that stream waits for them)."""
        graph = self._graph
        if graph is None:
            graph = self._live()  # raises: the graph was synced
        graph.replay(self._stream)

    def sync(self) -> Results:
        """Waits for every replay, then returns the op's arguments; the graph is finished."""
        self._live()
        self._backend.finish(self._stream)
        frame = sys._getframe(1)
        return self._checked(self._finish(), frame.f_code, frame.f_lasti, "graph sync")

    def _statuses(self) -> None:
        """Raises a captured launch's failure from its status word (read after the replays:
        any failing replay is reported)."""
        events = _status_events(self._op)
        if events:
            _AllDone(events).wait()

    def __await__(self) -> Generator[Any, None, Results]:
        self._live()
        frame = sys._getframe(1)
        return self._wait_async(frame.f_code, frame.f_lasti).__await__()

    async def _wait_async(self, code: CodeType, lasti: int) -> Results:
        delay = 0.0
        last = self._backend.record(self._stream)  # after every replay enqueued so far
        while not last.done():
            await asyncio.sleep(delay)
            delay = min(delay * 2 or 2e-5, 1e-3)
        return self._checked(self._finish(), code, lasti, "graph await")

    def _checked(self, results: Results, code: CodeType, lasti: int, form: Form) -> Results:
        """CT406 when the waiting expression is unpacked into another number of names."""
        found = unpack_target(code, lasti)
        if found is not None and found[0] != len(results):
            raise error_for([sync_unpack_diagnostic(self._op._label(), len(results), found[0],
                                                    found[1], form)])
        return results

    if not TYPE_CHECKING:  # kept from mypy: graphs are not iterable or indexable

        def __iter__(self) -> Any:
            raise _graph_unsynced(self, "unpack")

        def __getitem__(self, index: Any) -> Any:
            raise _graph_unsynced(self, "index")

    def _finish(self) -> Results:
        self._op._complete()
        if self._graph is not None:
            self._graph.close()
        self._graph = None
        self._own._move("by .sync()", caller_site())
        try:
            self._statuses()
        except CutileError as err:
            _attach_results(err, self._results)
            raise
        return self._results

    def _live(self) -> Graph:
        if self._graph is None:
            site = caller_site()
            name = receiver_name(site, "the graph")
            moved_at = self._own._site
            raise error_for([moved_diagnostic(name, site.span(), MoveFacts(
                self._own._how, moved_at.span() if moved_at else None, name))])
        return self._graph


for _name in HANDLE_ATTRIBUTES:  # `g.unpartition()`: the graph, not the results of its sync
    setattr(GraphOp, _name, _graph_attribute(_name))


class _AllDone(Event):
    """Several launches' completions: waits for all, then raises the first failure."""

    __slots__ = ("_events",)

    def __init__(self, events: list[Event]) -> None:
        self._events = events

    def done(self) -> bool:
        return all(e.done() for e in self._events)

    def wait(self) -> None:
        first: CutileError | None = None
        for event in self._events:
            try:
                event.wait()
            except CutileError as err:
                first = first or err
        if first is not None:
            raise first


def _status_events(op: DeviceOp) -> list[Event]:
    """The status checks of an op's launches (status.py; normal launches have none): a
    chain's own list of those it completed by ordering, and its last op's."""
    out: list[Event] = []
    while type(op) is ChainOp:
        out += op._checks or []
        if op._next is None:  # fn returned values: its checks hold everything before
            return out
        op = op._next
    event = getattr(op, "_done_event", None)
    if type(op) is LaunchOp and event is not None:
        out.append(event)
    return out
