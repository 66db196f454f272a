"""A loop over a literal tuple or list (test shapes, the usual habit) is checked once per item:
the launch with the item that does not fit is CT401 at its line, as at run time; other items
and other iterables check clean."""

import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def copy_rows(out: Mut[Tensor[f32, (1, 128)]], x: Tensor[f32, (-1, -1)]) -> None:
    out.store(ct.load_tile_like(x, out))


for rows, width in ((37, 128), (5, 128), (3, 100)):
    x = ct.zeros((rows, width), f32)
    out = ct.zeros((rows, width), f32)
    out, x = copy_rows(out.partition((1, width)), x).sync()  # E: CT401

for width in [128, 128]:
    out = ct.zeros((7, width), f32)
    out, _ = copy_rows(out.partition((1, width)), ct.ones((7, width), f32)).sync()

for width in range(128, 129):
    out = ct.zeros((7, width), f32)
    out, _ = copy_rows(out.partition((1, width)), ct.ones((7, width), f32)).sync()
