"""What each driver call on the launch path costs on the host, through each Python binding.

    python benchmarks/driver_calls.py [--launches 20000]

Needs a GPU. Loads the vector-add cubin (compiled by cutile) and times, per call, in batches of
200 launches that are synced outside the timed part (so a full launch queue never blocks):
- `bindings`: cutile's `driver.launcher` (cuda.bindings' cuLaunchKernel, handle objects built
  once, the error check);
- `bindings_prebuilt`: the bare cuda.bindings call with prebuilt CUfunction/CUstream objects;
- `ctypes`: `cuLaunchKernel` from libcuda through ctypes with declared argument types;
- `ctypes_bare`: the same symbol without argtypes, every pointer a prebuilt `c_void_p` and the
  grid plain ints (no per-argument conversion: 0.47 against 1.34 us per call on a do-nothing
  symbol on the 2-core CPU box); `ctypes_pydll`: that through `PyDLL` (the GIL kept across the
  call, no release and re-acquire);
- `bindings_ex_prebuilt`: `cuLaunchKernelEx` with a `CUlaunchConfig` built once (grid, block,
  stream; no attributes);
- `bindings_ints`: cuda.bindings given plain ints for the function and stream (if it takes them);
- `launcher_ctypes`, `executable_ctypes`: cutile's launcher and whole `enqueue` with
  `CUTILE_LAUNCH_BINDING=ctypes` (driver.ctypes_launcher over `ctypes_bare`'s symbol);
- `executable`: cutile's whole `enqueue` (stream bookkeeping, packing, the driver call);
- `event_record`, `event_query`: what `.sync()` adds per launch (record, then a ready check);
- `c_loop`: `launch_loop.c` calling cuLaunchKernel 200 times per Python call (built with the
  system C compiler, or taken from `$CUTILE_LAUNCH_LOOP_SO`): the driver's own cost per launch,
  the floor of any compiled launcher.
The answer decides which binding cutile's launch path uses (issue: launch overhead per launch).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import time
from collections.abc import Callable
from typing import Any

BATCH = 200


def per_call(fn: Callable[[], Any], sync: Callable[[], None], calls: int, each: int = 1
             ) -> float:
    """Best of 5 rounds, microseconds per launch; only the calls are timed, not the syncs, one
    sync per BATCH launches. `each`: the launches one call of `fn` makes."""
    per_batch = max(1, BATCH // each)
    rounds = calls // (per_batch * each)
    best = float("inf")
    for _ in range(5):
        spent = 0.0
        for _ in range(rounds):
            t0 = time.perf_counter()
            for _ in range(per_batch):
                fn()
            spent += time.perf_counter() - t0
            sync()
        best = min(best, spent / (rounds * per_batch * each) * 1e6)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--launches", type=int, default=20_000)
    calls = ap.parse_args().launches

    import cutile as ct
    from cutile.runtime import context
    from cutile.runtime.cuda import driver

    if ct.backend_name() != "cuda":
        raise SystemExit("driver_calls.py needs a GPU")
    from launch_overhead import TILE, N, load_add

    add = load_add()
    z, x, y = add(ct.zeros((N,), ct.f32).partition((TILE,)), ct.ones((N,), ct.f32),
                  ct.ones((N,), ct.f32)).sync()
    backend = context.backend()
    exe = next(iter(add.plans().plans.values())).exe  # the plan's: its block prebuilt
    assert exe is not None
    args = [z, x, y]
    params = exe._packer.pack(args)
    fn, stream = exe._function, backend.default_stream()
    grid = ((N + TILE - 1) // TILE, 1, 1)

    from cuda.bindings import driver as drv

    cf, cs = drv.CUfunction(fn), drv.CUstream(stream)
    lib = ctypes.CDLL("libcuda.so.1")
    launch_c = lib.cuLaunchKernel
    u = ctypes.c_uint
    launch_c.argtypes = [ctypes.c_void_p, u, u, u, u, u, u, u, ctypes.c_void_p, ctypes.c_void_p,
                         ctypes.c_void_p]
    launch_c.restype = ctypes.c_int
    bare = ctypes.CDLL("libcuda.so.1").cuLaunchKernel  # its own CDLL: no argtypes set
    bare_py = ctypes.PyDLL("libcuda.so.1").cuLaunchKernel
    vfn, vstream, vparams = (ctypes.c_void_p(v) for v in (fn, stream, params))
    launch_ct = driver.ctypes_launcher(fn, bare)
    run_ct = exe._packer.runner(launch_ct)
    event = driver.event_create()
    launch = driver.launcher(fn)  # cutile's own call, handles built once

    def sync() -> None:
        driver.stream_synchronize(stream)

    out = {
        "bindings": per_call(lambda: launch(grid, stream, params), sync, calls),
        "bindings_prebuilt": per_call(lambda: drv.cuLaunchKernel(
            cf, grid[0], 1, 1, 1, 1, 1, 0, cs, params, 0), sync, calls),
        "ctypes": per_call(lambda: launch_c(fn, grid[0], 1, 1, 1, 1, 1, 0, stream, params, None),
                           sync, calls),
        "ctypes_bare": per_call(lambda: bare(vfn, grid[0], 1, 1, 1, 1, 1, 0, vstream, vparams,
                                             None), sync, calls),
        "ctypes_pydll": per_call(lambda: bare_py(vfn, grid[0], 1, 1, 1, 1, 1, 0, vstream,
                                                 vparams, None), sync, calls),
        "launcher_ctypes": per_call(lambda: launch_ct(grid, stream, params), sync, calls),
        "executable": per_call(lambda: exe.enqueue(args, grid, stream), sync, calls),
        "executable_ctypes": per_call(lambda: run_ct(args, grid, stream), sync, calls),
        "event_record": per_call(lambda: driver.event_record(event, stream), sync, calls),
        "event_query": per_call(lambda: driver.event_query(event), sync, calls),
        "pack": per_call(lambda: exe._packer.pack(args), sync, calls),
    }
    config = drv.CUlaunchConfig()  # cuLaunchKernelEx with a config built once
    config.gridDimX, config.gridDimY, config.gridDimZ = grid
    config.blockDimX = config.blockDimY = config.blockDimZ = 1
    config.hStream, config.numAttrs = cs, 0
    out["bindings_ex_prebuilt"] = per_call(lambda: drv.cuLaunchKernelEx(config, cf, params, 0),
                                           sync, calls)
    try:  # not every cuda.bindings release takes ints for handles
        out["bindings_ints"] = per_call(lambda: drv.cuLaunchKernel(
            fn, grid[0], 1, 1, 1, 1, 1, 0, stream, params, 0), sync, calls)
    except TypeError as err:
        print(f"bindings_ints: {err}")
    loop = _launch_loop()
    if loop is None:
        print("c_loop: no C compiler and no $CUTILE_LAUNCH_LOOP_SO; not timed")
    else:
        addr = ctypes.cast(bare, ctypes.c_void_p)
        err = loop(addr, vfn, grid[0], vstream, vparams, 1)
        if err:
            raise SystemExit(f"c_loop: cuLaunchKernel returned {err}")
        out["c_loop"] = per_call(lambda: loop(addr, vfn, grid[0], vstream, vparams, BATCH),
                                 sync, calls, each=BATCH)
    print(json.dumps({k: round(v, 3) for k, v in out.items()}))


def _launch_loop() -> Any:
    """`launch_loop` of launch_loop.c through ctypes (the GIL kept), or None when it cannot
    be built here."""
    import os
    import shutil
    import subprocess
    import tempfile
    from pathlib import Path

    so = os.environ.get("CUTILE_LAUNCH_LOOP_SO")
    if not so:
        cc = shutil.which("cc") or shutil.which("gcc")
        if cc is None:
            return None
        so = str(Path(tempfile.mkdtemp()) / "launch_loop.so")
        src = Path(__file__).with_name("launch_loop.c")
        subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", so, str(src)], check=True)
    fn = ctypes.PyDLL(so).launch_loop
    fn.restype = ctypes.c_int
    return fn


if __name__ == "__main__":
    main()
