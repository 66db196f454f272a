"""The accumulator target: random launches of a kernel that accumulates into an `Acc`, against a
NumPy model, on the interpreter and (with `--backend cuda`) on the GPU.

A case draws the op and dtype (every pair an `Acc` takes), the accumulator's shape (rank 1 or
2, ragged extents), a power-of-two tile, the form (a whole tile at a tile index, `acc.add(t,
index)`, or a scatter at element indices, `acc.add_at(indices, t)`) and, per block, its tile of
values and where it goes: tile indices in range, at the ragged edge, past it, negative and
huge (2**30, -2**31; past i32's range in i64 index tensors); element indices the same way.
Nothing outside the tensor may change and every element inside must be the model's. Values
are small integers, so integer and f32/f64 results are exact whatever order the blocks'
atomics land in; f16/bf16 sums are held to a rounding bound instead (elements no block
touched: exactly).

A case is [header, block, block, ...] (JSON): a failure shrinks over the blocks."""

from __future__ import annotations

import importlib.util
import math
import random
import tempfile
import warnings
from pathlib import Path
from typing import Any

from .host_target import backend_named

OPS = {"add": ("f16", "bf16", "f32", "f64", "i32", "u32", "i64", "u64"),
       "max": ("f32", "f64", "i32", "u32", "i64", "u64"),
       "min": ("f32", "f64", "i32", "u32", "i64", "u64"),
       "or": ("i32", "u32", "i64", "u64"), "and": ("i32", "u32", "i64", "u64"),
       "xor": ("i32", "u32", "i64", "u64")}
METHOD = {"add": "add", "max": "max", "min": "min", "or": "or_", "and": "and_", "xor": "xor"}
ODD_INDICES = (-1, -2, 2**30, -2**31, 2**31 - 1)
ODD_WIDE = (2**32, 2**32 + 1, -2**32 + 1, 2**31, 2**40, -2**40)  # only i64 indices hold them
_BACKEND: list[str] = ["interpreter"]
_DIR: list[Path] = []
_KERNELS: dict[str, Any] = {}  # per worker process, by name


def configure(backend: str | None) -> None:
    """Also run every case on `backend` ("cuda"; "interpreter": the interpreter alone)."""
    _BACKEND[:] = ["interpreter"] + ([backend] if backend not in (None, "interpreter") else [])


def setup() -> None:
    warnings.simplefilter("ignore")


def case(rng: random.Random, huge_lines: int = 0) -> list[dict[str, Any]]:
    op = rng.choice(list(OPS))
    dtype = rng.choice(OPS[op])
    rank = rng.choice((1, 2))
    shape = [rng.choice((1, 3, 8, 17, 32, 45, 64, 70)) for _ in range(rank)]
    tile = [rng.choice((1, 2, 4, 8, 16, 32)) for _ in range(rank)]
    while math.prod(tile) > 512:
        tile[rng.randrange(rank)] //= 2
    scatter = rng.random() < 0.3
    wide = rng.random() < 0.25  # i64 index tensors
    header = {"op": op, "dtype": dtype, "shape": shape, "tile": tile, "scatter": scatter,
              "wide": wide, "init": _values(rng, dtype, op, math.prod(shape))}
    blocks = []
    for _ in range(rng.randint(1, 6)):
        values = _values(rng, dtype, op, math.prod(tile))
        if scatter:
            where = [[_index(rng, n, 1, wide) for _ in range(math.prod(tile))] for n in shape]
        else:
            where = [_index(rng, n, t, wide) for n, t in zip(shape, tile, strict=True)]
        blocks.append({"values": values, "where": where})
    return [header, *blocks]


def _index(rng: random.Random, extent: int, tile: int, wide: bool) -> int:
    """A tile index (an element index when `tile` is 1): mostly in range, else at or past the
    edge, negative or huge (past i32's range when `wide`)."""
    count = -(-extent // tile)
    r = rng.random()
    if r < 0.7:
        return rng.randrange(count)
    if r < 0.85:
        return count + rng.randrange(2)  # just past the end
    return rng.choice(ODD_INDICES + (ODD_WIDE if wide else ()))


def _values(rng: random.Random, dtype: str, op: str, n: int) -> list[int]:
    if op in ("or", "and", "xor"):
        bits = {"i32": 31, "u32": 32, "i64": 63, "u64": 64}[dtype]  # non-negative, in range
        return [rng.getrandbits(bits) for _ in range(n)]
    low = 0 if dtype.startswith("u") else -4
    return [rng.randint(low, 4) for _ in range(n)]


def split(c: list[dict[str, Any]]) -> list[Any]:
    return c[1:]


def join(parts: list[Any], like: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [like[0], *parts]


def check(c: list[dict[str, Any]]) -> str | None:
    header, blocks = c[0], c[1:]
    if not blocks:
        return None
    want, bound = model(header, blocks)
    problems = []
    for backend in _BACKEND:
        got = run(header, blocks, backend)
        wrong = _differences(got, want, bound, header["shape"])
        if wrong:
            problems.append(f"{backend}: {header['op']} {header['dtype']} "
                            f"{'scatter' if header['scatter'] else 'tile'}: {wrong}")
    return "\n".join(problems) or None


def _differences(got: Any, want: Any, bound: Any, shape: list[int]) -> str:
    import numpy as np

    g = got.astype(np.float64) if got.dtype.kind == "f" or got.dtype.itemsize == 2 else got
    off = np.abs(g - want) > bound if g.dtype.kind == "f" else g != want
    if not off.any():
        return ""
    at = tuple(int(i) for i in np.argwhere(off.reshape(shape))[0])
    flat = int(np.ravel_multi_index(at, shape))
    return (f"{int(off.sum())} element(s) differ, first at {at}: got {g.ravel()[flat]!r}, "
            f"want {want.ravel()[flat]!r}")


def model(header: dict[str, Any], blocks: list[dict[str, Any]]) -> tuple[Any, Any]:
    """The accumulator after every block, in float64 (or the integer dtype), and per element
    how far a float result may be from it (0 where exact)."""
    import numpy as np

    op, dtype, shape, tile = header["op"], header["dtype"], header["shape"], header["tile"]
    kind = np.float64 if dtype.startswith(("f", "b")) else np.dtype(_NP[dtype])
    acc = np.array(header["init"], kind).reshape(shape)
    scale = np.abs(acc).astype(np.float64)
    count = np.zeros(shape, np.int64)
    fold = {"add": np.add, "max": np.maximum, "min": np.minimum, "or": np.bitwise_or,
            "and": np.bitwise_and, "xor": np.bitwise_xor}[op]
    for b in blocks:
        values = np.array(b["values"], kind).reshape(tile)
        for pos, v in _targets(header, b, values):
            if all(0 <= p < n for p, n in zip(pos, shape, strict=True)):
                acc[pos] = fold(acc[pos], v)
                scale[pos] += abs(float(v))
                count[pos] += 1
    eps = {"f16": 2.0**-10, "bf16": 2.0**-7}.get(dtype, 0.0)
    return acc, count * eps * scale  # eps 0: exact


def _targets(header: dict[str, Any], block: dict[str, Any], values: Any) -> Any:
    """(element position, value) for each value of the block's tile."""
    import numpy as np

    tile = header["tile"]
    for local in np.ndindex(*tile):
        if header["scatter"]:
            flat = int(np.ravel_multi_index(local, tile))
            pos = tuple(block["where"][axis][flat] for axis in range(len(tile)))
        else:
            pos = tuple(w * t + i for w, t, i in zip(block["where"], tile, local, strict=True))
        yield pos, values[local]


_NP = {"i32": "int32", "u32": "uint32", "i64": "int64", "u64": "uint64", "f16": "float16",
       "bf16": "float32", "f32": "float32", "f64": "float64"}


def run(header: dict[str, Any], blocks: list[dict[str, Any]], backend: str) -> Any:
    """The accumulator after one launch of the case's kernel (one block per entry of
    `blocks`) on `backend`, as a NumPy array."""
    import numpy as np

    import cutile as ct
    from cutile.runtime import context

    dtype, shape, tile = header["dtype"], header["shape"], header["tile"]
    dt = getattr(ct, dtype)
    kernel = _kernel(header)
    index = np.int64 if header.get("wide") else np.int32
    old = context.set_backend(backend_named(backend))  # first: tensors are made on its device
    try:
        acc = ct.from_numpy(np.array(header["init"], _NP[dtype]).reshape(shape), dt)
        values = ct.from_numpy(np.array([b["values"] for b in blocks], _NP[dtype]).reshape(
            (len(blocks), math.prod(tile))), dt)
        where = [ct.from_numpy(np.array([_where(b, axis) for b in blocks], np.int64).astype(
            index).reshape((len(blocks), -1))) for axis in range(len(shape))]
        out, *_ = kernel(acc, values, *where, grid=len(blocks)).sync()
        return out.numpy()
    finally:
        context.set_backend(old)


def _where(block: dict[str, Any], axis: int) -> list[int]:
    w = block["where"][axis]
    return w if isinstance(w, list) else [w]


def _kernel(header: dict[str, Any]) -> Any:
    """The case's kernel, written to a module of its own (the frontend reads kernel source)."""
    op, dtype, tile, scatter = header["op"], header["dtype"], header["tile"], header["scatter"]
    rank = len(tile)
    index = "i64" if header.get("wide") else "i32"
    name = f"k_{op}_{dtype}_{'_'.join(map(str, tile))}_{'s' if scatter else 't'}_{index}"
    if name in _KERNELS:
        return _KERNELS[name]
    n = math.prod(tile)
    shape = ", ".join(map(str, tile))
    axes = [f"w{a}" for a in range(rank)]
    params = ", ".join(f"{w}: Tensor[{index}, (-1, -1)]" for w in axes)
    if scatter:
        where = ", ".join(f"{w}.load_tile((1, {n}), (b, 0)).reshape(({shape},))" for w in axes)
        call = f"acc.{op}_at(({where},), t)"
    else:
        where = ", ".join(f"{w}.load_tile((1, 1), (b, 0)).reshape(())" for w in axes)
        call = f"acc.{METHOD[op]}(t, ({where},))"
    src = (f"import cutile as ct\nfrom cutile import Acc, Tensor, i32, i64, {dtype}\n\n\n"
           f"@ct.kernel\n"
           f"def {name}(acc: Acc[Tensor[{dtype}, ({'-1, ' * rank})], \"{op}\"],\n"
           f"        v: Tensor[{dtype}, (-1, -1)], {params}) -> None:\n"
           f"    b = ct.block_id(0)\n"
           f"    t = v.load_tile((1, {n}), (b, 0)).reshape(({shape},))\n"
           f"    {call}\n")
    if not _DIR:
        _DIR.append(Path(tempfile.mkdtemp(prefix="cutile-acc-fuzz-")))
    path = _DIR[0] / f"{name}.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    _KERNELS[name] = getattr(mod, name)
    return _KERNELS[name]
