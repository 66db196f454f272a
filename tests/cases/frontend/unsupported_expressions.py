import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def bad(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    t = ct.load_tile_like(x, z)
    a = [t * i for i in range(4)]  # E: CT102 "List comprehensions"
    b = lambda v: v + 1.0  # E: CT102 "Lambdas"
    c = {"t": t}  # E: CT102 "Dicts"
    d = [t, t]  # E: CT102 "Lists"
    e = {t}  # E: CT102
    f = t[::2]  # E: CT102 "step"
    g = t[...]  # the whole tile, as NumPy's
    h = (n := 4)  # E: CT102 "walrus"
    i = t if t else -t  # E: CT211 "scalar bool"
    j = ct.maximum(*(t, t))  # E: CT102 "Starred arguments"
    k = (*(t,), t)  # E: CT102
    m = 1j  # E: CT102 "complex"
    o = (v for v in (t,))  # E: CT102
    p = ...  # E: CT102
    q = "a" "b"  # implicit concatenation is one string literal: fine
    z.store(t)


@ct.kernel
def ok(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    """Docstrings and constant conditional expressions are fine."""
    t = ct.load_tile_like(x, z)
    k = 2.0 if True else 3.0
    z.store(t * k)
