"""Literal arguments of the host constructors and of tensor indexing that the runtime refuses
(CT406 at the call), judged by the runtime's own rules (compiler/hostapi/shapes.py,
compiler/launch/regions.py): dtypes (NumPy's included), `ct.arange`'s count, `ct.full`'s value,
random dtypes and seeds, and index kinds."""

import math

import numpy as np

import cutile as ct
from cutile import f32

a = ct.zeros((3, 4), np.float32)
b = ct.zeros((3, 4), np.dtype("float64"))
c = ct.zeros((3, 4), "float16")
d = ct.zeros((3, 4), np.complex64)  # E: CT406
e = ct.zeros((3, 4), "f33")  # E: CT406
f = ct.arange(2, 10)  # E: CT406
g = ct.arange(-3, f32)  # E: CT406
h = ct.arange(2.5, f32)  # E: CT406
i = ct.full((2,), 300, ct.i8)  # E: CT406
j = ct.full((2,), 127, ct.i8)
k = ct.full((2,), math.inf, ct.i32)  # E: CT406
m = ct.full((2,), math.inf, f32)
n = ct.full((2,), 2.5, ct.i32)  # truncates, as torch.full does
o = ct.from_numpy(np.ones(3), dtype=3)  # E: CT406
p = ct.from_numpy(np.ones(3), dtype=np.float16)
q = ct.rand((8,), ct.i32, seed=0)  # E: CT406
r = ct.rand((8,), f32, seed=-1)  # E: CT406
s = ct.randn((8,), f32, seed=None)

t = ct.zeros((3, 4), f32)
u = t[None]  # E: CT406
v = t[0, 1.5]  # E: CT406
w = t[..., ...]  # E: CT406
y = t[0:1.5]  # E: CT406
z = t[0, 0, 0]  # E: CT406
key = (1, 2)
kv = t[key]
fine = t[..., 1]
