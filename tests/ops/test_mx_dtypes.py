"""The MX dtypes f4e2m1 and f8e8m0: host conversions and packing, from_numpy/numpy, loads,
stores and astype on the interpreter, the lowering (compiled by tileiras for sm_100), CT507 for
sm_90, CT211 for arithmetic on them, and the MXFP4 example against NumPy."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from lower_util import module, spec_for
from opcheck import host, on_interpreter

import cutile as ct
from cutile import Mut, Tensor, bf16, f4e2m1, f8e8m0, f32
from cutile.compiler import check_source
from cutile.compiler.compile import compile_kernel
from cutile.compiler.toolchain import KernelCompiler
from cutile.reader.source import parse_module
from cutile.runtime import floats

ROOT = Path(__file__).resolve().parents[2]


@ct.kernel
def mx_convert(a: Mut[Tensor[f32, (64,)]], b: Mut[Tensor[f8e8m0, (64,)]],
               c: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)],
               s: Tensor[f8e8m0, (-1,)]) -> None:
    t = ct.load_tile_like(x, a)
    a.store(t.astype(f4e2m1).astype(f32))  # an f4e2m1 tile inside the kernel only
    b.store(t.astype(f8e8m0))
    c.store(ct.load_tile_like(s, c).astype(f32) + ct.full((64,), 3.0, f8e8m0).astype(f32))


@ct.kernel
def mx_f4_tensor(z: Mut[Tensor[f4e2m1, (64,)]], x: Tensor[bf16, (-1,)]) -> None:
    z.store(ct.load_tile_like(x, z).astype(f4e2m1))


CASES = [("mx_convert", {})]  # lowered and assembled for sm_100 below (sm_90 refuses: CT507)


def _x() -> np.ndarray:
    x = np.array([0.0, -0.0, 0.25, 0.75, 1.25, 2.5, 5.0, -5.0, 7.0, -100.0, 1e-30, 3.0,
                  np.inf, -np.inf, np.nan, 0.5], dtype=np.float32)
    rest = np.random.default_rng(3).standard_normal(128 - len(x)).astype(np.float32) * 4
    return np.concatenate([x, rest])


def _scales() -> np.ndarray:
    return np.array([0, 1, 126, 127, 128, 254, 255] * 18 + [127, 127], dtype=np.uint8)


def _convert() -> list[np.ndarray]:
    outs = [ct.zeros((128,), f32).partition((64,)), ct.zeros((128,), f8e8m0).partition((64,)),
            ct.zeros((128,), f32).partition((64,))]
    s = ct.from_numpy(floats.f8e8m0_bits_to_f32(_scales()), dtype=f8e8m0)
    return host(mx_convert(*outs, ct.from_numpy(_x()), s).sync())[:3]


def test_f4e2m1_conversion() -> None:
    got = floats.f4e2m1_bits_to_f32(floats.f32_to_f4e2m1_bits(_x()[:16]))
    want = [0, -0.0, 0, 1, 1, 2, 4, -4, 6, -6, 0, 3, 6, -6, 6, 0.5]  # ties to even, saturating
    np.testing.assert_array_equal(got, np.array(want, np.float32))
    assert np.signbit(got[1]) and not np.signbit(got[0])
    codes = np.arange(16, dtype=np.uint8)
    assert (floats.f32_to_f4e2m1_bits(floats.f4e2m1_bits_to_f32(codes)) == codes).all()


def test_f4e2m1_packing_order_and_shape() -> None:
    codes = np.arange(12, dtype=np.uint8).reshape(2, 6)
    packed = floats.pack_f4e2m1(codes)
    assert packed.shape == (2, 3)
    assert packed[0, 0] == 0x10 and packed[0, 1] == 0x32 and packed[1, 2] == 0xBA  # low first
    np.testing.assert_array_equal(floats.unpack_f4e2m1(packed), codes)
    with pytest.raises(ValueError, match="even last dimension"):
        floats.pack_f4e2m1(np.zeros((2, 3), np.uint8))


def test_f8e8m0_conversion() -> None:
    x = np.array([1.0, 1.5, 3.99, 4.0, 0.3, 2.0**127 * 1.9, np.inf, 0.0, -2.0, 1e-45, np.nan])
    got = floats.f32_to_f8e8m0_bits(x)
    np.testing.assert_array_equal(got, [127, 127, 128, 129, 125, 254, 254, 0, 0, 0, 255])
    back = floats.f8e8m0_bits_to_f32(np.array([0, 127, 130, 254, 255], np.uint8))
    assert back[0] == np.float32(2.0**-127) and back[1] == 1 and back[2] == 8
    assert back[3] == np.float32(2.0**127) and np.isnan(back[4])


def test_host_round_trip() -> None:
    t = ct.from_numpy(np.array([[0.3, -2.6], [7.0, 1.0]], np.float32), dtype=f4e2m1)
    assert t.dtype.name == "f4e2m1"
    np.testing.assert_array_equal(t.numpy(), [[0.5, -3.0], [6.0, 1.0]])
    s = ct.from_numpy(np.array([3.0, 0.125, np.nan]), dtype=f8e8m0)
    np.testing.assert_array_equal(s.numpy(), [2.0, 0.125, np.nan])


def test_interpreter_matches_numpy() -> None:
    a, b, c = on_interpreter(_convert)
    x = _x()
    np.testing.assert_array_equal(a, floats.f4e2m1_bits_to_f32(floats.f32_to_f4e2m1_bits(x)))
    np.testing.assert_array_equal(b, floats.f8e8m0_bits_to_f32(floats.f32_to_f8e8m0_bits(x)))
    np.testing.assert_array_equal(c, floats.f8e8m0_bits_to_f32(_scales()) + 2.0)  # 3 -> 2


def test_arithmetic_is_refused() -> None:
    src = (ROOT / "tests/ops/test_mx_dtypes.py").read_text().split("@ct.kernel")[0] + '''
@ct.kernel
def bad(z: Mut[Tensor[f32, (64,)]], x: Tensor[f4e2m1, (-1,)], s: Tensor[f8e8m0, (-1,)]) -> None:
    t = ct.load_tile_like(x, z)
    u = t + t
    v = ct.max(ct.load_tile_like(s, z), 0)
    z.store(t.astype(f32))
'''
    diags = check_source(src, "bad.py")
    lines = src.splitlines()
    want = [("CT211", lines.index("    u = t + t") + 1),
            ("CT211", lines.index("    v = ct.max(ct.load_tile_like(s, z), 0)") + 1)]
    assert [(d.code, d.span.line) for d in diags] == want, diags
    assert "storage format" in diags[0].message and "f4e2m1" in diags[0].message


def test_lowers_for_sm100_and_refuses_sm90(compiler: KernelCompiler) -> None:
    info = module(__file__)
    c = compile_kernel(info, "mx_convert", spec_for(info, "mx_convert", {}, arch="sm_100"),
                       compiler=compiler)
    assert c.cubin[:4] == b"\x7fELF"
    assert "f4E2M1FN" in c.tileir and "f8E8M0FNU" in c.tileir
    assert "rounding<zero>" in c.tileir.replace(" ", "")  # tileiras's only f8E8M0 rounding
    # sm_90: tileiras says "Incompatibility with architecture 'sm_90': unsupported type"
    for name, arch, says in (("mx_convert", "sm_90", "needs sm_100"),
                             ("mx_f4_tensor", "sm_100", "interpreter only")):
        with pytest.raises(ct.CompileError) as err:
            compile_kernel(info, name, spec_for(info, name, {}, arch=arch), compiler=compiler)
        d = err.value.diagnostics[0]
        assert d.code == "CT507" and says in d.message, d


def test_mxfp4_example_checks_and_matches_numpy() -> None:
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import mxfp4
    finally:
        sys.path.pop(0)
    path = ROOT / "examples" / "mxfp4.py"
    assert parse_module(path.read_text(), str(path)) is not None
    on_interpreter(lambda: mxfp4.main(rows=32, cols=128, br=8))


@pytest.mark.gpu
def test_gpu_refuses_or_matches_interpreter(on_cuda: object) -> None:
    """The H200 (sm_90) refuses the MX dtypes with CT507 before tileiras runs; a GPU of sm_100
    or newer must agree with the interpreter."""
    try:
        got = _convert()
    except ct.CompileError as err:
        d = err.diagnostics[0]
        assert d.code == "CT507" and "sm_100" in d.message, d
        return
    want = on_interpreter(_convert)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)


def test_dlpack_exports_f8e8m0_and_refuses_f4e2m1() -> None:
    s = ct.from_numpy(np.array([0.5, 4.0]), dtype=f8e8m0)
    back = ct.from_dlpack(s)  # float8_e8m0fnu (code 14, 8 bits), byte for byte
    assert back.dtype.name == "f8e8m0"
    np.testing.assert_array_equal(back.numpy(), [0.5, 4.0])
    t = ct.from_numpy(np.array([1.0, 2.0]), dtype=f4e2m1)
    with pytest.raises(ct.LaunchError) as err:
        t.__dlpack__()
    assert "pack_f4e2m1" in err.value.diagnostics[0].message
