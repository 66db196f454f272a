"""`kernel.compile(*args, arch=..., **consts)`: specialization from launch arguments, no GPU."""

from __future__ import annotations

import pytest
from lower_util import example

import cutile as ct
from cutile import bf16, f32


def test_compile_with_meta_tensors() -> None:
    add = example("add").add
    z = ct.meta((4096,), f32).partition((1024,))
    c = add.compile(z, ct.meta((4096,), f32), ct.meta((4096,), f32), arch="sm_90")
    assert c.cubin[:4] == b"\x7fELF" and c.arch == "sm_90"
    assert "entry @add(" in c.tileir and "tile=(1024)" in c.tileir  # B inferred: 1024
    assert c.bytecode[:8] == b"\x7fTileIR\x00"
    assert "div_by<16>" in c.tileir


def test_compile_consts_and_orders() -> None:
    gemm = example("gemm")
    c = ct.meta((256, 256), bf16).partition((64, 64), order=ct.grouped(8), blocks=3)
    a, b = ct.meta((256, 128), bf16), ct.meta((128, 256), bf16)
    out = gemm.gemm_persistent.compile(c, a, b, arch="sm_80", BK=32)
    assert out.arch == "sm_80" and "for" in out.tileir and "get_num_tile_blocks" in out.tileir


def test_compile_checks_arguments_like_a_launch() -> None:
    add = example("add").add
    with pytest.raises(ct.LaunchError):
        add.compile(ct.meta((4096,), f32).partition((1024,)), ct.meta((4096,), bf16),
                    ct.meta((4096,), f32))
    with pytest.raises(ct.OwnershipError):  # a Mut parameter needs a partition
        add.compile(ct.meta((4096,), f32), ct.meta((4096,), f32), ct.meta((4096,), f32))


def test_compile_real_tensors_matches_meta(monkeypatch: pytest.MonkeyPatch) -> None:
    """Allocator-aligned real tensors give the same facts, so the same cached kernel."""
    add = example("add").add
    z = ct.zeros((4096,), f32).partition((1024,))
    real = add.compile(z, ct.ones((4096,), f32), ct.ones((4096,), f32))
    meta = add.compile(ct.meta((4096,), f32).partition((1024,)), ct.meta((4096,), f32),
                       ct.meta((4096,), f32))
    assert real.key.digest() == meta.key.digest()
    _ = z.unpartition()  # compiling moved nothing: the partition is still usable


def test_with_hints_overrides_the_decorator_per_configuration() -> None:
    add = example("add").add
    args = (ct.meta((4096,), f32).partition((1024,)), ct.meta((4096,), f32),
            ct.meta((4096,), f32))
    plain = add.compile(*args)
    tuned = add.with_hints(occupancy=4, num_ctas=2, opt_level=2)
    hinted = tuned.compile(*args)
    assert "occupancy" not in plain.tileir and plain.key.opt_level == 3
    assert "occupancy = 4" in hinted.tileir and "num_cta_in_cga = 2" in hinted.tileir
    assert hinted.key.opt_level == 2 and hinted.key.digest() != plain.key.digest()
    back = tuned.with_hints(occupancy=None, num_ctas=None, opt_level=None).compile(*args)
    assert back.key.digest() == plain.key.digest()


@pytest.mark.parametrize(("hints", "fragment"), [
    ({"occupancy": 0}, "'occupancy' must be an int from 1 to 32"),
    ({"num_ctas": 3}, "'num_ctas' must be 1, 2, 4, 8 or 16"),
    ({"unsafe": True}, "'unsafe' is not a hint"),
    ({"opt_level": 1.5}, "'opt_level' must be an int from 0 to 3"),
    ({"worker_warps": 16}, "'worker_warps' must be 4 or 8"),
    ({"worker_warps": True}, "'worker_warps' must be 4 or 8"),
])
def test_with_hints_rejects_bad_hints_at_the_call(hints: dict[str, object], fragment: str
                                                  ) -> None:
    add = example("add").add
    # CT114 is a kernel option error wherever it is found (the registry's class).
    with pytest.raises(ct.KernelError) as err:
        add.with_hints(**hints)  # type: ignore[arg-type]
    d = err.value.diagnostics[0]
    assert d.code == "CT114" and fragment in d.message
    assert d.span.path == __file__


def test_worker_warps_reach_the_cubin() -> None:
    """`num_worker_warps_per_cta` is the entry hint; 8 math warps give the CTA more threads."""
    softmax = example("softmax").softmax
    args = (ct.meta((1024, 4096), bf16).partition((4, 4096)), ct.meta((1024, 4096), bf16))
    plain = softmax.compile(*args, BM=4, N=4096)
    eight = softmax.with_hints(worker_warps=8).compile(*args, BM=4, N=4096)
    assert "num_worker_warps_per_cta" not in plain.tileir
    assert "num_worker_warps_per_cta = 8" in eight.tileir
    assert eight.key.digest() != plain.key.digest()
    assert eight.resources.threads > plain.resources.threads
    assert eight.resources.threads >= 8 * 32
