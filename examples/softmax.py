"""Row softmax: each block owns BM full rows, reads bf16, computes in f32, writes bf16."""

import numpy as np

import cutile as ct
from cutile import Const, Mut, Tensor, bf16, f32


@ct.kernel
def softmax(out: Mut[Tensor[bf16, ("BM", "N")]], x: Tensor[bf16, (-1, "N")], BM: Const[int],
            N: Const[int]) -> None:
    rows = ct.load_tile_like(x, out).astype(f32)
    shifted = rows - ct.max(rows, 1, keepdims=True)
    e = ct.exp(shifted)
    out.store((e / ct.sum(e, 1, keepdims=True)).astype(bf16))


def reference(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def main(m: int = 256, n: int = 1024, rows_per_block: int = 4) -> None:
    x = ct.randn((m, n), bf16, seed=0)
    out = ct.zeros((m, n), bf16).partition((rows_per_block, n))
    out, x = softmax(out, x).sync()
    got = out.unpartition().numpy().astype(np.float32)
    np.testing.assert_allclose(got, reference(x.numpy().astype(np.float32)), atol=2e-3)
    print(f"softmax: {m}x{n} on {ct.backend_name()}, ok")


if __name__ == "__main__":
    main()
