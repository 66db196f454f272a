"""`ct.autotune`: try several launch configurations of a kernel, keep the fastest per key.

    tuned = ct.autotune(softmax, configs=[ct.Config(worker_warps=8, occupancy=2),
                                          ct.Config(tile=(2, 4096), occupancy=4)], key=["x"])
    out, x = tuned(out, x).sync()

A `Config` holds code-generation hints (`kernel.with_hints`), Const values (passed by keyword)
and optionally the tile, order and block count the kernel's Mut partition is re-partitioned
with. The first call per key (by default the shapes and dtypes of the tensor arguments, plus
the device) times every config and remembers the fastest, in memory and on disk next to the
cubin cache (`tuning_cache.py`), so later processes skip the timing. On the CUDA backend the
default timer replays a captured graph of the launch between CUDA events; on the interpreter
there is nothing worth timing, so the first config is used and nothing is stored. With
`cold_l2=True` each timed replay follows a write of a buffer larger than the L2 cache, so a
kernel whose inputs would fit in L2 is timed as it runs inside a larger program (a decode step's
matrices), not on warm inputs. A timer can be passed in (tests inject one; it gets a `Trial` and
returns a time).

Trials never write the caller's Mut tensors: each trial launches on fresh zero-filled outputs of
the same shape and dtype, so an in-place kernel is not run several times on the real data. The
launch that follows the choice is an ordinary lazy launch (autotuning sits above the launch
path: a chosen key costs one dict lookup per call).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from ..compiler.dsl.orders import TileOrder
from ..compiler.kernel_options import HINTS, option_problem
from ..compiler.toolchain import source_hash
from ..diagnostics import messages as msg
from ..diagnostics.errors import CutileError
from .backends.base import Backend
from .context import backend, current_stream
from .errors import error
from .kernel import Kernel
from .ops import DeviceOp
from .ownership import launch_move
from .partition import Partition
from .sites import Site, caller_site
from .tensor import Tensor
from .tuning_cache import TuningCache, digest

__all__ = ["Autotuned", "Config", "Trial", "autotune", "cold_l2_timer", "cuda_event_timer"]

KeySpec = Sequence[str] | Callable[..., Hashable] | None
T = TypeVar("T")


class Config:
    """One candidate launch configuration: `ct.Config(BN=64, worker_warps=8, tile=(1, 128, 64))`.

    Keywords that name a hint (`occupancy`, `worker_warps`, ...: compiler/kernel_options.py)
    are hints; `tile`, `order` and `blocks` re-partition the kernel's Mut argument (-1 in `tile`
    keeps the extent of the caller's tile in that dimension); every other keyword is a Const
    value."""

    __slots__ = ("blocks", "consts", "hints", "order", "tile")

    def __init__(self, *, tile: tuple[int, ...] | int | None = None,
                 order: TileOrder | None = None, blocks: int | None = None,
                 **values: Any) -> None:
        self.hints: dict[str, Any] = {k: v for k, v in values.items() if k in HINTS}
        self.consts: dict[str, Any] = {k: v for k, v in values.items() if k not in HINTS}
        self.tile: Any = (tile,) if isinstance(tile, int) and not isinstance(tile, bool) else (
            tuple(tile) if isinstance(tile, (tuple, list)) else tile)
        self.order = order
        self.blocks = blocks

    def canonical(self) -> str:
        """A stable text of the config (sorted names): its identity in the disk cache."""
        parts = [f"{k}={v!r}" for k, v in sorted({**self.consts, **self.hints}.items())]
        parts += [f"{k}={v!r}" for k, v in (("tile", self.tile), ("order", self.order),
                                            ("blocks", self.blocks)) if v is not None]
        return ", ".join(parts)

    def __repr__(self) -> str:
        return f"Config({self.canonical()})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Config) and other.canonical() == self.canonical()

    def __hash__(self) -> int:
        return hash(self.canonical())


class Trial:
    """One config ready to run on the tuning arguments; a timer calls `op()` for each launch it
    needs (a fresh lazy launch on fresh outputs) and returns a time (any comparable number)."""

    def __init__(self, index: int, config: Config, make: Callable[[], DeviceOp]) -> None:
        self.index = index
        self.config = config
        self._make = make

    def op(self) -> DeviceOp:
        return self._make()


Timer = Callable[[Trial], float]


def cuda_event_timer(trial: Trial, windows: int = 5, window_s: float = 0.01) -> float:
    """Seconds per launch: the launch captured as a graph (compiled and run once), replayed in
    `windows` windows of about `window_s` each between CUDA events; the median window."""
    from .cuda import driver

    graph = trial.op().graph()
    start, end = driver.timing_event_create(), driver.timing_event_create()
    stream = current_stream()
    try:
        def window(n: int) -> float:
            driver.event_record(start, stream)
            for _ in range(n):
                graph.replay()
            driver.event_record(end, stream)
            driver.event_synchronize(end)
            return driver.event_elapsed_ms(start, end) / 1e3 / n

        one = window(1)
        n = max(1, min(1000, int(window_s / max(one, 1e-7))))
        return statistics.median(window(n) for _ in range(windows))
    finally:
        graph.sync()
        driver.event_destroy(start)
        driver.event_destroy(end)


# More than any current GPU's L2 (the H200's is 50 MB), so writing it evicts a kernel's inputs.
L2_FLUSH_BYTES = 256 << 20


def cold_l2_timer(trial: Trial, runs: int = 25) -> float:
    """Seconds per launch with a cold L2: the launch captured as a graph and replayed `runs`
    times, each replay between its own pair of CUDA events after a memset of L2_FLUSH_BYTES
    (outside the events); the median."""
    from .cuda import driver

    graph = trial.op().graph()
    stream = current_stream()
    flush = driver.mem_alloc(L2_FLUSH_BYTES)
    events = [(driver.timing_event_create(), driver.timing_event_create()) for _ in range(runs)]
    try:
        graph.replay()  # first touch of the arguments, off the clock
        for start, end in events:
            driver.memset(flush, 0, 4, L2_FLUSH_BYTES // 4, stream)
            driver.event_record(start, stream)
            graph.replay()
            driver.event_record(end, stream)
        driver.event_synchronize(events[-1][1])
        return statistics.median(driver.event_elapsed_ms(a, b) for a, b in events) / 1e3
    finally:
        graph.sync()
        driver.mem_free(flush)
        for pair in events:
            for event in pair:
                driver.event_destroy(event)


class Autotuned:
    """A kernel with candidate configs; calling it launches the best config for the arguments
    (lazily, like the kernel itself)."""

    def __init__(self, kernel: Kernel, configs: Sequence[Config], key: KeySpec,
                 timer: Timer | None, cache: TuningCache | None, site: Site,
                 cold_l2: bool = False) -> None:
        self.kernel = kernel
        self.configs = tuple(configs)
        self.__name__ = kernel.__name__
        self._params = _validate(kernel, self.configs, key, site)
        self._mut = [p for p, kind in self._params.items() if kind == "mut"]
        self._acc = [p for p, kind in self._params.items() if kind == "acc"]
        self._key = key
        self._timer = timer
        self._cold_l2 = cold_l2
        self._cache = cache
        self._kernels = [kernel.with_hints(**c.hints) if c.hints else kernel
                         for c in self.configs]
        self._chosen: dict[Hashable, int] = {}
        self.timings: dict[Hashable, list[float]] = {}  # key -> seconds per config (tuned here)

    def __repr__(self) -> str:
        return f"<cutile autotuned {self.kernel!r}, {len(self.configs)} configs>"

    def __call__(self, *args: Any, **kwargs: Any) -> DeviceOp:
        index = self._choice(args, kwargs)
        args, kwargs = self._apply(self.configs[index], args, kwargs, scratch=False)
        launch: Callable[..., DeviceOp] = self._kernels[index]
        return launch(*args, **kwargs)

    def best(self, *args: Any, **kwargs: Any) -> Config:
        """The config a call with these arguments launches (tuning first if the key is new);
        launches nothing with the caller's Mut arguments."""
        return self.configs[self._choice(args, kwargs)]

    # -- choosing ------------------------------------------------------------------------------
    def _choice(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> int:
        key = self.key_of(args, kwargs)
        index = self._chosen.get(key)
        if index is None:
            index = self._chosen[key] = self._tune(key, args, kwargs)
        return index

    def key_of(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Hashable:
        """The tuning key of a call: `key(*args, **kwargs)` when `key` is a function; else the
        dtype and shape of each tensor argument (only the named ones when `key` is a list of
        names; a named non-tensor argument contributes its value) and every Const keyword."""
        if callable(self._key):
            return self._key(*args, **kwargs)
        named = self._by_name(args, kwargs)
        chosen = list(self._key) if self._key is not None else list(named)
        out: list[Hashable] = []
        for name in chosen:
            value = named.get(name)
            kind = self._params.get(name)
            if isinstance(value, (Tensor, Partition)):
                tile = value.tile if isinstance(value, Partition) else None
                out.append((name, value.dtype.name, value.shape, tile))
            elif self._key is not None or kind == "const":
                out.append((name, repr(value)))
        return tuple(out)

    def _tune(self, key: Hashable, args: tuple[Any, ...], kwargs: dict[str, Any]) -> int:
        be = backend()
        timer = self._timer
        if timer is None:
            if be.name != "cuda":
                return 0  # the interpreter: timing it says nothing about a GPU
            timer = cold_l2_timer if self._cold_l2 else cuda_event_timer
        names = [c.canonical() for c in self.configs]
        cache = self._cache if self._cache is not None else TuningCache()
        entry = digest(self._identity(), repr(key), getattr(be, "arch", be.name),
                       _device_name(be), _toolchain_release(), "\n".join(names),
                       "cold L2" if self._cold_l2 else "warm")
        cached = cache.get(entry, names)
        if cached is not None:
            return cached
        times: list[float] = []
        errors: list[CutileError] = []
        for i in range(len(self.configs)):
            try:
                times.append(self._time(i, timer, args, kwargs))
            except CutileError as err:  # does not compile or fit this shape: never chosen
                times.append(math.inf)
                errors.append(err)
        if len(errors) == len(times):
            raise errors[0]
        best = min(range(len(times)), key=times.__getitem__)
        self.timings[key] = times
        cache.put(entry, names, best, {"kernel": self._identity(), "key": repr(key),
                                      "arch": getattr(be, "arch", be.name),
                                      "seconds": [None if math.isinf(t) else t for t in times]})
        return best

    def _time(self, index: int, timer: Timer, args: tuple[Any, ...], kwargs: dict[str, Any]
              ) -> float:
        config = self.configs[index]
        launch: Callable[..., DeviceOp] = self._kernels[index]

        def make() -> DeviceOp:
            a, kw = self._apply(config, args, kwargs, scratch=True)
            return launch(*a, **kw)
        return float(timer(Trial(index, config, make)))

    # -- arguments -----------------------------------------------------------------------------
    def _by_name(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        return {**dict(zip(self._params, args, strict=False)), **kwargs}

    def _apply(self, config: Config, args: tuple[Any, ...], kwargs: dict[str, Any],
               scratch: bool) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """The call's arguments for `config`: Const values added, the Mut partition re-tiled
        when the config says so; with `scratch`, Mut arguments replaced by zero-filled ones."""
        names = list(self._params)
        new_args = list(args)
        new_kwargs = {**kwargs, **config.consts}
        for name in self._mut:
            pos = names.index(name)
            if pos < len(new_args):
                new_args[pos] = self._retile(config, new_args[pos], scratch)
            elif name in new_kwargs:
                new_kwargs[name] = self._retile(config, new_kwargs[name], scratch)
        for name in self._acc if scratch else ():  # trials must not accumulate into the output
            pos = names.index(name)
            if pos < len(new_args):
                new_args[pos] = _scratch(new_args[pos])
            elif name in new_kwargs:
                new_kwargs[name] = _scratch(new_kwargs[name])
        return tuple(new_args), new_kwargs

    def _retile(self, config: Config, value: Any, scratch: bool) -> Any:
        if not isinstance(value, Partition):
            return value  # the launch reports it (CT304)
        if not scratch and config.tile is None:
            return value
        from .constructors import zeros

        if scratch:
            tensor = zeros(value.shape, value.dtype)
        else:  # to the user, the partition went into the launch (not through .unpartition())
            tensor = value.unpartition()
            value._move(launch_move(self.kernel.__name__), caller_site())
        tile = value.tile if config.tile is None else tuple(
            cur if t == -1 else t for t, cur in zip(config.tile, value.tile, strict=False))
        order = config.order if config.order is not None else value.order
        blocks = config.blocks if config.blocks is not None else value.blocks
        return tensor.partition(tile, order, blocks)

    def _identity(self) -> str:
        info = self.kernel.module()
        return (f"{Path(info.path).stem}.{self.kernel.__name__}:{source_hash(info.source)}:"
                f"{self.kernel.hints!r}")


def _device_name(be: Backend) -> str:
    if be.name != "cuda":
        return be.name
    from .cuda import driver

    name: str = driver.device_name(be.device.index)
    return name


def _toolchain_release() -> str:
    """The tileiras release (another release may choose differently); "" when none is found."""
    try:
        from ..compiler.toolchain import default_compiler
        from ..compiler.toolchain.tileiras import tool_info

        return tool_info(default_compiler().toolchain).release
    except CutileError:
        return ""


def _validate(kernel: Kernel, configs: tuple[Config, ...], key: KeySpec, site: Site
              ) -> dict[str, str]:
    """Parameter name -> kind; every problem of the configs or key is CT114 at the call."""
    params: dict[str, str] = {p.name: p.kind for p in kernel.binder().sig.params}

    def bad(problem: str) -> CutileError:
        return error(msg.AUTOTUNE_BAD, site, kernel=kernel.__name__, problem=problem)
    if not configs:
        raise bad("needs at least one config")
    muts = [n for n, k in params.items() if k == "mut"]
    for i, c in enumerate(configs):
        problem = _config_problem(c, params, muts)
        if problem is not None:
            raise error(msg.AUTOTUNE_BAD_CONFIG, site, kernel=kernel.__name__, index=i,
                               config=repr(c), problem=problem)
    if len(set(configs)) != len(configs):
        raise bad("two configs are the same")
    if key is not None and not callable(key):
        if isinstance(key, str) or not all(isinstance(n, str) for n in key):
            raise bad("key must be a list of parameter names or a function of the arguments")
        unknown = [n for n in key if n not in params]
        if unknown:
            raise bad(f"key names {', '.join(map(repr, unknown))}, which "
                      f"{'is not a parameter' if len(unknown) == 1 else 'are not parameters'}"
                      f" (parameters: {', '.join(params)})")
    return params


def _config_problem(c: object, params: dict[str, str], muts: list[str]) -> str | None:
    if not isinstance(c, Config):
        return f"is a {type(c).__name__}, not a ct.Config"
    for name, value in c.hints.items():
        problem = option_problem(name, value)
        if problem is not None:
            return f"'{name}' {problem}"
    for name in c.consts:
        if params.get(name) != "const":
            return (f"'{name}' is neither a Const parameter nor a hint ({', '.join(HINTS)})")
    if c.tile is None and c.order is None and c.blocks is None:
        return None
    if len(muts) != 1:
        return (f"tile, order and blocks need exactly one Mut parameter (this kernel has "
                f"{len(muts)})")
    if c.tile is not None and (not isinstance(c.tile, tuple) or not c.tile or not all(
            isinstance(t, int) and not isinstance(t, bool) and (t > 0 or t == -1)
            for t in c.tile)):
        return f"tile must be a tuple of positive ints (or -1), not {c.tile!r}"
    order: object = c.order  # typed TileOrder, but a caller may pass anything
    if order is not None and not isinstance(order, TileOrder):
        return f"order must be ct.row_major, ct.col_major or ct.grouped(n), not {order!r}"
    if c.blocks is not None and (isinstance(c.blocks, bool) or not isinstance(c.blocks, int)
                                 or c.blocks < 1):
        return f"blocks must be a positive int, not {c.blocks!r}"
    return None


def autotune(kernel: Kernel | None = None, /, *, configs: Sequence[Config],
             key: KeySpec = None, timer: Timer | None = None,
             cache_dir: str | Path | None = None, cold_l2: bool = False) -> Any:
    """`ct.autotune(kernel, configs=[...], key=...)`, or `@ct.autotune(configs=..., key=...)`
    above `@ct.kernel`: the kernel launched with the fastest config per key (see the module
    docstring). `cache_dir` overrides the cache root (default: CUTILE_CACHE_DIR's);
    `cold_l2=True` times each config with the L2 cache emptied before every launch."""
    site = caller_site()
    cache = TuningCache(Path(cache_dir)) if cache_dir is not None else None
    cold: object = cold_l2  # typed bool, but a caller may pass anything
    problem = ("cold_l2 must be True or False" if not isinstance(cold, bool) else
               "cold_l2 applies to the built-in timer, not to a timer passed in"
               if cold and timer is not None else None)

    def wrap(k: Kernel) -> Autotuned:
        if not isinstance(k, Kernel):
            raise error(msg.AUTOTUNE_BAD, site, kernel=getattr(k, "__name__", repr(k)),
                               problem="needs a @ct.kernel")
        if problem is not None:
            raise error(msg.AUTOTUNE_BAD, site, kernel=k.__name__, problem=problem)
        return Autotuned(k, list(configs), key, timer, cache, site, cold_l2)
    return wrap(kernel) if kernel is not None else wrap


def _scratch(value: Any) -> Any:
    """A zero-filled stand-in for an Acc argument during a timing trial."""
    from .constructors import zeros
    from .tensor import Tensor

    return zeros(value.shape, value.dtype) if isinstance(value, Tensor) else value
