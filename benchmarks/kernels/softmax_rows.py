"""Row 14's one-pass form: the whole row in one (1, BN) tile, read once and written once, as
row 3's Triton peer does. For rows up to BN wide (the suite times it at BN = the next power of
two of the width); examples/softmax_rows.py walks rows of any width in two passes."""

import cutile as ct
from cutile import Const, Mut, Tensor, f32

LOG2E = 1.4426950408889634
FLOOR = -1e30  # the padding past the row: exp2(FLOOR - max) is 0


@ct.kernel
def softmax_row_once(out: Mut[Tensor[f32, (1, -1)]], x: Tensor[f32, (-1, -1)],
                     BN: Const[int]) -> None:
    row = out.tile_index()[0]
    t = x.load_tile((1, BN), (row, 0), padding=FLOOR) * LOG2E
    e = ct.exp2(t - ct.max(t, 1, keepdims=True))
    out.store(e * (1.0 / ct.sum(e, 1, keepdims=True)), (0, 0))
