"""Constructor shapes the checker can read: the runtime's rule (non-negative ints, at most
2**63 - 1 elements) at edit time, the same codes at the same lines."""

import cutile as ct
from cutile import f32

a = ct.zeros((4, 3), f32)
b = ct.ones(7, f32)
c = ct.full((0, 5), 1.0, f32)
d = ct.zeros((-1,), f32)  # E: CT406 "non-negative ints"
e = ct.full((3, -2), 1.0, f32)  # E: CT406 "got (3, -2)"
f = ct.ones(-4, f32)  # E: CT406 "got -4"
g = ct.zeros((2**62, 4), f32)  # E: CT412 "more than the limit"
h = ct.meta((2**40, 2**40), f32)  # E: CT412
i = ct.zeros((1.5,), f32)  # E: CT406
j = ct.zeros([4, 3], f32)
k = ct.zeros([-1], f32)  # E: CT406 "got [-1]"
