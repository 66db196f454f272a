"""cutile's own kernels, run on torch's memory and torch's stream.

Everything the suite asks of cutile's runtime is here, so a change in the runtime is a change in
this file only:
- `ct.from_dlpack(torch_tensor)`: zero-copy views of the suite's buffers;
- `cutile.runtime.context.set_current_stream(handle)`: launches go to the timing stream;
- `kernel(*args, **consts)` -> lazy op; `.sync()`; `.start()` (enqueue without waiting);
  `.graph()` -> `.replay()` / `.sync()`;
- `.then(fn)` chains (host-overhead row; any length) and, for the safety row, the unchecked
  launch path `kernel.unchecked(*args, **consts)` (no ownership or value checks).
Kernels are loaded from their files (examples/ and benchmarks/kernels/) under private module
names, so an unrelated installed `examples` package can never shadow them.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..tuning import KERNELS, Variant


def load_kernel_module(root: Path, rel: str) -> Any:
    name = "cutile_suite_" + rel.replace("/", "_").removesuffix(".py")
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, root / rel)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {rel}")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


class CutileGlue:
    def __init__(self, root: Path) -> None:
        import cutile as ct

        self.ct = ct
        self.root = root

    def missing(self) -> str | None:
        """Why cutile's kernels cannot run here (None: they can, as far as can be seen)."""
        needed = [n for n in ("from_dlpack",) if not hasattr(self.ct, n)]
        if needed:
            return f"cutile runtime lacks {', '.join('ct.' + n for n in needed)}"
        return None

    def kernel(self, key: str, hints: dict[str, int] | None = None) -> Any:
        """The kernel named `key` in KERNELS; with `hints`, `kernel.with_hints(**hints)`."""
        rel, name = KERNELS[key]
        k = getattr(load_kernel_module(self.root, rel), name)
        return k.with_hints(**hints) if hints else k

    def kernel_of(self, v: Variant) -> Any:
        """What a variant launches: its kernel with its hints, or `ct.autotune` of the kernel
        over the variants it tunes (their configs on the device, chosen at the first call;
        timed with a cold L2, as the suite rotates inputs past L2 when it measures)."""
        if not v.tuned:
            return self.kernel(v.kernel, v.hints)
        return self.ct.autotune(self.kernel(v.kernel), cold_l2=True,
                                configs=[t.config(self.ct) for t in v.tuned])

    def use_stream(self, handle: int) -> None:
        from cutile.runtime import context

        context.set_current_stream(handle)

    def wrap(self, t: Any) -> Any:
        return self.ct.from_dlpack(t)

    def partition(self, out: Any, v: Variant) -> Any:
        return v.partition(self.ct, self.wrap(out))

    def unchecked(self, kernel: Any) -> Callable[..., Any] | None:
        fn: Callable[..., Any] = kernel.unchecked
        return fn


class CutileRunner:
    """Launches one cutile kernel on rotating buffer sets.

    `make_args(i)` returns the launch's positional arguments for set `i` (fresh cutile views:
    the output partition is moved into the launch); `out_of(i)` the torch output tensor.
    Timing replays one captured graph per set (`launch_mode` "graph"); if capture fails, each
    launch is enqueued with `.start()` without waiting ("start").
    """

    impl = "cutile"

    def __init__(self, variant: str, kernel: Any, make_args: Callable[[int], tuple[Any, ...]],
                 out_of: Callable[[int], Any], consts: dict[str, Any], n_sets: int,
                 launcher: Callable[..., Any] | None = None) -> None:
        self.variant = variant
        self.kernel = kernel
        self.launcher = launcher or kernel
        self.make_args = make_args
        self.out_of = out_of
        self.consts = consts
        self.n_sets = n_sets
        self.launch_mode = "graph"
        self.blocking = False
        self.graphs: list[Any] = []

    def op(self, i: int) -> Any:
        return self.launcher(*self.make_args(i), **self.consts)

    def check(self) -> Any:
        self.op(0).sync()
        if hasattr(self.kernel, "timings"):  # ct.autotune: say what it chose, and from what
            args = self.make_args(0)
            best = self.kernel.best(*args)
            times = next(iter(self.kernel.timings.values()), [])
            print(f"  {self.variant}: chose {best} "
                  f"({', '.join(f'{t * 1e6:.1f}' for t in times)} us per config)", flush=True)
        return self.out_of(0)

    def prepare(self) -> None:
        try:
            for i in range(self.n_sets):
                self.graphs.append(self.op(i).graph())
        except (AttributeError, NotImplementedError) as exc:
            self.close()
            self.launch_mode = f"start (no graph: {exc.__class__.__name__})"

    def enqueue(self, i: int) -> None:
        if self.graphs:
            self.graphs[i].replay()
        else:
            self.op(i).start()

    def close(self) -> None:
        graphs, self.graphs = self.graphs, []
        for g in graphs:
            g.sync()
