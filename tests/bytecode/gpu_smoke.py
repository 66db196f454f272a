"""Hand launch of encoder-built cubins on a real GPU (run by hand on the H200; not a pytest file).

    python tests/bytecode/gpu_smoke.py [--arch sm_90]

Builds vector add (with a masked tail), softmax and f16/bf16 GEMMs with the bytecode builder,
compiles them with tileiras, loads each cubin with cuModuleLoadData, launches with block
(1, 1, 1) (the driver takes the thread count from the cubin) and compares with NumPy.
Exits 1 on any mismatch.
"""

from __future__ import annotations

import argparse
import ctypes
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from bc_programs import gemm, softmax, vector_add

from cutile.compiler.bytecode import encode
from cutile.compiler.bytecode.types import Scalar
from cutile.compiler.toolchain import compile_cubin, find_toolchain


def _check(result: Any) -> Any:
    from cuda.bindings import driver as cu
    err, *rest = result if isinstance(result, tuple) else (result,)
    if err != cu.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA error {err}")
    return rest[0] if len(rest) == 1 else rest


class Gpu:
    def __init__(self) -> None:
        from cuda.bindings import driver as cu
        self.cu = cu
        _check(cu.cuInit(0))
        dev = _check(cu.cuDeviceGet(0))
        ctx = _check(cu.cuDevicePrimaryCtxRetain(dev))
        _check(cu.cuCtxSetCurrent(ctx))
        self.allocs: list[Any] = []

    def upload(self, a: np.ndarray) -> Any:
        ptr = _check(self.cu.cuMemAlloc(max(a.nbytes, 16)))
        _check(self.cu.cuMemcpyHtoD(ptr, np.ascontiguousarray(a), a.nbytes))
        self.allocs.append(ptr)
        return ptr

    def download(self, ptr: Any, like: np.ndarray) -> np.ndarray:
        out = np.empty_like(like)
        _check(self.cu.cuMemcpyDtoH(out, ptr, out.nbytes))
        return out

    def launch(self, cubin: bytes, name: str, grid: tuple[int, int, int],
               args: list[Any]) -> None:
        cu = self.cu
        mod = _check(cu.cuModuleLoadData(cubin))
        fn = _check(cu.cuModuleGetFunction(mod, name.encode()))
        types = [None if isinstance(a, cu.CUdeviceptr) else ctypes.c_int32 for a in args]
        _check(cu.cuLaunchKernel(fn, *grid, 1, 1, 1, 0, 0, (tuple(args), tuple(types)), 0))
        _check(cu.cuCtxSynchronize())


def _bf16(a: np.ndarray) -> np.ndarray:
    """float32 -> bf16 bit patterns (round to nearest even) as uint16."""
    bits = a.astype(np.float32).view(np.uint32)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def _from_bf16(a: np.ndarray) -> np.ndarray:
    return (a.astype(np.uint32) << 16).view(np.float32)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--arch", default="sm_90")
    arch = parser.parse_args().arch
    tc = find_toolchain()
    gpu = Gpu()
    rng = np.random.default_rng(0)
    failures = 0

    def report(name: str, err: float, tol: float) -> None:
        nonlocal failures
        ok = err <= tol
        failures += not ok
        print(f"{name}: max_err={err:.3g} tol={tol:g} {'OK' if ok else 'FAIL'}")

    # vector add, n not a multiple of the tile: the tail is padded on load and masked on store.
    n = 1000
    x, y = rng.standard_normal(n, np.float32), rng.standard_normal(n, np.float32)
    sentinel = np.full(1024, 7.0, np.float32)
    dx, dy, dz = gpu.upload(x), gpu.upload(y), gpu.upload(sentinel)
    cubin = compile_cubin(tc, encode(vector_add(256)), arch, kernel="vadd").cubin
    gpu.launch(cubin, "vadd", (4, 1, 1), [dx, dy, dz, n])
    z = gpu.download(dz, sentinel)
    report("vadd", float(np.abs(z[:n] - (x + y)).max()), 0.0)
    report("vadd tail untouched", float(np.abs(z[n:] - 7.0).max()), 0.0)

    # softmax over rows of a 64 x 256 f16 matrix, 4 rows per block.
    m, cols = 64, 256
    a = rng.standard_normal((m, cols)).astype(np.float16)
    da, do = gpu.upload(a), gpu.upload(np.zeros_like(a))
    cubin = compile_cubin(tc, encode(softmax(4, cols)), arch, kernel="softmax").cubin
    gpu.launch(cubin, "softmax", (m // 4, 1, 1), [da, do, m, cols, cols])
    got = gpu.download(do, a).astype(np.float32)
    e = np.exp(a.astype(np.float32) - a.astype(np.float32).max(1, keepdims=True))
    report("softmax", float(np.abs(got - e / e.sum(1, keepdims=True)).max()), 2e-3)

    # GEMM 512 x 512 x 256 (f16 and bf16 in, f32 accumulate, same type out).
    mm, nn, kk = 512, 512, 256
    for elem in (Scalar.F16, Scalar.BF16):
        af = rng.standard_normal((mm, kk)).astype(np.float32)
        bf = rng.standard_normal((kk, nn)).astype(np.float32)
        if elem is Scalar.F16:
            ha, hb = af.astype(np.float16), bf.astype(np.float16)
            ref = ha.astype(np.float32) @ hb.astype(np.float32)
            out_like = np.zeros((mm, nn), np.float16)
        else:
            ha, hb = _bf16(af), _bf16(bf)
            ref = _from_bf16(ha) @ _from_bf16(hb)
            out_like = np.zeros((mm, nn), np.uint16)
        dA, dB, dC = gpu.upload(ha), gpu.upload(hb), gpu.upload(out_like)
        cubin = compile_cubin(tc, encode(gemm(elem=elem)), arch, kernel="gemm").cubin
        gpu.launch(cubin, "gemm", (mm // 128, nn // 128, 1), [dA, dB, dC, mm, nn, kk, kk, nn, nn])
        c = gpu.download(dC, out_like)
        cf = c.astype(np.float32) if elem is Scalar.F16 else _from_bf16(c)
        rel = float(np.abs(cf - ref).max() / np.abs(ref).max())
        report(f"gemm {elem}", rel, 1e-2)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
