"""Cubins from `compile_kernel`, launched by hand on a real GPU and compared with NumPy.

    python tests/lower/gpu_check.py [--arch sm_90]

Each kernel is specialized from the actual device pointers, shapes and strides (as a launch
would), compiled through the lowering and tileiras, loaded with cuModuleLoadData and launched
with the grid of compiler/tiling.py and block (1, 1, 1), one parameter per entry slot. Prints a
PASS/FAIL line per check; exits 1 on any failure.
"""

from __future__ import annotations

import argparse
import ctypes
import sys
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from lower_util import EXAMPLES, module  # noqa: E402

from cutile.compiler.compile import Compiled, compile_kernel  # noqa: E402
from cutile.compiler.dsl.orders import TileOrder, col_major, grouped, row_major  # noqa: E402
from cutile.compiler.dtypes import BF16, F16, F32, DType  # noqa: E402
from cutile.compiler.frontend.params import read_signature  # noqa: E402
from cutile.compiler.specialization import (  # noqa: E402
    MutFacts,
    ParamFacts,
    Specialization,
    tensor_facts,
)
from cutile.compiler.tiling import Tiling  # noqa: E402
from cutile.reader.source import ModuleInfo  # noqa: E402

_CTYPES = {"u64": ctypes.c_uint64, "i32": ctypes.c_int32, "f32": ctypes.c_float,
           "i64": ctypes.c_int64, "f64": ctypes.c_double}


def _ok(result: Any) -> Any:
    from cuda.bindings import driver as cu

    err, *rest = result if isinstance(result, tuple) else (result,)
    if err != cu.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA error {err}")
    return rest[0] if len(rest) == 1 else rest


COMPILE_ONLY = False  # --compile-only: no driver calls (checks the script on a CPU machine)


class DeviceArray:
    def __init__(self, host: np.ndarray, dtype: DType) -> None:
        self.host = np.ascontiguousarray(host)
        self.dtype = dtype
        if COMPILE_ONLY:
            self.ptr: Any = 1 << 40  # an allocator-aligned stand-in address
            return
        from cuda.bindings import driver as cu

        self.ptr = _ok(cu.cuMemAlloc(max(self.host.nbytes, 16)))
        _ok(cu.cuMemcpyHtoD(self.ptr, self.host, self.host.nbytes))

    @property
    def address(self) -> int:
        return int(self.ptr)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(int(d) for d in self.host.shape)

    @property
    def strides(self) -> tuple[int, ...]:
        return tuple(s // self.host.itemsize for s in self.host.strides)

    def read(self) -> np.ndarray:
        if COMPILE_ONLY:
            return self.host
        from cuda.bindings import driver as cu

        out = np.empty_like(self.host)
        _ok(cu.cuMemcpyDtoH(out, self.ptr, out.nbytes))
        return out


class Mut:
    """A Mut argument: the whole output array plus its partition's tile, order and blocks."""

    def __init__(self, arr: DeviceArray, tile: tuple[int, ...], order: TileOrder = row_major,
                 blocks: int | None = None) -> None:
        self.arr, self.tile, self.order, self.blocks = arr, tile, order, blocks

    def tiling(self) -> Tiling:
        grid = tuple(-(-n // t) for n, t in zip(self.arr.shape, self.tile, strict=True))
        return Tiling(grid, self.order, self.blocks)


def specialization(info: ModuleInfo, name: str, args: list[Any], consts: dict[str, Any],
                   arch: str) -> Specialization:
    sig, diags = read_signature(info, info.functions[name])
    assert not diags, diags
    facts: list[ParamFacts] = []
    for p, a in zip(sig.params, [*args, *([None] * (len(sig.params) - len(args)))],
                    strict=True):
        if isinstance(a, Mut):
            f = tensor_facts(a.arr.dtype, a.arr.address, a.arr.shape, a.arr.strides, True)
            whole = tuple(n >= d for n, d in zip(a.tile, a.arr.shape, strict=True))
            facts.append(MutFacts(f, a.tile, a.order, a.blocks is not None, whole))
        elif isinstance(a, DeviceArray):
            facts.append(tensor_facts(a.dtype, a.address, a.shape, a.strides, True))
        elif p.kind == "scalar":
            facts.append(p.dtype)
        else:
            facts.append(None)
    ordered = tuple((p.name, consts[p.name]) for p in sig.params if p.kind == "const")
    return Specialization(ordered, tuple(facts), arch)


def launch(c: Compiled, args: list[Any]) -> None:
    if COMPILE_ONLY:
        return
    from cuda.bindings import driver as cu

    values: list[Any] = []
    for slot in c.slots:
        a = args[slot.arg]
        arr = a.arr if isinstance(a, Mut) else a
        if slot.field == "ptr":
            value: Any = arr.address
        elif slot.field == "shape":
            value = arr.shape[slot.axis]
        elif slot.field == "stride":
            value = arr.strides[slot.axis]
        else:
            value = a
        values.append(_CTYPES[slot.ctype](value))
    muts = [a for a in args if isinstance(a, Mut)]
    grid = muts[0].tiling().grid()
    mod = _ok(cu.cuModuleLoadData(c.cubin))
    fn = _ok(cu.cuModuleGetFunction(mod, c.entry.encode()))
    ptrs = (ctypes.c_void_p * max(1, len(values)))(
        *[ctypes.addressof(v) for v in values])
    _ok(cu.cuLaunchKernel(fn, *grid, 1, 1, 1, 0, 0, ctypes.addressof(ptrs), 0))
    _ok(cu.cuCtxSynchronize())


def bf16_bits(a: np.ndarray) -> np.ndarray:
    bits = a.astype(np.float32).view(np.uint32)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def from_bf16(a: np.ndarray) -> np.ndarray:
    return (a.astype(np.uint32) << 16).view(np.float32)


class Checker:
    def __init__(self, arch: str) -> None:
        self.arch = arch
        self.failures = 0

    def run(self, path: Path, name: str, args: list[Any], consts: dict[str, Any]) -> Compiled:
        info = module(path)
        spec = specialization(info, name, args, consts, self.arch)
        c = compile_kernel(info, name, spec, tileir=False)
        launch(c, args)
        return c

    def report(self, what: str, err: float, tol: float) -> None:
        if COMPILE_ONLY:
            print(f"COMPILED {what}", flush=True)
            return
        ok = bool(err <= tol)
        self.failures += not ok
        print(f"{'PASS' if ok else 'FAIL'} {what}: max_err={err:.3g} (tol {tol:g})", flush=True)


def check_contraction(chk: Checker, rng: np.random.Generator, gk: Path) -> None:
    """fma contraction (compiler/lower/contract.py) on the device."""
    shape = (128, 64)
    x, y = (rng.standard_normal(shape).astype(np.float32) for _ in range(2))
    p = x * y  # rounded to f32: the contracted x * y - p is exactly its rounding error
    zr = DeviceArray(np.zeros(shape, np.float32), F32)
    chk.run(gk, "fma_residual", [Mut(zr, (64, 32)), DeviceArray(x, F32), DeviceArray(y, F32),
                                 DeviceArray(p, F32)], {})
    exact = x.astype(np.float64) * y - p
    chk.report("fma residual (single rounding)", float(np.abs(zr.read() - exact).max()), 0.0)

    s = 1.5
    col = rng.standard_normal((shape[0], 1)).astype(np.float32)
    row = rng.standard_normal((1, shape[1])).astype(np.float32)
    hx = rng.standard_normal(shape).astype(np.float16)
    z = DeviceArray(np.zeros(shape, np.float32), F32)
    h = DeviceArray(np.zeros(shape, np.float16), F16)
    chk.run(gk, "fma_mix", [Mut(z, (64, 32)), Mut(h, (64, 32)), DeviceArray(x, F32),
                            DeviceArray(col, F32), DeviceArray(row, F32), DeviceArray(hx, F16),
                            s], {})
    xd, cd = x.astype(np.float64), col.astype(np.float64)
    ref = (xd * row - cd) + (cd - xd * s) * (s * s + 1.0)
    chk.report("fma broadcast f32", float(np.abs(z.read() - ref).max() / np.abs(ref).max()),
               1e-6)
    hd = hx.astype(np.float64)
    href = hd * hd + hd
    chk.report("fma f16", float(np.abs(h.read().astype(np.float64) - href).max()
                                / np.abs(href).max()), 2e-3)


def main(argv: list[str] | None = None) -> int:
    global COMPILE_ONLY
    parser = argparse.ArgumentParser()
    parser.add_argument("--arch", default=None, help="default: the device's own")
    parser.add_argument("--compile-only", action="store_true",
                        help="compile every kernel, launch nothing (no GPU needed)")
    ns = parser.parse_args(argv)
    COMPILE_ONLY = ns.compile_only
    if COMPILE_ONLY:
        ns.arch = ns.arch or "sm_90"
    else:
        from cuda.bindings import driver as cu

        _ok(cu.cuInit(0))
        dev = _ok(cu.cuDeviceGet(0))
        _ok(cu.cuCtxSetCurrent(_ok(cu.cuDevicePrimaryCtxRetain(dev))))
    if ns.arch is None:
        major = _ok(cu.cuDeviceGetAttribute(
            cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev))
        minor = _ok(cu.cuDeviceGetAttribute(
            cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev))
        ns.arch = f"sm_{major}{minor}"
    chk = Checker(ns.arch)
    rng = np.random.default_rng(0)
    gk = HERE / "gpu_kernels.py"

    # vector add with a tail: 1000 elements, tiles of 256; the store is masked past n.
    n = 1000
    x, y = rng.standard_normal(n, np.float32), rng.standard_normal(n, np.float32)
    z = DeviceArray(np.full(n, 7.0, np.float32), F32)
    chk.run(EXAMPLES / "add.py", "add", [Mut(z, (256,)), DeviceArray(x, F32),
                                         DeviceArray(y, F32)], {"B": 256})
    chk.report("add (n=1000, tile 256)", float(np.abs(z.read() - (x + y)).max()), 0.0)

    # saxpy: a scalar parameter and a Mut read before its store.
    y0 = rng.standard_normal(4096, np.float32)
    ys = DeviceArray(y0, F32)
    xs = rng.standard_normal(4096, np.float32)
    chk.run(EXAMPLES / "saxpy.py", "saxpy", [Mut(ys, (1024,)), 2.5, DeviceArray(xs, F32)],
            {"B": 1024})
    chk.report("saxpy", float(np.abs(ys.read() - (2.5 * xs + y0)).max()), 1e-5)

    # softmax, bf16 in and out, 4 rows per block, 62 rows (a partial last tile).
    m, cols = 62, 1024
    a = rng.standard_normal((m, cols)).astype(np.float32)
    ab = bf16_bits(a)
    out = DeviceArray(np.zeros((m, cols), np.uint16), BF16)
    chk.run(EXAMPLES / "softmax.py", "softmax", [Mut(out, (4, cols)), DeviceArray(ab, BF16)],
            {"BM": 4, "N": cols})
    af = from_bf16(ab)
    e = np.exp(af - af.max(1, keepdims=True))
    chk.report("softmax bf16 62x1024", float(np.abs(from_bf16(out.read())
                                                    - e / e.sum(1, keepdims=True)).max()), 4e-3)

    # GEMMs: bf16 (grouped order, and persistent with 3 blocks) and f16 (column-major order).
    mm, nn, kk = 384, 256, 192
    fa = rng.standard_normal((mm, kk)).astype(np.float32)
    fb = rng.standard_normal((kk, nn)).astype(np.float32)
    ba, bb = bf16_bits(fa), bf16_bits(fb)
    ref = from_bf16(ba) @ from_bf16(bb)
    consts = {"BM": 128, "BN": 128, "BK": 64}
    for name, tiles in (("gemm", Mut), ("gemm_persistent", Mut)):
        c_out = DeviceArray(np.zeros((mm, nn), np.uint16), BF16)
        blocks = 3 if name == "gemm_persistent" else None
        comp = chk.run(EXAMPLES / "gemm.py", name,
                       [tiles(c_out, (128, 128), grouped(2), blocks), DeviceArray(ba, BF16),
                        DeviceArray(bb, BF16)], consts)
        rel = float(np.abs(from_bf16(c_out.read()) - ref).max() / np.abs(ref).max())
        chk.report(f"{name} bf16 {mm}x{nn}x{kk} ({len(comp.cubin)} B cubin)", rel, 1e-2)
    ha, hb = fa.astype(np.float16), fb.astype(np.float16)
    c16 = DeviceArray(np.zeros((mm, nn), np.float16), F16)
    chk.run(gk, "gemm_f16", [Mut(c16, (64, 128), col_major), DeviceArray(ha, F16),
                             DeviceArray(hb, F16)], {"BM": 64, "BN": 128, "BK": 64})
    ref16 = ha.astype(np.float32) @ hb.astype(np.float32)
    chk.report("gemm_f16 col_major", float(np.abs(c16.read().astype(np.float32) - ref16).max()
                                           / np.abs(ref16).max()), 1e-2)

    # Mut re-read after stores, inside a loop and an if (tokens carried through both).
    src = rng.standard_normal((64, 96), np.float32)
    zr = DeviceArray(np.zeros((64, 96), np.float32), F32)
    chk.run(gk, "reread", [Mut(zr, (32, 32)), DeviceArray(src, F32), 4], {})
    chk.report("Mut reread (tokens)", float(np.abs(zr.read() - (src * 16 + 1)).max()), 1e-4)

    check_contraction(chk, rng, gk)

    print(f"{'FAIL' if chk.failures else 'PASS'}: {chk.failures} failure(s) on {ns.arch}")
    return 1 if chk.failures else 0


if __name__ == "__main__":
    sys.exit(main())
