"""The f8 conversion rule (runtime/floats.py) and f8 bitcasts, on the host, the interpreter and
(with -m gpu) the GPU.

The rule is ml_dtypes' (and torch's through 2.11): round to nearest even; past the largest
finite value (and +-inf) f8e4m3 gives NaN with the input's sign, f8e5m2 +-inf; NaN gives 0x7F.
It is checked
against an independent reference (frexp and rint) on sweeps that hold every f16 and bf16 value,
every f8 midpoint and its float32 neighbours, subnormals, zeros, infinities and NaNs."""

from typing import Any

import numpy as np
import pytest
from opcheck import assembled, host, on_interpreter

import cutile as ct
from cutile import Const, Mut, Tensor, bf16, f8e4m3, f8e5m2, f16, f32, f64, u8
from cutile.compiler.bytecode import floats as bc_floats
from cutile.compiler.bytecode.types import Scalar
from cutile.compiler.toolchain import KernelCompiler
from cutile.runtime import floats


@ct.kernel
def from_f32(e4: Mut[Tensor[u8, ("B",)]], e5: Mut[Tensor[u8, ("B",)]], x: Tensor[f32, (-1,)],
             B: Const[int]) -> None:
    t = ct.load_tile_like(x, e4)
    e4.store(t.astype(f8e4m3).bitcast(u8))
    e5.store(t.astype(f8e5m2).bitcast(u8))


@ct.kernel
def from_f16(e4: Mut[Tensor[u8, ("B",)]], e5: Mut[Tensor[u8, ("B",)]], x: Tensor[f16, (-1,)],
             B: Const[int]) -> None:
    t = ct.load_tile_like(x, e4)
    e4.store(t.astype(f8e4m3).bitcast(u8))
    e5.store(t.astype(f8e5m2).bitcast(u8))


@ct.kernel
def from_bf16(e4: Mut[Tensor[u8, ("B",)]], e5: Mut[Tensor[u8, ("B",)]],
              x: Tensor[bf16, (-1,)], B: Const[int]) -> None:
    t = ct.load_tile_like(x, e4)
    e4.store(t.astype(f8e4m3).bitcast(u8))
    e5.store(t.astype(f8e5m2).bitcast(u8))


@ct.kernel
def from_f64(e4: Mut[Tensor[f8e4m3, ("B",)]], e5: Mut[Tensor[f8e5m2, ("B",)]],
             x: Tensor[f64, (-1,)], B: Const[int]) -> None:
    t = ct.load_tile_like(x, e4)
    e4.store(t.astype(f8e4m3))
    e5.store(t.astype(f8e5m2))


@ct.kernel
def widen(w32: Mut[Tensor[f32, (256,)]], w16: Mut[Tensor[f16, (256,)]],
          wb: Mut[Tensor[bf16, (256,)]], c45: Mut[Tensor[u8, (256,)]],
          c54: Mut[Tensor[u8, (256,)]], codes: Tensor[u8, (-1,)]) -> None:
    """Every code of each format, widened; and converted to the other f8 format."""
    c = ct.load_tile_like(codes, w32)
    e4, e5 = c.bitcast(f8e4m3), c.bitcast(f8e5m2)
    w32.store(e4.astype(f32))
    w16.store(e5.astype(f16))
    wb.store(e4.astype(bf16))
    c45.store(e4.astype(f8e5m2).bitcast(u8))
    c54.store(e5.astype(f8e4m3).bitcast(u8))


@ct.kernel
def keep_bits(b4: Mut[Tensor[f8e4m3, (256,)]], b5: Mut[Tensor[u8, (256,)]],
              x4: Tensor[u8, (-1,)], x5: Tensor[f8e5m2, (-1,)]) -> None:
    """Bitcasts keep every code, NaN codes included: u8 -> f8 stored, f8 loaded -> u8."""
    b4.store(ct.load_tile_like(x4, b4).bitcast(f8e4m3))
    b5.store(ct.load_tile_like(x5, b5).bitcast(u8))


CASES = [("from_f32", {"B": 256}), ("from_f16", {"B": 256}), ("from_bf16", {"B": 256}),
         ("from_f64", {"B": 256}), ("widen", {}), ("keep_bits", {})]
FORMATS = {"f8e4m3": (3, -6, 448.0, False), "f8e5m2": (2, -14, 57344.0, True)}
CODES = np.arange(256, dtype=np.uint8)


def reference(values: Any, name: str) -> np.ndarray:
    """The rule, computed independently of runtime/floats.py: the f8 value (float64) of each
    input. Quantum = 2**(max(exponent, emin) - mantissa bits); rint on the quantum count rounds
    ties to even (its parity is the code's)."""
    man, emin, top, has_inf = FORMATS[name]
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        v = np.asarray(values, dtype=np.float64)
        mag = np.abs(v)
        _, e = np.frexp(np.where(np.isfinite(mag) & (mag > 0), mag, 1.0))
        q = np.ldexp(1.0, np.maximum(e - 1, emin) - man)
        out = np.rint(mag / q) * q
    over = np.isinf(v) | (out > top)
    out = np.where(over, np.inf if has_inf else np.nan, out)
    return np.where(np.isnan(v), np.nan, np.copysign(out, v))


def expect_codes(codes: np.ndarray, values: Any, name: str) -> None:
    """`codes` encode the reference's values: a NaN input gives 0x7F, an f8e4m3 overflow NaN
    with the input's sign (0x7F or 0xFF)."""
    got = floats.f8_bits_to_f32(codes, name).astype(np.float64)
    want = reference(values, name)
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan), np.nonzero(np.isnan(got) != nan)[0][:10]
    with np.errstate(invalid="ignore"):
        wide = np.asarray(values, np.float64)
    negative = np.signbit(wide) & ~np.isnan(wide)
    np.testing.assert_array_equal(codes[nan], np.where(negative, 0xFF, 0x7F)[nan])
    bad = np.nonzero((got != want) & ~nan)[0]
    assert len(bad) == 0, [(values[i], hex(codes[i]), want[i]) for i in bad[:10]]
    zero = want == 0
    assert np.array_equal(np.signbit(got[zero]), np.signbit(want[zero]))


def f32_sweep() -> np.ndarray:
    """Every bf16 value with float32 neighbours below and above (all f8 midpoints are bf16
    values), and NaNs with other payloads and signs."""
    top = np.arange(65536, dtype=np.uint32) << 16
    low = np.array([0, 1, 0x7FFF, 0x8000, 0x8001, 0xFFFF], np.uint32)
    nans = np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFFFFFFF, 0x7FA00000], np.uint32)
    return np.concatenate([(top[:, None] | low[None, :]).reshape(-1), nans]).view(np.float32)


def f16_sweep() -> np.ndarray:
    return np.arange(65536, dtype=np.uint16).view(np.float16)


def bf16_sweep() -> np.ndarray:
    return floats.bf16_bits_to_f32(np.arange(65536, dtype=np.uint16))


def f64_sweep() -> np.ndarray:
    """float32 values nudged by less than float32 resolves: through float32 they would round
    twice (onto a midpoint, then to even); the rule rounds them once."""
    base = f32_sweep()
    base = base[np.isfinite(base)].astype(np.float64)
    return np.concatenate([base, base * (1 + 2.0**-40), base * (1 - 2.0**-40)])


SWEEPS = {"f32": f32_sweep, "f16": f16_sweep, "bf16": bf16_sweep, "f64": f64_sweep}

# torch 2.11's codes for these inputs (CPU and CUDA agree; read on the H200): the rule's anchors
SPECIAL = np.array([np.nan, -np.nan, np.inf, -np.inf, 448, 464, 464.0001, 465, 480, -465, -464,
                    57344, 61439, 61440, 65536, 1e30, -0.0, 2**-10, 2**-9, 1.5 * 2**-9, 2**-17,
                    2**-16, 0.5], np.float32)
TORCH_E4M3 = [0x7F, 0x7F, 0x7F, 0xFF, 0x7E, 0x7E, 0x7F, 0x7F, 0x7F, 0xFF, 0xFE, 0x7F, 0x7F, 0x7F,
              0x7F, 0x7F, 0x80, 0x00, 0x01, 0x02, 0x00, 0x00, 0x30]
TORCH_E5M2 = [0x7F, 0x7F, 0x7C, 0xFC, 0x5F, 0x5F, 0x5F, 0x5F, 0x60, 0xDF, 0xDF, 0x7B, 0x7B, 0x7C,
              0x7C, 0x7C, 0x80, 0x14, 0x18, 0x1A, 0x00, 0x01, 0x38]


def test_host_rule_on_special_values() -> None:
    # torch keeps a NaN's sign (-NaN gives 0xFF); cutile gives 0x7F for every NaN (the GPU's
    # conversion drops the sign, and NaN signs from arithmetic differ between CPU and GPU)
    assert floats.f32_to_f8_bits(SPECIAL, "f8e4m3").tolist() == [0x7F, *TORCH_E4M3[1:]]
    assert floats.f32_to_f8_bits(SPECIAL, "f8e5m2").tolist() == [0x7F, *TORCH_E5M2[1:]]
    assert TORCH_E4M3[1] == TORCH_E5M2[1] == 0x7F  # np.float32(-np.nan) is a positive NaN


@pytest.mark.parametrize("source", sorted(SWEEPS))
@pytest.mark.parametrize("name", ["f8e4m3", "f8e5m2"])
def test_host_rule_matches_the_reference(source: str, name: str) -> None:
    values = SWEEPS[source]()
    expect_codes(floats.f32_to_f8_bits(values, name), values, name)


def test_host_rule_matches_ml_dtypes_where_installed() -> None:
    ml_dtypes = pytest.importorskip("ml_dtypes")
    # ml_dtypes 0.7 rounds a float64 once, as cutile; older versions (the H200 image's) go
    # through float32 and round twice: just below a midpoint, 0x1.affffffffe5p-2 gives 46
    once = np.array([float.fromhex("0x1.affffffffe5p-2")]).astype(
        ml_dtypes.float8_e4m3fn).view(np.uint8)[0] == 45
    sweeps = (f32_sweep(), f64_sweep()) if once else (f32_sweep(),)
    for name, dt in (("f8e4m3", ml_dtypes.float8_e4m3fn), ("f8e5m2", ml_dtypes.float8_e5m2)):
        for values in sweeps:
            keep = ~np.isnan(values)  # ml_dtypes keeps a NaN's sign and payload
            with np.errstate(invalid="ignore", over="ignore"):
                want = values[keep].astype(dt).view(np.uint8)
            np.testing.assert_array_equal(floats.f32_to_f8_bits(values[keep], name), want)


def test_from_numpy_follows_the_rule() -> None:
    t = ct.from_numpy(SPECIAL, dtype=f8e4m3)
    assert np.isnan(t.numpy()[[0, 2, 3, 6, 7, 8, 9, 11, 15]]).all()
    e5 = ct.from_numpy(SPECIAL, dtype=f8e5m2).numpy()
    assert e5[2] == np.inf and e5[3] == -np.inf and e5[13] == np.inf and e5[12] == 57344


def test_constants_follow_the_rule() -> None:
    """An f8 constant in a kernel (ct.full) is encoded by the same rule."""
    for value, e4, e5 in zip(SPECIAL.tolist(), TORCH_E4M3, TORCH_E5M2, strict=True):
        if value != value:
            e4 = e5 = 0x7F
        assert bc_floats.to_bits(value, Scalar.F8E4M3FN) == e4, value
        assert bc_floats.to_bits(value, Scalar.F8E5M2) == e5, value


def test_codes_round_trip_through_the_interpreters_floats() -> None:
    """Every code, NaNs included, survives widening to float32 and back (bitcasts, loads and
    stores keep bytes on the GPU, so the interpreter must too); a conversion gives 0x7F."""
    for name in ("f8e4m3", "f8e5m2"):
        wide = floats.f8_bits_to_f32(CODES, name)
        np.testing.assert_array_equal(floats.f32_to_f8_bits(wide, name), CODES)
        plain = floats.untag(wide)
        nan = np.isnan(wide)
        assert (floats.f32_to_f8_bits(plain, name)[nan] == 0x7F).all()


def _launch(kernel: Any, values: np.ndarray, dtype: Any) -> list[np.ndarray]:
    n = -(-len(values) // 256) * 256
    x = np.zeros(n, values.dtype)
    x[:len(values)] = values
    outs = [ct.zeros((n,), d).partition((256,)) for d in kernel_outputs[kernel.__name__]]
    got = host(kernel(*outs, ct.from_numpy(x, dtype=dtype)).sync())
    return [np.asarray(g)[:len(values)] for g in got[:2]]


kernel_outputs: dict[str, tuple[Any, Any]] = {
    "from_f32": (u8, u8), "from_f16": (u8, u8), "from_bf16": (u8, u8),
    "from_f64": (f8e4m3, f8e5m2)}
SOURCES = {"f32": (from_f32, f32), "f16": (from_f16, f16), "bf16": (from_bf16, bf16),
           "f64": (from_f64, f64)}


def _codes(kernel: Any, values: np.ndarray, dtype: Any) -> tuple[np.ndarray, np.ndarray]:
    e4, e5 = _launch(kernel, values, dtype)
    if kernel is from_f64:  # f8 outputs: their numpy() is float32; the codes are what we check
        e4 = floats.f32_to_f8_bits(e4, "f8e4m3")
        e5 = floats.f32_to_f8_bits(e5, "f8e5m2")
    return e4.astype(np.uint8), e5.astype(np.uint8)


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_interpreter_astype_follows_the_rule(source: str) -> None:
    kernel, dtype = SOURCES[source]
    values = SWEEPS[source]()
    e4, e5 = on_interpreter(lambda: _codes(kernel, values, dtype))
    expect_codes(e4, values, "f8e4m3")
    expect_codes(e5, values, "f8e5m2")


def _widen() -> list[np.ndarray]:
    outs = [ct.zeros((256,), d).partition((256,)) for d in (f32, f16, bf16, u8, u8)]
    return [np.asarray(v) for v in host(widen(*outs, ct.from_numpy(CODES)).sync())[:5]]


def test_interpreter_widens_and_converts_codes() -> None:
    w32, w16, wb, c45, c54 = on_interpreter(_widen)
    e4 = floats.f8_bits_to_f32(CODES, "f8e4m3")
    e5 = floats.f8_bits_to_f32(CODES, "f8e5m2")
    np.testing.assert_array_equal(w32, e4)  # NaN positions equal too
    np.testing.assert_array_equal(w16.astype(np.float32), e5)
    np.testing.assert_array_equal(np.asarray(wb, np.float32), e4)
    expect_codes(c45, e4, "f8e5m2")
    expect_codes(c54, e5, "f8e4m3")  # 57344 and +-inf of f8e5m2 become NaN in f8e4m3


def _keep_bits() -> list[np.ndarray]:
    b4 = ct.zeros((256,), f8e4m3).partition((256,))
    b5 = ct.zeros((256,), u8).partition((256,))
    x5 = _f8_tensor(CODES, f8e5m2)
    out = keep_bits(b4, b5, ct.from_numpy(CODES), x5).sync()
    t4 = out[0].unpartition()
    return [_f8_codes(t4), np.asarray(host([out[1]])[0])]


def _f8_tensor(codes: np.ndarray, dtype: Any) -> Any:
    """A tensor holding exactly these f8 codes (from_numpy would round values)."""
    name = "f8e4m3" if dtype is f8e4m3 else "f8e5m2"
    return ct.from_numpy(floats.f8_bits_to_f32(codes, name), dtype=dtype)


def _f8_codes(t: Any) -> np.ndarray:
    name = "f8e4m3" if t.dtype == f8e4m3.dtype else "f8e5m2"
    return floats.f32_to_f8_bits(t.numpy(), name)


def test_bitcasts_keep_every_code() -> None:
    b4, b5 = on_interpreter(_keep_bits)
    np.testing.assert_array_equal(b4, CODES)
    np.testing.assert_array_equal(b5, CODES)


def test_lowers_and_assembles(compiler: KernelCompiler) -> None:
    texts = assembled(compiler, __file__, CASES)
    for name in ("from_f32", "from_f16", "from_bf16"):
        t = texts[name]
        assert "cmpf greater_than ordered" in t and "cmpf greater_than_or_equal ordered" in t
        assert "ori" in t and "addi" in t and "bitcast" in t and "select" in t
    assert "subi" in texts["from_f64"] and "ftof" in texts["from_f64"]  # rounded to odd first
    assert "cmpf" not in texts["keep_bits"]  # bitcasts only


# -- on the GPU: the device's conversions must follow the rule bit for bit ----------------------
@pytest.mark.gpu
@pytest.mark.parametrize("source", sorted(SOURCES))
def test_gpu_astype_follows_the_rule(on_cuda: object, source: str) -> None:
    kernel, dtype = SOURCES[source]
    values = SWEEPS[source]()
    e4, e5 = _codes(kernel, values, dtype)
    expect_codes(e4, values, "f8e4m3")
    expect_codes(e5, values, "f8e5m2")
    i4, i5 = on_interpreter(lambda: _codes(kernel, values, dtype))
    np.testing.assert_array_equal(e4, i4)
    np.testing.assert_array_equal(e5, i5)


@pytest.mark.gpu
def test_gpu_widens_and_converts_like_the_interpreter(on_cuda: object) -> None:
    for got, want in zip(_widen(), on_interpreter(_widen), strict=True):
        np.testing.assert_array_equal(np.asarray(got, np.float32), np.asarray(want, np.float32))


@pytest.mark.gpu
def test_gpu_bitcasts_keep_every_code(on_cuda: object) -> None:
    b4, b5 = _keep_bits()
    np.testing.assert_array_equal(b4, CODES)
    np.testing.assert_array_equal(b5, CODES)
