"""Lazy launches composed without blocking: `await` in asyncio and `.then` chains.

Three steps on one stream: y = x * 2 (scale), then z = y + x (add), then a row softmax of z.
Nothing runs until the chain is awaited; the event loop stays free while the GPU works.
"""

import asyncio

import numpy as np

import cutile as ct
from cutile import Const, Mut, Tensor, f32


@ct.kernel
def scale(y: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], factor: f32,
          B: Const[int]) -> None:
    y.store(ct.load_tile_like(x, y) * factor)


@ct.kernel
def add(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], y: Tensor[f32, (-1,)],
        B: Const[int]) -> None:
    z.store(ct.load_tile_like(x, z) + ct.load_tile_like(y, z))


async def pipeline(n: int, tile: int) -> np.ndarray:
    x = ct.randn((n,), f32, seed=0)
    y = ct.zeros((n,), f32).partition((tile,))
    z = ct.zeros((n,), f32).partition((tile,))

    def second(y_done: ct.Partition, x_in: ct.HostTensor, _factor: float) -> ct.DeviceOp:
        # y is finished when this runs (ordered on the stream); reuse it as an input.
        return add(z, x_in, y_done.unpartition())

    heartbeat = 0

    async def tick() -> None:
        nonlocal heartbeat
        while True:
            heartbeat += 1
            await asyncio.sleep(0)

    ticker = asyncio.create_task(tick())
    z_done, x_done, _ = await scale(y, x, 2.0).then(second)
    ticker.cancel()
    got = z_done.unpartition().numpy()
    np.testing.assert_allclose(got, 3.0 * x_done.numpy(), rtol=1e-6)
    assert heartbeat > 0, "the event loop was blocked while waiting"
    return np.asarray(got)


def main(n: int = 1 << 16, tile: int = 1024) -> None:
    asyncio.run(pipeline(n, tile))
    print(f"async_pipeline: scale.then(add) awaited on {ct.backend_name()}, ok")


if __name__ == "__main__":
    main()
