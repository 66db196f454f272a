"""Capture a launch into a CUDA graph once, replay it cheaply, then take the arguments back.

Each replay adds x to the accumulator in place (acc += x), so after R replays plus the capture
run, acc == (R + 1) * x.
"""

import numpy as np

import cutile as ct
from cutile import Const, Mut, Tensor, f32


@ct.kernel
def accumulate(acc: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], B: Const[int]) -> None:
    acc.store(acc.load() + ct.load_tile_like(x, acc))


def main(n: int = 1 << 16, tile: int = 1024, replays: int = 10) -> None:
    x = ct.randn((n,), f32, seed=0)
    acc = ct.zeros((n,), f32).partition((tile,))
    g = accumulate(acc, x).graph()  # captured and run once; the graph now owns acc and x
    for _ in range(replays):
        g.replay()  # enqueues without waiting
    acc, x = g.sync()  # waits, hands the arguments back; the graph is finished
    np.testing.assert_allclose(acc.unpartition().numpy(), (replays + 1) * x.numpy(), rtol=1e-5)
    print(f"cuda_graph: 1 capture + {replays} replays on {ct.backend_name()}, ok")


if __name__ == "__main__":
    main()
