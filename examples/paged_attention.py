"""Decode attention over a paged KV cache (vLLM-style), with grouped-query attention.

The cache is a pool of pages, k_cache/v_cache: (num_pages, PAGE, KV_HEADS, D); sequence b owns
the pages block_table[b, :] in order and has seq_lens[b] tokens. Each block takes one sequence
and one KV head, with the G = Q_HEADS / KV_HEADS query heads that share it, and streams over the
sequence's pages with an online softmax (running max and sum in f32). Two data-dependent reads
do the paging, both safe: `ct.gather(block_table, (b, j))` reads one page id, and
`k_cache.load_at(...)` reads that page's (PAGE, D) slice at element offsets. Token positions
past seq_lens[b] in the last page are masked out of the softmax; a page id outside the pool
would read zeros, never another allocation's memory.
"""

import math

import numpy as np

import cutile as ct
from cutile import Const, Mut, Tensor, bf16, f32, i32

NEG_INF = -1.0e30


@ct.kernel
def paged_decode(out: Mut[Tensor[bf16, (1, "G", "D")]], q: Tensor[bf16, (-1, -1, "D")],
                 k_cache: Tensor[bf16, (-1, "PAGE", -1, "D")],
                 v_cache: Tensor[bf16, (-1, "PAGE", -1, "D")], block_table: Tensor[i32, (-1, -1)],
                 seq_lens: Tensor[i32, (-1,)], scale: f32, G: Const[int], D: Const[int],
                 PAGE: Const[int]) -> None:
    b, h, _ = out.tile_index()  # sequence b, KV head h (query heads h*G .. h*G + G - 1)
    qt = ct.load_tile_like(q, out).reshape((G, 1, D)).astype(f32) * scale
    n = ct.gather(seq_lens, b)
    m_i = ct.full((G, 1), NEG_INF, f32)
    l_i = ct.zeros((G, 1), f32)
    acc = ct.zeros((G, D), f32)
    for j in range((n + PAGE - 1) // PAGE):
        page = ct.gather(block_table, (b, j))
        kt = k_cache.load_at((1, PAGE, 1, D), (page, 0, h, 0)).reshape((1, PAGE, D))
        vt = v_cache.load_at((1, PAGE, 1, D), (page, 0, h, 0)).reshape((1, PAGE, D))
        s = ct.sum(qt * kt.astype(f32), 2)  # (G, PAGE)
        pos = (j * PAGE + ct.arange(PAGE, i32)).reshape((1, PAGE))
        s = ct.where(pos < n, s, NEG_INF)
        m_new = ct.maximum(m_i, ct.max(s, 1, keepdims=True))
        p = ct.exp(s - m_new)
        alpha = ct.exp(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, 1, keepdims=True)
        acc = acc * alpha + ct.sum(p.reshape((G, PAGE, 1)) * vt.astype(f32), 1)
        m_i = m_new
    out.store((acc / l_i).astype(bf16).reshape((1, G, D)))


def reference(q: np.ndarray, k_cache: np.ndarray, v_cache: np.ndarray, table: np.ndarray,
              lens: np.ndarray) -> np.ndarray:
    batch, q_heads, d = q.shape
    group = q_heads // k_cache.shape[2]
    out = np.zeros_like(q)
    for b in range(batch):
        n = int(lens[b])
        pages = table[b, :(n + k_cache.shape[1] - 1) // k_cache.shape[1]]
        k = k_cache[pages].reshape(-1, k_cache.shape[2], d)[:n]  # (n, KV_HEADS, D)
        v = v_cache[pages].reshape(-1, v_cache.shape[2], d)[:n]
        for hq in range(q_heads):
            s = k[:, hq // group] @ q[b, hq] / math.sqrt(d)
            p = np.exp(s - s.max())
            out[b, hq] = (p / p.sum()) @ v[:, hq // group]
    return out


def main(lens: tuple[int, ...] = (1, 17, 100, 250), q_heads: int = 8, kv_heads: int = 2,
         d: int = 64, page: int = 16, pool: int = 64) -> None:
    batch = len(lens)
    width = max(-(-n // page) for n in lens)
    rng = np.random.default_rng(0)
    table_np = rng.permutation(pool)[:batch * width].reshape(batch, width).astype(np.int32)
    q = ct.randn((batch, q_heads, d), bf16, seed=1)
    k_cache = ct.randn((pool, page, kv_heads, d), bf16, seed=2)
    v_cache = ct.randn((pool, page, kv_heads, d), bf16, seed=3)
    group = q_heads // kv_heads
    out = ct.zeros((batch, q_heads, d), bf16).partition((1, group, d))
    out, q, k_cache, v_cache, *_ = paged_decode(
        out, q, k_cache, v_cache, ct.from_numpy(table_np),
        ct.from_numpy(np.array(lens, np.int32)), 1 / math.sqrt(d)).sync()
    got = out.unpartition().numpy().astype(np.float32)
    want = reference(q.numpy().astype(np.float32), k_cache.numpy().astype(np.float32),
                     v_cache.numpy().astype(np.float32), table_np, np.array(lens))
    np.testing.assert_allclose(got, want, atol=2e-2, rtol=2e-2)
    print(f"paged_attention: {batch} sequences (lengths {lens}), {q_heads} query / {kv_heads} "
          f"KV heads, pages of {page} on {ct.backend_name()}, ok")


if __name__ == "__main__":
    main()
