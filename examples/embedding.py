"""Embedding lookup: token ids -> rows of a table, out[t, :] = table[ids[t], :].

The vocabulary (50257, GPT-2's) is no multiple of any tile, and the lookup is data-dependent,
so the table is read with `ct.gather`: each block owns BT tokens x BD features of the output and
gathers table[ids, cols] for its tile. The index tiles broadcast: a (BT, 1) column of token ids
against a (1, BD) row of feature indices. Ids outside [0, vocab) (here -1, a padding token) and
the token tail past the last id read the padding, zero, so those rows come out zero; no index,
however large or negative, reads outside the table.
"""

import numpy as np

import cutile as ct
from cutile import Const, Mut, Tensor, bf16, i32


@ct.kernel
def embedding(out: Mut[Tensor[bf16, ("BT", "BD")]], table: Tensor[bf16, (-1, -1)],
              ids: Tensor[i32, (-1,)], BT: Const[int], BD: Const[int]) -> None:
    t, d = out.tile_index()
    tok = ids.load_tile((BT,), (t,), padding=-1).reshape((BT, 1))
    cols = (d * BD + ct.arange(BD, i32)).reshape((1, BD))
    out.store(ct.gather(table, (tok, cols)))


def reference(table: np.ndarray, ids: np.ndarray) -> np.ndarray:
    inside = (ids >= 0) & (ids < table.shape[0])
    rows = table[np.where(inside, ids, 0)]
    return np.where(inside[:, None], rows, 0).astype(table.dtype)


def main(vocab: int = 50257, dim: int = 384, tokens: int = 1000, bt: int = 32,
         bd: int = 128) -> None:
    table = ct.randn((vocab, dim), bf16, seed=0)
    ids_np = np.random.default_rng(1).integers(0, vocab, tokens).astype(np.int32)
    special = [0, vocab - 1, -1, vocab]  # first and last rows, a padding id, one past the end
    ids_np[:len(special)] = special[:tokens]
    out = ct.zeros((tokens, dim), bf16).partition((bt, bd))
    out, table, _ = embedding(out, table, ct.from_numpy(ids_np)).sync()
    got = out.unpartition().numpy()
    np.testing.assert_array_equal(got, reference(table.numpy(), ids_np))
    print(f"embedding: {tokens} tokens from a {vocab}x{dim} table on {ct.backend_name()}, ok")


if __name__ == "__main__":
    main()
