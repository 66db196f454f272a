"""How long `check_source` takes on a 1,000-line module with 50 varied kernels.

    python benchmarks/frontend_speed.py [--runs N] [--profile]

Prints the module's size and the median wall time of `check_source` over several runs (the
target is under 100 ms). `--profile` prints the top functions of one run under cProfile.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import time

from cutile.compiler import check_source

HEADER = '''\
"""Generated for the frontend speed benchmark."""
import cutile as ct
from cutile import Const, Mut, Tensor, bf16, f16, f32, i32

EPS = 1e-5
SCALE = 0.5


@ct.function
def gelu(t, k=0.7978845608028654):
    inner = k * (t + 0.044715 * t * t * t)
    return 0.5 * t * (1.0 + ct.tanh(inner))


@ct.function
def clamp(t, lo=-6.0, hi=6.0):
    return ct.minimum(ct.maximum(t, lo), hi)


@ct.function
def row_norm(t, n):
    ms = ct.sum(t * t, 1, keepdims=True) / n
    return t * ct.rsqrt(ms + EPS)

'''

ELEMENTWISE = '''
@ct.kernel
def elementwise_{i}(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], y: Tensor[f32, (-1,)],
                    a: f32, B: Const[int]) -> None:
    tx = ct.load_tile_like(x, z)
    ty = ct.load_tile_like(y, z)
    s = a * tx + ty
    g = gelu(s)
    c = clamp(g, hi=4.0)
    e = ct.exp(-ct.abs(c)) + ct.sqrt(ct.abs(s) + 1.0)
    m = ct.where(s > 0.0, s, 0.0)
    w = ct.maximum(m, e) - ct.minimum(m, e) * SCALE
    q = (w * w + 1.0) / (w + 2.0)
    h = q.astype(f16).astype(f32)
    z.store(h + c - g * 0.25)
'''

REDUCTION = '''
@ct.kernel
def softmax_{i}(z: Mut[Tensor[f32, (1, "N")]], x: Tensor[f32, (-1, "N")],
                w: Tensor[f16, ("N",)], N: Const[int]) -> None:
    t = ct.load_tile_like(x, z)
    m = ct.max(t, 1, keepdims=True)
    e = ct.exp(t - m)
    s = ct.sum(e, axis=1, keepdims=True)
    p = e / s
    r = row_norm(p, N)
    wt = ct.expand_dims(w.load_tile((N,), 0).astype(f32), 0)
    mean = ct.sum(r, 1) / N
    d = r - ct.expand_dims(mean, 1)
    v = ct.sum(d * d, 1, keepdims=True) / N
    y = d * ct.rsqrt(v + EPS) * wt
    c = ct.cumsum(y, 1)
    z.store(y + c * 0.0)
'''

GEMM = '''
@ct.kernel
def gemm_{i}(z: Mut[Tensor[f32, ("BM", "BN")]], a: Tensor[f16, (-1, -1)],
             b: Tensor[f16, (-1, -1)], BM: Const[int], BN: Const[int], BK: Const[int]) -> None:
    i, j = z.tile_index()
    pa = a.partition((BM, BK))
    pb = b.partition((BK, BN))
    acc = ct.zeros((BM, BN), f32)
    steps = 0
    for k in range(ct.num_tiles(pa, 1)):
        ta = pa.load((i, k))
        tb = pb.load((k, j))
        acc = ct.mma(ta, tb, acc)
        steps += 1
    if steps > 4:
        acc = acc * 0.5
    else:
        acc = acc * 2.0
    z.store(clamp(acc))
'''

LOOPS = '''
@ct.kernel
def loops_{i}(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], n: i32) -> None:
    p = x.partition((64,))
    acc = ct.zeros((64,), f32)
    best = ct.full((64,), -1e30, f32)
    j = ct.block_id(0)
    while j < n:
        t = p.load(j)
        if ct.sum(t, 0) < 0.0:
            j = j + ct.num_blocks(0)
            continue
        acc = acc + t
        best = ct.maximum(best, t)
        if ct.max(acc, 0) > 1000.0:
            break
        j = j + ct.num_blocks(0)
    for r in range(4):
        acc = acc * 0.5 + best.astype(bf16).astype(f32)
    z.store(acc)
'''

PERSISTENT = '''
@ct.kernel
def persistent_{i}(z: Mut[Tensor[f32, (64, 64)]], a: Tensor[f16, (-1, -1)],
                   b: Tensor[f16, (-1, -1)], K: Const[int]) -> None:
    pa = a.partition((64, 32))
    pb = b.partition((32, 64))
    for zt in z.tiles():
        i, j = zt.tile_index()
        acc = ct.zeros((64, 64), f32)
        for k in range(K // 32):
            acc = ct.mma(pa.load((i, k)), pb.load((k, j)), acc)
        out = acc.transpose().transpose()
        ct.device_assert(ct.max(ct.max(out, 1), 0) < 1e30, "overflow")
        shaped = out.reshape((4096,)).reshape((64, 64))
        zt.store(shaped)
'''

TEMPLATES = [ELEMENTWISE, REDUCTION, GEMM, LOOPS, PERSISTENT]


def make_module(kernels: int = 50) -> str:
    parts = [HEADER]
    for i in range(kernels):
        kind = TEMPLATES[i % len(TEMPLATES)]
        comment = f"# kernel {i} of {kernels}\n# generated from a template\n#"
        parts.append(comment + kind.format(i=i))
    return "\n".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    source = make_module()
    lines = source.count("\n")
    diags = check_source(source, "bench.py")  # warm-up; the module must check clean
    if diags:
        raise SystemExit(f"the generated module has {len(diags)} diagnostics: {diags[0]}")
    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        check_source(source, "bench.py")
        times.append(time.perf_counter() - start)
    kernels = source.count("@ct.kernel")
    print(f"check_source on {lines} lines, {kernels} kernels: median "
          f"{statistics.median(times) * 1000:.1f} ms, min {min(times) * 1000:.1f} ms "
          f"over {args.runs} runs (target: under 100 ms)")
    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(check_source, source, "bench.py")
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)


if __name__ == "__main__":
    main()
