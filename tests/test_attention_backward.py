"""examples/attention_backward.py beyond its own main(): other block shapes on the interpreter
(query blocks smaller and larger than key blocks, so the causal loop bounds start and stop
mid-way), the chain of three launches captured as one graph, and on a GPU (`-m gpu`) the
gradients against torch's SDPA backward."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import cutile as ct
from cutile.runtime import context
from cutile.runtime.backends.interpreter import InterpreterBackend

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "attention_backward.py"


def _example() -> Any:
    spec = importlib.util.spec_from_file_location("cutile_attention_backward", EXAMPLE)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


ab = _example()


@pytest.fixture
def interpreter() -> Iterator[None]:
    old = context.set_backend(InterpreterBackend())
    yield
    context.set_backend(old)


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize(("bm", "bn"), [(32, 64), (64, 16)])
def test_gradients_match_numpy(interpreter: None, bm: int, bn: int, causal: bool) -> None:
    ab.check(2, 128, 32, bm, bn, causal)


def test_a_wrong_lse_is_caught(interpreter: None) -> None:
    """The check can fail: gradients from a shifted LSE (P scaled by 2) are rejected."""
    q, k, v, do = (ct.randn((1, 64, 32), ct.bf16, seed=s) for s in range(4))
    o, lse = ab.forward(q, k, v, bm=32, bn=32, causal=True)
    bad = ct.from_numpy(lse.numpy() - 1.0)
    *_, dv, _, _ = ab.backward_op(q, k, v, o, do, bad, bm=32, bn=32, causal=True).sync()
    f = [t.numpy().astype(np.float32) for t in (q, k, v, do)]
    with pytest.raises(AssertionError, match="relative error"):
        ab._close(dv.unpartition().numpy().astype(np.float32), ab.reference(*f, True)[2], "dV")


def test_the_chain_replays_as_one_graph(interpreter: None) -> None:
    q, k, v, do = (ct.randn((2, 64, 32), ct.bf16, seed=s) for s in range(4))
    o, lse = ab.forward(q, k, v, bm=32, bn=32, causal=True)
    want = [t.unpartition().numpy() for t in
            ab.backward_op(q, k, v, o, do, lse, bm=32, bn=32, causal=True).sync()[:3]]
    g = ab.backward_op(q, k, v, o, do, lse, bm=32, bn=32, causal=True).graph()
    g.replay()
    got = g.sync()
    for w, t in zip(want, got[:3], strict=True):
        np.testing.assert_array_equal(t.unpartition().numpy(), w)  # no atomics: deterministic


def _rel(torch: Any, a: Any, b: Any) -> float:
    return float((a.double() - b.double()).norm() / b.double().norm())


@pytest.mark.gpu
@pytest.mark.parametrize(("bm", "bn", "hints", "causal"),
                         [(64, 64, {"occupancy": 2}, False), (64, 64, {"occupancy": 2}, True),
                          (64, 128, {"worker_warps": 8}, True)],
                         ids=["64x64-occ2-full", "64x64-occ2-causal", "64x128-w8-causal"])
def test_gradients_match_torch_sdpa_on_gpu(bm: int, bn: int, hints: dict[str, int],
                                           causal: bool) -> None:
    """(2, 4, 1024, 128) bf16: cutile's dQ, dK, dV within 2e-2 of float32 gradients and no
    more than twice as far from them as torch's own bf16 SDPA backward (plus 2e-3); a replay
    of the captured chain gives the same bits."""
    torch = pytest.importorskip("torch")
    from cutile.runtime.backends.cuda import CudaBackend

    old = context.set_backend(CudaBackend(0))
    try:
        b, h, s, d = 2, 4, 1024, 128
        gen = torch.Generator(device="cuda").manual_seed(3)
        q, k, v, do = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16,
                                   generator=gen) for _ in range(4))
        f32 = [t.detach().float().requires_grad_() for t in (q, k, v)]
        out = torch.nn.functional.scaled_dot_product_attention(*f32, is_causal=causal)
        ref = torch.autograd.grad(out, f32, do.float())
        bf = [t.detach().requires_grad_() for t in (q, k, v)]
        out = torch.nn.functional.scaled_dot_product_attention(*bf, is_causal=causal)
        theirs = torch.autograd.grad(out, bf, do)
        torch.cuda.synchronize()  # cutile's launches may go to another stream than torch's
        flat = [ct.from_dlpack(t.view(b * h, s, d)) for t in (q, k, v, do)]
        kernels = (ab.attention_bwd_preprocess, ab.attention_bwd_dkdv.with_hints(**hints),
                   ab.attention_bwd_dq.with_hints(**hints))
        o, lse = ab.forward(*flat[:3], bm=128, bn=64, causal=causal)
        op = ab.backward_op(*flat[:3], o, flat[3], lse, bm=bm, bn=bn, causal=causal,
                            kernels=kernels)
        ours = [torch.from_dlpack(t.unpartition()).view(b, h, s, d).clone()
                for t in op.sync()[:3]]
        for name, mine, torch_bf16, want in zip("QKV", ours, theirs, ref, strict=True):
            err, peer = _rel(torch, mine, want), _rel(torch, torch_bf16, want)
            assert err < 2e-2 and err <= 2 * peer + 2e-3, (f"d{name}", err, peer)
        g = ab.backward_op(*flat[:3], o, flat[3], lse, bm=bm, bn=bn, causal=causal,
                           kernels=kernels).graph()
        g.replay()
        again = [torch.from_dlpack(t.unpartition()).view(b, h, s, d) for t in g.sync()[:3]]
        for mine, replayed in zip(ours, again, strict=True):
            assert torch.equal(mine, replayed)
    finally:
        context.set_backend(old)
