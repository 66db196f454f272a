import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def bad(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    t = ct.load_tile_like(x, z)
    try:  # E: CT101 "'try' is not supported"
        t = t + 1.0
    except ValueError:
        pass
    with open("f") as fh:  # E: CT101 "'with'"
        pass
    del t  # E: CT101 "'del'"
    global G  # E: CT101
    import math  # E: CT101 "import at module level"
    assert t is not None  # E: CT101 "device_assert"
    raise ValueError("x")  # E: CT101


@ct.kernel
def more(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    t = ct.load_tile_like(x, z)

    class Inner:  # E: CT101 "'class'"
        pass
    match t:  # E: CT101 "if/elif/else"
        case _:
            pass
    z.store(t)
