"""Flash-attention forward: online softmax over key blocks, two matmuls per step."""
import cutile as ct
from cutile import Const, Mut, Tensor, f16, f32


@ct.kernel
def attention(o: Mut[Tensor[f16, ("BM", "D")]], q: Tensor[f16, (-1, "D")],
              k: Tensor[f16, (-1, "D")], v: Tensor[f16, (-1, "D")], scale: f32,
              BM: Const[int], BN: Const[int], D: Const[int]) -> None:
    qt = ct.load_tile_like(q, o)
    pk = k.partition((BN, D))
    pv = v.partition((BN, D))
    m_i = ct.full((BM,), -1e30, f32)
    l_i = ct.zeros((BM,), f32)
    acc = ct.zeros((BM, D), f32)
    for j in range(ct.num_tiles(pk, 0)):
        kt = pk.load((j, 0))
        s = ct.mma(qt, kt.transpose(), ct.zeros((BM, BN), f32)) * scale
        m_new = ct.maximum(m_i, ct.max(s, 1))
        p = ct.exp(s - ct.expand_dims(m_new, 1))
        alpha = ct.exp(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, 1)
        acc = acc * ct.expand_dims(alpha, 1) + ct.mma(p.astype(f16), pv.load((j, 0)),
                                                      ct.zeros((BM, D), f32))
        m_i = m_new
    o.store((acc / ct.expand_dims(l_i, 1)).astype(f16))
