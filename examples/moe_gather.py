"""Mixture of experts: gather the tokens routed to each expert, then one GEMM per expert.

Top-1 routing on the host sorts the token ids by expert and pads each expert's list to a
multiple of BM with -1 (as vLLM's `moe_align_block_size` does), so every block of BM sorted rows
belongs to one expert: `block_expert[i]`. Each block reads its expert id with a scalar
`ct.gather`, gathers its BM token rows of x with `ct.gather(x, (rows, cols))` (a padding id reads
zeros) and multiplies them by tiles of that expert's weights w[e]. The output stays in sorted
order, one Mut slab per block, so no scatter (and no unsafe kernel) is needed; the host puts the
rows back in token order.
"""

import numpy as np

import cutile as ct
from cutile import Const, Mut, Tensor, f16, f32, i32


@ct.kernel
def moe_gemm(out: Mut[Tensor[f32, ("BM", "BN")]], x: Tensor[f16, (-1, "K")],
             w: Tensor[f16, (-1, "K", -1)], sorted_ids: Tensor[i32, (-1,)],
             block_expert: Tensor[i32, (-1,)], BM: Const[int], BN: Const[int], BK: Const[int],
             K: Const[int]) -> None:
    i, j = out.tile_index()
    e = ct.gather(block_expert, i)
    rows = sorted_ids.load_tile((BM,), (i,), padding=-1).reshape((BM, 1))
    acc = ct.zeros((BM, BN), f32)
    for k in range(ct.cdiv(K, BK)):  # a last, ragged K tile reads zeros past K (gather and load)
        cols = (k * BK + ct.arange(BK, i32)).reshape((1, BK))
        a = ct.gather(x, (rows, cols))
        b = w.load_tile((1, BK, BN), (e, k, j)).reshape((BK, BN))
        acc = ct.mma(a, b, acc)
    out.store(acc)


def route(expert: np.ndarray, experts: int, bm: int) -> tuple[np.ndarray, np.ndarray]:
    """(sorted token ids padded per expert to a multiple of bm with -1, expert of each block)."""
    ids: list[np.ndarray] = []
    owners: list[int] = []
    for e in range(experts):
        mine = np.flatnonzero(expert == e).astype(np.int32)
        blocks = -(-len(mine) // bm)
        ids.append(np.concatenate([mine, np.full(blocks * bm - len(mine), -1, np.int32)]))
        owners += [e] * blocks
    return np.concatenate(ids), np.array(owners, np.int32)


def main(tokens: int = 200, k: int = 256, n: int = 256, experts: int = 4, bm: int = 32,
         bn: int = 64, bk: int = 32) -> None:
    x = ct.randn((tokens, k), f16, seed=0)
    w = ct.randn((experts, k, n), f16, seed=1)
    logits = np.random.default_rng(2).standard_normal((tokens, experts))
    expert = logits.argmax(axis=1)
    sorted_np, owners = route(expert, experts, bm)
    out = ct.zeros((len(sorted_np), n), f32).partition((bm, bn))
    out, x, w, *_ = moe_gemm(out, x, w, ct.from_numpy(sorted_np), ct.from_numpy(owners),
                             BK=bk).sync()
    sorted_out = out.unpartition().numpy()
    got = np.zeros((tokens, n), np.float32)
    real = sorted_np >= 0
    got[sorted_np[real]] = sorted_out[real]
    xf, wf = x.numpy().astype(np.float32), w.numpy().astype(np.float32)
    want = np.einsum("tk,tkn->tn", xf, wf[expert])
    np.testing.assert_allclose(got, want, atol=5e-2, rtol=1e-2)
    assert (sorted_out[~real] == 0).all()  # padding ids gathered zero rows
    print(f"moe_gather: {tokens} tokens over {experts} experts ({len(owners)} blocks of {bm}) "
          f"on {ct.backend_name()}, ok")


if __name__ == "__main__":
    main()
