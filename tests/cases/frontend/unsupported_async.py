import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
async def bad(  # E: CT107 "async def"
       z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    t = ct.load_tile_like(x, z)
    async for i in range(4):  # E: CT101 "async for"
        t = t + 1.0
    async with x:  # E: CT101 "async with"
        pass
    z.store(await t)  # E: CT102 "Await expressions"
    z.store(t)
