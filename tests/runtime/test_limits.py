"""Bad host input and resource limits end in coded errors (issue 15), never a TypeError,
MemoryError, OverflowError or ValueError from NumPy, and never a hang: partition shapes,
constructor shapes and fill values, allocations beyond the backend's memory, interpreted loops
with a step below 1 or too many iterations, huge tiles, and narrow floats through from_numpy."""

import os
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import cutile as ct
from cutile import Const, Mut, Tensor, bf16, f8e4m3, f8e5m2, f32, i32
from cutile.runtime import floats, limits

HUGE = (2**40,)  # 4 TiB of f32: more than any test machine has


def _code(fn: Callable[[], Any]) -> str:
    with pytest.raises(ct.CutileError) as err:
        fn()
    return err.value.diagnostics[0].code


@pytest.mark.parametrize("shape", [None, 1.5, "abc", {1: 2}, object()])
def test_partition_of_a_non_shape_is_ct408(shape: Any) -> None:
    t = ct.zeros((1024,), f32)
    with pytest.raises(ct.LaunchError, match="CT408 the tile shape must be an int or a tuple of "
                       "ints, not"):
        t.partition(shape)
    assert t.state.value == "live"  # a refused partition moves nothing


@pytest.mark.parametrize("shape,code", [((1.5,), "CT408"), (-1, "CT408"), ((0,), "CT408"),
                                        ((128, 2), "CT408"), ((None,), "CT408"),
                                        ((2, 2, 2, 2, 2, 2), "CT403")])
def test_partition_of_bad_dimensions_is_coded(shape: Any, code: str) -> None:
    assert _code(lambda: ct.zeros((1024,), f32).partition(shape)) == code


@pytest.mark.parametrize("make", [
    lambda s: ct.zeros(s, f32), lambda s: ct.ones(s, f32), lambda s: ct.full(s, 2.0, f32),
    lambda s: ct.rand(s, f32), lambda s: ct.randn(s, f32)])
def test_constructors_beyond_memory_name_size_and_limit(make: Callable[[Any], Any]) -> None:
    with pytest.raises(ct.LaunchError) as err:
        make(HUGE)
    text = str(err.value)
    assert "CT412" in text and "of shape (1099511627776,) (f32) needs 4.0 TiB" in text
    assert "more than the host's memory (" in text


def test_arange_beyond_memory_and_bad_counts() -> None:
    with pytest.raises(ct.LaunchError, match=r"needs 4\.0 TiB"):
        ct.arange(2**40, f32)
    assert _code(lambda: ct.arange(1.5, f32)) == "CT406"  # type: ignore[arg-type]
    assert _code(lambda: ct.arange(-1, f32)) == "CT406"
    assert _code(lambda: ct.arange(10**30, f32)) == "CT412"


@pytest.mark.parametrize("shape", [(2**62, 2**62), (2**63,), 10**30])
def test_shapes_beyond_63_bits_are_ct410_even_for_meta(shape: Any) -> None:
    for make in (ct.zeros, ct.meta):
        with pytest.raises(ct.LaunchError, match="more than the limit of 2\\*\\*63 - 1"):
            make(shape, f32)


@pytest.mark.parametrize("shape", [None, 1.5, (2, None), (2, -1), "ab"])
def test_constructor_shapes_that_are_not_shapes(shape: Any) -> None:
    with pytest.raises(ct.LaunchError, match=r"CT406 ct\.zeros shape: expected a tuple of "
                       "non-negative ints"):
        ct.zeros(shape, f32)


def test_a_memory_error_from_the_allocator_is_ct410(monkeypatch: pytest.MonkeyPatch) -> None:
    from cutile.runtime.backends.host import HostMemoryBackend

    def refuse(self: Any, nbytes: int, stream: int) -> Any:
        raise MemoryError
    monkeypatch.setattr(HostMemoryBackend, "allocate", refuse)
    with pytest.raises(ct.LaunchError, match=r"CT412 ct\.ones of shape \(8,\) \(f32\) needs "
                       "32 B, more than the memory free now"):
        ct.ones((8,), f32)


@pytest.mark.parametrize("value,dtype", [(10**30, i32), (2**31, i32), (-(2**31) - 1, i32),
                                          (float("nan"), i32), (float("inf"), ct.u8),
                                          (256, ct.u8), (-1, ct.u8), ("1", f32), (None, f32),
                                          (10**400, f32)])
def test_fill_values_that_do_not_fit_are_ct406(value: Any, dtype: Any) -> None:
    with pytest.raises(ct.LaunchError, match="CT406 fill value: expected a number that fits"):
        ct.full((4,), value, dtype)


def test_fill_values_that_fit() -> None:
    assert ct.full((2,), 2**31 - 1, i32).numpy().tolist() == [2**31 - 1] * 2
    assert ct.full((2,), 2.9, i32).numpy().tolist() == [2, 2]  # truncates, as torch.full
    assert ct.full((1,), np.int64(7), ct.u8).numpy().tolist() == [7]
    with np.errstate(all="raise"):  # past f16's range is inf, without a NumPy warning
        assert np.isinf(ct.full((1,), 1e300, ct.f16).numpy()).all()


def test_from_numpy_into_an_integer_dtype_must_fit() -> None:
    with pytest.raises(ct.LaunchError, match=r"values from 1000 to 1000 do not fit in i8 \(-128"):
        ct.from_numpy(np.array([1000]), dtype=ct.i8)
    with pytest.raises(ct.LaunchError, match="NaN or infinite values do not fit in i32"):
        ct.from_numpy(np.array([1.0, np.nan]), dtype=i32)
    assert ct.from_numpy(np.array([-128, 127]), dtype=ct.i8).numpy().tolist() == [-128, 127]


@pytest.mark.parametrize("dtype", [f32, ct.f16, i32, bf16, ct.tf32, f8e4m3, f8e5m2, ct.bool_])
def test_zero_d_arrays_stay_zero_d(dtype: Any) -> None:
    t = ct.from_numpy(np.array(2.0), dtype=dtype)
    assert t.shape == ()
    out = t.numpy()
    assert isinstance(out, np.ndarray) and out.shape == ()
    assert ct.full((), 3, dtype).numpy().shape == ()


# Just above the midpoint between two neighbours of the narrow format, by less than float32 can
# resolve: through float32 the value lands on the midpoint and rounds to even (down); rounded
# once it goes up.
@pytest.mark.parametrize("dtype,lo,hi", [(bf16, 1.0, 1.0078125), (f8e4m3, 1.0, 1.125),
                                         (f8e5m2, 1.0, 1.25), (ct.tf32, 1.0, 1 + 2**-10)])
def test_float64_rounds_once_into_narrow_floats(dtype: Any, lo: float, hi: float) -> None:
    mid = (lo + hi) / 2
    values = np.array([mid + 2**-40, mid, mid - 2**-40, -(mid + 2**-40)], np.float64)
    got = ct.from_numpy(values, dtype=dtype).numpy().tolist()
    assert got == [hi, lo, lo, -hi]


def test_round_to_odd_matches_exact_rounding_on_random_float64() -> None:
    rng = np.random.default_rng(7)
    wide = rng.standard_normal(20000) * 2.0 ** rng.integers(-30, 30, 20000)
    got = floats.bf16_bits_to_f32(floats.f32_to_bf16_bits(wide)).astype(np.float64)
    # exact reference: the two bf16 neighbours of each value, the nearer (ties to even code)
    down = floats.bf16_bits_to_f32(floats.f32_to_bf16_bits(
        np.nextafter(wide.astype(np.float32), np.float32(0)))).astype(np.float64)
    assert np.all(np.abs(got - wide) <= np.abs(down - wide))


@ct.kernel
def counted(z: Mut[Tensor[f32, ("B",)]], n: i32, step: i32, B: Const[int]) -> None:
    acc = ct.zeros((B,), f32)
    for _ in range(0, n, step):
        acc = acc + 1.0
    z.store(acc)


@ct.kernel
def fill_tile(z: Mut[Tensor[f32, ("B",)]], B: Const[int]) -> None:
    z.store(ct.full((B,), 1.0, f32))


@pytest.fixture
def limit() -> Iterator[Callable[[str | None], None]]:
    old = os.environ.get("CUTILE_INTERPRETER_MAX_ITERATIONS")

    def set_limit(value: str | None) -> None:
        if value is None:
            os.environ.pop("CUTILE_INTERPRETER_MAX_ITERATIONS", None)
        else:
            os.environ["CUTILE_INTERPRETER_MAX_ITERATIONS"] = value
    yield set_limit
    set_limit(old)


@pytest.mark.parametrize("n,step", [(10, 0), (0, 0), (10, -1)])
def test_loop_step_below_one_is_ct411(n: int, step: int) -> None:
    z = ct.zeros((4,), f32).partition((4,))
    with pytest.raises(ct.LaunchError, match=f"CT411 range\\(\\) step is {step} in counted"):
        counted(z, n, step).sync()


def test_huge_trip_count_fails_at_once(limit: Callable[[str | None], None]) -> None:
    limit(None)
    z = ct.zeros((4,), f32).partition((4,))
    with pytest.raises(ct.LaunchError) as err:
        counted(z, 2**31 - 1, 1).sync()
    d = err.value.diagnostics[0]
    assert d.code == "CT412" and "more than 16777216 steps (blocks plus loop" in d.message
    assert d.span.line > 0 and d.span.path.endswith("test_limits.py")  # the loop's line


def test_the_step_limit_counts_blocks_and_iterations(limit: Callable[[str | None], None]) -> None:
    limit("100")
    ok = ct.zeros((20,), f32).partition((4,))  # 5 blocks + 5 x 19 iterations: the limit
    ok = counted(ok, 19, 1).sync()[0]
    assert ok.numpy().tolist() == [19.0] * 20
    over = ct.zeros((20,), f32).partition((4,))  # one iteration more
    with pytest.raises(ct.LaunchError, match="more than 100 steps"):
        counted(over, 20, 1).sync()
    grid = ct.zeros((404,), f32).partition((4,))  # 101 blocks: fails before any runs
    with pytest.raises(ct.LaunchError, match="more than 100 steps"):
        counted(grid, 0, 1).sync()
    limit("many")
    with pytest.raises(ct.CutileError, match=r"CT901 CUTILE_INTERPRETER_MAX_ITERATIONS must"):
        counted(ct.zeros((4,), f32).partition((4,)), 1, 1).sync()


@pytest.mark.parametrize("tile", [2**25, 2**40, 2**62, 2**70])
def test_a_tile_beyond_tile_ir_is_ct218(tile: int) -> None:
    """A Const tile shape beyond the 2**24 elements tileiras takes: CT218 at specialization,
    on the interpreter as on the GPU (the bytecode never sees it)."""
    z = ct.zeros((16,), f32).partition((tile,))
    with pytest.raises(ct.KernelError, match=f"CT218 a tile of shape \\({tile},\\) has {tile} "
                       "elements, more than the 16777216"):
        fill_tile(z).sync()


def test_memory_limit_of_the_host_backend() -> None:
    total = limits.host_memory()
    assert total is None or total > 2**20
    assert limits.format_bytes(512) == "512 B" and limits.format_bytes(3 * 2**30) == "3.0 GiB"


def test_a_float_argument_beyond_its_format_is_ct406() -> None:
    """A finite number a float parameter cannot hold (it would round to inf) is refused at the
    call, as an int outside an int parameter's range is; inf and nan pass as they are."""
    import rt_kernels as k

    x = ct.ones((8,), f32)
    for value in (10**400, 1e300, -(2**128)):
        with pytest.raises(ct.LaunchError, match=r"CT406 argument 's' of 'scale': expected a f32 "
                           r"number, got .*, outside the range of f32"):
            k.scale(ct.zeros((8,), f32).partition((4,)), x, value)
    z2, _, _ = k.scale(ct.zeros((8,), f32).partition((4,)), x, float("inf")).sync()
    assert np.isinf(z2.numpy()).all()
    top = float(np.finfo(np.float32).max)  # rounds to the largest f32, not to inf
    z3, _, _ = k.scale(ct.zeros((8,), f32).partition((4,)), x, top * (1 + 2**-26)).sync()
    assert z3.numpy().tolist() == [top] * 8


@ct.kernel
def narrow(z: Mut[Tensor[bf16, ("B",)]], x: Tensor[ct.f64, (-1,)], B: Const[int]) -> None:
    z.store(ct.load_tile_like(x, z).astype(bf16))


def test_interpreted_casts_from_f64_round_once() -> None:
    mid = (1.0 + 1.0078125) / 2
    x = ct.from_numpy(np.array([mid + 2**-40, mid, -(mid + 2**-40), 3.0]))
    z, _ = narrow(ct.zeros((4,), bf16).partition((4,)), x).sync()
    assert z.numpy().tolist() == [1.0078125, 1.0, -1.0078125, 3.0]


@pytest.mark.parametrize("seed", ["s", -1, 1.5, True])
def test_bad_seeds_are_ct406(seed: Any) -> None:
    for make in (ct.rand, ct.randn):
        with pytest.raises(ct.LaunchError, match="seed: expected None or a non-negative int"):
            make((4,), f32, seed=seed)
    assert ct.rand((4,), f32, seed=np.int64(3)).numpy().tolist() == ct.rand(
        (4,), f32, seed=3).numpy().tolist()


@pytest.mark.parametrize("values", [np.array(["a"]), np.array([b"x"]), np.array([None]),
                                    np.array([10**30]), {1: 2}, "abc"])
def test_from_numpy_of_non_numbers_is_ct406_with_a_dtype_too(values: Any) -> None:
    for dtype in (None, f32, i32, bf16, f8e4m3):
        with pytest.raises(ct.LaunchError, match="from_numpy: expected an array of bool, int"):
            ct.from_numpy(values, dtype=dtype)


def test_a_fill_makes_no_temporary_as_large_as_the_tensor() -> None:
    import tracemalloc

    n = 1 << 24  # 64 MiB of f32
    tracemalloc.start()
    try:
        t = ct.full((n,), 2.0, f32)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1.25 * 4 * n  # the buffer itself, not a second copy of it
    assert t.numpy()[[0, -1]].tolist() == [2.0, 2.0]


def test_large_host_allocations_beyond_free_memory_are_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Linux overcommits: filling such a buffer would get the process killed, not a MemoryError
    monkeypatch.setattr(limits, "available_memory", lambda: 512 << 20)
    for make in (lambda: ct.zeros((1 << 28,), f32), lambda: ct.randn((1 << 27,), f32)):
        with pytest.raises(ct.LaunchError, match=r"needs .*, more than the memory free now"):
            make()
    assert ct.zeros((1 << 20,), f32).shape == (1 << 20,)  # small ones are not checked
