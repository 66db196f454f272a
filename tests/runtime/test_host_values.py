"""Odd host values at a launch: every value that flows from the host into the launch, the
parameter packing or the bytecode is validated once, by the launch contract (or at
`.partition()`, or by the frontend for tile shapes), so the interpreter and the CUDA backend
give the same coded error at the same line, and accept the same values with the same bits.

The CUDA backend runs here on the fake driver of fake_cuda.py (its packer and binding are real;
only the driver is not), and on a real GPU under `pytest -m gpu`.
"""

import math
import struct
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import cutile as ct
from cutile import Acc, Const, Mut, Tensor, bf16, f16, f32, f64, i32, u8
from cutile.compiler.dtypes import BF16, F16, F32, F64, I32, U8, DType
from cutile.runtime import context, floats
from cutile.runtime.interpreter.numeric import fit

pytest.importorskip("cuda.bindings")
from fake_cuda import FakeDriver, fake_cuda_backend


@ct.kernel
def acc_rows(a: Acc[Tensor[f32, (-1,)], "add"], x: Tensor[f32, (-1,)]) -> None:
    a.add(x.load_tile((16,), (ct.block_id(0),)), (ct.block_id(0),))


@ct.kernel
def echo(zf: Mut[Tensor[f32, (16,)]], zh: Mut[Tensor[f16, (16,)]], zd: Mut[Tensor[f64, (16,)]],
         zb: Mut[Tensor[bf16, (16,)]], zi: Mut[Tensor[i32, (16,)]], zu: Mut[Tensor[u8, (16,)]],
         a: f32, h: f16, d: f64, b: bf16, i: i32, u: u8) -> None:
    zf.store(ct.broadcast_to(a, (16,)))
    zh.store(ct.broadcast_to(h, (16,)))
    zd.store(ct.broadcast_to(d, (16,)))
    zb.store(ct.broadcast_to(b, (16,)))
    zi.store(ct.broadcast_to(i, (16,)))
    zu.store(ct.broadcast_to(u, (16,)))


@ct.kernel
def fill(z: Mut[Tensor[f32, ("B",)]], B: Const[int]) -> None:
    z.store(ct.full((B,), 1.0, f32))


@ct.kernel
def copy(z: Mut[Tensor[f32, (16,)]], x: Tensor[f32, (-1,)]) -> None:
    z.store(ct.load_tile_like(x, z))


ECHO_DTYPES: tuple[DType, ...] = (F32, F16, F64, BF16, I32, U8)


@pytest.fixture(params=["interpreter", "fake_cuda", pytest.param("cuda", marks=pytest.mark.gpu)])
def host(request: pytest.FixtureRequest) -> Iterator[FakeDriver | None]:
    """The backend a test launches on: the interpreter, the CUDA backend over the fake driver
    (yielded, to read what it launched), or a real GPU."""
    if request.param == "interpreter":
        yield None
        return
    if request.param == "cuda":
        from test_gpu import _gpu_backend

        be = _gpu_backend()
        if be is None:
            pytest.skip("no CUDA device")
        old = context.set_backend(be)
        yield None
        context.set_backend(old)
        return
    with fake_cuda_backend() as drv:
        yield drv


def _code(fn: Any) -> tuple[str, int]:
    """The code and line of the CutileError `fn` raises (any other exception fails); the error
    points at this file (the user's code), not into cutile."""
    with pytest.raises(ct.CutileError) as err:
        fn()
    d = err.value.diagnostics[0]
    assert d.span.path.endswith("test_host_values.py"), d
    return d.code, d.span.line


# -- grid= -------------------------------------------------------------------------------------
BAD_GRIDS: list[Any] = [(0,), 0, -1, (2, -3), (1, 2, 3, 4), (), 1.5, (2, 1.5), True, (8, True),
                        "a", [4], None, 2**31, (1, 65536), (1, 1, 2**16), 2**70,
                        (np.int64(0),)]


@pytest.mark.parametrize("grid", BAD_GRIDS, ids=repr)
def test_bad_grids_are_ct406_on_every_backend(host: FakeDriver | None, grid: Any) -> None:
    x = ct.ones((64,), f32)
    launch = lambda: acc_rows(ct.zeros((64,), f32), x, grid=grid)  # noqa: E731
    assert _code(launch) == ("CT406", launch.__code__.co_firstlineno)  # at the launch


@pytest.mark.parametrize(("grid", "launched"), [
    (4, (4, 1, 1)), (np.int64(4), (4, 1, 1)), ((np.int32(2), 2), (2, 2, 1)),
    ((np.uint8(1), 1, np.int16(4)), (1, 1, 4))])
def test_numpy_ints_are_grid_ints(host: FakeDriver | None, grid: Any,
                                  launched: tuple[int, int, int]) -> None:
    x = ct.ones((64,), f32)
    a, _ = acc_rows(ct.zeros((64,), f32), x, grid=grid).sync()
    if host is not None and host.launches:
        assert host.launches[-1].grid == launched
        return
    gx, gy, gz = launched  # block (b0, b1, b2) adds x's tile b0 into a's tile b0
    want = np.zeros(64, np.float32)
    want[:16 * gx] = gy * gz
    np.testing.assert_array_equal(a.numpy(), want)


# -- scalars -----------------------------------------------------------------------------------
def _echo(values: tuple[Any, ...]) -> Any:
    outs = [ct.zeros((16,), dt).partition((16,)) for dt in ECHO_DTYPES]
    return echo(*outs, *values)


GOOD = (1.5, 0.25, 1.0 / 3, 1.0, 7, 200)


@pytest.mark.parametrize(("at", "value"), [
    (0, 1e300), (0, 2**128), (0, -(2**1024)), (0, np.float64(-1e39)), (1, 65520.0),
    (1, 2**16), (2, 2**1024), (3, 2**128), (4, 2**31), (4, -(2**31) - 1), (4, np.int64(2**40)),
    (5, -1), (5, 256), (4, 1.0), (5, True), (0, "1.0"), (0, None)], ids=repr)
def test_scalars_a_parameter_cannot_hold_are_ct406(host: FakeDriver | None, at: int,
                                                   value: Any) -> None:
    values = list(GOOD)
    values[at] = value
    code, _ = _code(lambda: _echo(tuple(values)))
    assert code == "CT406"


# numbers each parameter holds, chosen where conversions could differ: rounding ties, values
# just under a format's overflow, ints beyond 2**53, NumPy scalars of other widths, inf, nan
ODD: list[tuple[Any, ...]] = [
    (float(np.finfo(np.float32).max) * (1 + 2**-26), 65519.0, 2.0**1023, 1 + 2**-8 + 2**-30,
     -(2**31), 255),
    (2**60 + 2**36 + 1, np.float64(1 / 3), np.float32(0.1), 1.99 * 2.0**127, np.uint8(200),
     np.uint8(7)),
    (math.inf, -math.inf, math.nan, math.inf, np.int16(-5), 0),
    (np.float16(0.1), 2**11 + 1, 2**53 + 1, 2**60 + 2**52 + 1, 2**31 - 1, np.int64(3)),
]


def _bits(value: Any, dt: DType) -> bytes:
    """What the interpreter makes of a scalar argument (numeric.fit), as the device's bytes."""
    v = fit(value, dt)
    if dt is BF16:
        return bytes(floats.f32_to_bf16_bits(np.asarray(v)).astype("<u2").tobytes())
    return bytes(np.asarray(v).astype(dt.storage).tobytes())


@pytest.mark.parametrize("values", ODD, ids=range(len(ODD)))
def test_scalars_pack_as_the_interpreter_converts_them(host: FakeDriver | None,
                                                       values: tuple[Any, ...]) -> None:
    outs = _echo(values).sync()
    want = [_bits(v, dt) for v, dt in zip(values, ECHO_DTYPES, strict=True)]
    if host is not None and host.launches:  # the fake driver: the parameter bytes it was given
        slots = host.compiled[-1].slots
        params = host.launches[-1].params
        got = {}
        for slot, p in zip(slots, params, strict=True):
            if slot.field == "value":
                code = {"f32": "<f", "f16": "<e", "f64": "<d", "bf16": "<H", "i32": "<i",
                        "u8": "<B"}[slot.ctype]
                got[slot.arg - len(ECHO_DTYPES)] = struct.pack(code, p)
        assert [got[i] for i in range(len(ECHO_DTYPES))] == want
        return
    for out, w, dt in zip(outs[:len(ECHO_DTYPES)], want, ECHO_DTYPES, strict=True):
        stored = out.unpartition().numpy()
        first = stored[:1]
        if dt is BF16:
            first = floats.f32_to_bf16_bits(first.astype(np.float32)).astype("<u2")
        assert bytes(np.asarray(first).astype(dt.storage).tobytes()) == w


# -- partitions and tensors --------------------------------------------------------------------
@pytest.mark.parametrize(("shape", "tile", "kw"), [
    ((2**20, 2**20), (1, 1), {"order": ct.col_major}),  # 2**40 tiles in one linear grid
    ((1, 1, 300, 300, 1), (1, 1, 1, 1, 1), {}),  # axes 2.. folded into z: 90000 > 65535
    ((1024,), (1,), {"blocks": 2**31}),
    ((2**40,), (16,), {}),
])
def test_launch_grids_beyond_the_device_are_ct408(shape: tuple[int, ...], tile: tuple[int, ...],
                                                   kw: dict[str, Any]) -> None:
    code, _ = _code(lambda: ct.meta(shape, f32).partition(tile, **kw))
    assert code == "CT408"


@pytest.mark.parametrize("shape", [(2**31,), (4, 2**16, 2**16), (2**31 + 16,)])
def test_extents_and_strides_past_i32_are_ct406(shape: tuple[int, ...]) -> None:
    """Extents and strides reach kernels as i32: a tensor past them is refused at the launch
    (here as `compile` takes it), not packed or encoded into an overflow."""
    z = ct.meta((16,), f32).partition((16,))
    code, _ = _code(lambda: copy.compile(z, ct.meta(shape, f32), arch="sm_90"))
    assert code == "CT406"


@pytest.mark.parametrize("tile", [2**25, 2**30, 2**40])
def test_const_tiles_past_tile_ir_are_ct218_before_encoding(tile: int) -> None:
    z = ct.meta((2**30,), f32).partition((tile,)) if tile <= 2**30 else \
        ct.meta((16,), f32).partition((tile,))
    code, _ = _code(lambda: fill.compile(z, arch="sm_90"))
    assert code == "CT218"


def test_const_tiles_past_tile_ir_are_ct218_on_every_backend(host: FakeDriver | None) -> None:
    z = ct.zeros((16,), f32).partition((2**25,))
    code, _ = _code(lambda: fill(z).sync())
    assert code == "CT218"


def test_a_const_float_past_float64_is_ct406() -> None:
    code, _ = _code(lambda: const_fill(ct.zeros((16,), f32).partition((16,)), s=2**1024))
    assert code == "CT406"
    z, = const_fill(ct.zeros((16,), f32).partition((16,)), s=2**10).sync()
    assert z.unpartition().numpy().tolist() == [1024.0] * 16


@ct.kernel
def const_fill(z: Mut[Tensor[f32, (16,)]], s: Const[float]) -> None:
    z.store(ct.full((16,), s, f32))
