"""ct.randint / ct.rand: Philox 4x32-10, the same bits on the interpreter, the GPU and Triton."""

from __future__ import annotations

import numpy as np
import pytest
from opcheck import assemble, host, on_interpreter, same

import cutile as ct
from cutile import Mut, Tensor, f32, i32, i64, u32
from cutile.compiler.ops.philox import SCALE, philox4x32, uniform
from cutile.compiler.toolchain import KernelCompiler


@ct.kernel
def draws(w: Mut[Tensor[u32, (256,)]], r: Mut[Tensor[f32, (256,)]], seed: i32) -> None:
    offs = ct.arange(256) + ct.block_id(0) * 256
    w.store(ct.randint(seed, offs))
    r.store(ct.rand(seed, offs))


@ct.kernel
def draws_2d(r: Mut[Tensor[f32, (16, 16)]], seed: i64, o: Tensor[u32, (-1, -1)]) -> None:
    offs = ct.load_tile_like(o, r)
    r.store(ct.rand(seed, offs) + ct.rand(7, offs).astype(f32) * 0.0)


# 64-bit offsets (a base offset past 2**32, as torch's (seed, offset) pairs): the high word is
# the counter's second word, as Triton's randint4x has it
@ct.kernel
def draws_wide(w: Mut[Tensor[u32, (256,)]], r: Mut[Tensor[f32, (256,)]], seed: i64,
               base: i64) -> None:
    offs = (ct.arange(256) + ct.block_id(0) * 256).astype(i64) + base
    w.store(ct.randint(seed, offs))
    r.store(ct.rand(seed, offs))


CASES = [("draws", {}), ("draws_2d", {}), ("draws_wide", {})]

# Known answers of Philox 4x32-10 (Random123's kat_vectors): (counter, key) -> output
KAT = [
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 4, (0xFFFFFFFF, 0xFFFFFFFF),
     (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
]


def _draws(seed: int) -> list[np.ndarray]:
    outs = [ct.zeros((1024,), u32).partition((256,)), ct.zeros((1024,), f32).partition((256,))]
    return host(draws(*outs, np.int32(seed)).sync())


def _draws_2d(seed: int) -> list[np.ndarray]:
    o = (np.arange(32 * 32, dtype=np.uint64) * 2654435761 % 2**32).astype(np.uint32)
    return host(draws_2d(ct.zeros((32, 32), f32).partition((16, 16)), np.int64(seed),
                         ct.from_numpy(o.reshape(32, 32))).sync())


@pytest.mark.parametrize(("counter", "key", "want"), KAT)
def test_philox_known_answers(counter: tuple[int, ...], key: tuple[int, int],
                              want: tuple[int, ...]) -> None:
    got = philox4x32([np.uint32(c) for c in counter], key)
    assert [int(w) for w in got] == list(want)


def test_interpreter_draws_philox() -> None:
    w, r, _ = on_interpreter(lambda: _draws(0))
    assert int(w[0]) == KAT[0][2][0]  # seed 0, offset 0 is the all-zero known answer
    offs = np.arange(1024, dtype=np.uint32)
    zero = np.zeros_like(offs)
    np.testing.assert_array_equal(w, philox4x32([offs, zero, zero, zero], (0, 0))[0])
    np.testing.assert_array_equal(r, uniform(w))
    assert r.min() >= 0.0 and r.max() < 1.0 and abs(r.mean() - 0.5) < 0.05
    assert np.float32(2**31 - 1) * np.float32(SCALE) < 1.0


def test_negative_and_wide_seeds_use_both_key_words() -> None:
    r, _, o = on_interpreter(lambda: _draws_2d(-5))
    seed = (-5) & (2**64 - 1)
    zero = np.zeros_like(o)
    word = philox4x32([o, zero, zero, zero], (seed & 0xFFFFFFFF, seed >> 32))[0]
    np.testing.assert_array_equal(r, uniform(word))
    r2 = on_interpreter(lambda: _draws_2d(2**40 + 3))[0]
    assert not np.array_equal(r, r2)


def _draws_wide(seed: int, base: int) -> list[np.ndarray]:
    outs = [ct.zeros((512,), u32).partition((256,)), ct.zeros((512,), f32).partition((256,))]
    return host(draws_wide(*outs, np.int64(seed), np.int64(base)).sync())


@pytest.mark.parametrize("base", [0, 2**32 - 100, 3 * 2**32 + 5, -(2**40) - 7])
def test_wide_offsets_put_their_high_word_in_the_second_counter(base: int) -> None:
    w, r = on_interpreter(lambda: _draws_wide(9, base))[:2]
    wide = (np.arange(512, dtype=np.int64) + base).astype(np.uint64)
    lo, hi = (wide & np.uint64(0xFFFFFFFF)).astype(np.uint32), (wide >> np.uint64(32)).astype(
        np.uint32)
    zero = np.zeros_like(lo)
    word = philox4x32([lo, hi, zero, zero], (9, 0))[0]
    np.testing.assert_array_equal(w, word)
    np.testing.assert_array_equal(r, uniform(word))
    if base == 0:  # below 2**32 the draws are the 32-bit offsets' own
        np.testing.assert_array_equal(w, philox4x32([lo, zero, zero, zero], (9, 0))[0])


def test_lowers_and_assembles(compiler: KernelCompiler) -> None:
    for text in assemble(compiler, __file__, CASES):
        assert "mulhii" in text and "xori" in text


@pytest.mark.gpu
def test_gpu_matches_interpreter_bit_for_bit(on_cuda: object) -> None:
    for seed in (0, 1234, -7):
        same(_draws(seed), on_interpreter(lambda seed=seed: _draws(seed)))
    same(_draws_2d(2**40 + 3), on_interpreter(lambda: _draws_2d(2**40 + 3)))
    same(_draws_wide(5, 3 * 2**32 + 5), on_interpreter(lambda: _draws_wide(5, 3 * 2**32 + 5)))


@pytest.mark.gpu
def test_gpu_matches_triton(on_cuda: object) -> None:
    torch = pytest.importorskip("torch")
    triton = pytest.importorskip("triton")
    tl = pytest.importorskip("triton.language")

    @triton.jit
    def ref(w_ptr, r_ptr, seed):  # type: ignore[no-untyped-def]
        offs = tl.arange(0, 1024)
        tl.store(w_ptr + offs, tl.randint(seed, offs))
        tl.store(r_ptr + offs, tl.rand(seed, offs))

    w = torch.empty(1024, dtype=torch.int32, device="cuda")
    r = torch.empty(1024, dtype=torch.float32, device="cuda")
    ref[(1,)](w, r, 1234)
    ours_w, ours_r, _ = _draws(1234)
    np.testing.assert_array_equal(w.cpu().numpy().view(np.uint32), ours_w)
    np.testing.assert_array_equal(r.cpu().numpy(), ours_r)

    @triton.jit
    def wide(w_ptr, r_ptr, seed, base):  # type: ignore[no-untyped-def]
        offs = tl.arange(0, 512).to(tl.int64) + base
        tl.store(w_ptr + tl.arange(0, 512), tl.randint(seed, offs))
        tl.store(r_ptr + tl.arange(0, 512), tl.rand(seed, offs))

    w, r = w.new_empty(512), r.new_empty(512)
    wide[(1,)](w, r, 5, 3 * 2**32 + 5)
    ours_w, ours_r = _draws_wide(5, 3 * 2**32 + 5)[:2]
    np.testing.assert_array_equal(w.cpu().numpy().view(np.uint32), ours_w)
    np.testing.assert_array_equal(r.cpu().numpy(), ours_r)
