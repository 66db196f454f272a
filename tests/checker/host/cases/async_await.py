"""async/await: awaiting a launch returns its arguments; gather hands ops to asyncio."""

import asyncio

import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def relu(z: Mut[Tensor[f32, (128,)]], x: Tensor[f32, (-1,)]) -> None:
    t = ct.load_tile_like(x, z)
    z.store(ct.maximum(t, 0.0))


async def step(x: object) -> object:
    z = ct.zeros((1024,), f32).partition((128,))
    z, x = await relu(z, x)
    out = z.unpartition()
    return out.partition((128,)), x


async def both() -> object:
    x = ct.randn((1024,), f32)
    a = ct.zeros((1024,), f32).partition((128,))
    b = ct.zeros((1024,), f32).partition((128,))
    return await asyncio.gather(relu(a, x), relu(b, x))


if __name__ == "__main__":
    asyncio.run(both())
