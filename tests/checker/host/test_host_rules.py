"""Rule tests in the Fixit style: every VALID and INVALID snippet of every rule is a test case."""

from __future__ import annotations

import pytest
from hostcheck import Rule, expected, found, run, with_prelude

from cutile.compiler.hostapi import HOST_API
from cutile.diagnostics.codes import CODES, Family


class UseAfterMove(Rule):
    CODE = "CT301"
    VALID = (
        """
t = ct.zeros((1024,), f32)
t = t.partition((128,))
x = ct.ones((1024,), f32)
t, x, _ = scale(t, x, 2.0).sync()
print(t.unpartition().numpy())
""",
        """
def run(t, x):
    p = t.partition((128,))
    p, x, _ = scale(p, x, 1.0).sync()
    return p.unpartition()
""",
        """
t = ct.zeros((1024,), f32)
keep(t)
p = t.partition((128,))
t.numpy()
""",
        """
def f(c):
    t = ct.zeros((1024,), f32)
    if c:
        t = ct.ones((1024,), f32)
    p = t.partition((128,))
    return p
""",
        """
x = ct.ones((1024,), f32)
p = ct.zeros((1024,), f32).partition((128,))
op = scale(p, x, 1.0)
x.numpy()
op.sync()
""",
    )
    INVALID = (
        """
t = ct.zeros((1024,), f32)
p = t.partition((128,))
t.numpy()  # E: CT301
""",
        """
x = ct.ones((1024,), f32)
p = ct.zeros((1024,), f32).partition((128,))
op = scale(p, x, 1.0)
p.unpartition()  # E: CT301
op.sync()
""",
        """
def f(c):
    t = ct.zeros((1024,), f32)
    if c:
        p = t.partition((128,))
        p.unpartition()
    return t.numpy()  # E: CT301
""",
        """
x = ct.ones((1024,), f32)
p = ct.zeros((1024,), f32).partition((128,))
scale(p, x, 1.0).sync()
q = p.unpartition()  # E: CT301
""",
        """
t = ct.zeros((1024,), f32)
alias = t
p = t.partition((128,))
alias.numpy()  # E: CT301
""",
        """
t = ct.zeros((1024,), f32)
p = t.partition((128,))
u = p.unpartition()
p.unpartition()  # E: CT301
""",
    )


class AliasedMut(Rule):
    CODE = "CT302"
    VALID = (
        """
x = ct.ones((1024,), f32)
y = ct.ones((1024,), f32)
z = ct.zeros((1024,), f32).partition((128,))
z, x, y = add(z, x, y).sync()
""",
        """
x = ct.ones((1024,), f32)
z = ct.zeros((1024,), f32).partition((128,))
z, x, x = add(z, x, x).sync()
""",
    )
    INVALID = (
        """
z = ct.zeros((1024,), f32)
y = ct.ones((1024,), f32)
add(z.partition((128,)), z, y).sync()  # E: CT302
""",
        """
x = ct.ones((64,), f32)
p = ct.zeros((64,), f32).partition((64,))
pair(p, p, x).sync()  # E: CT302
""",
    )


class WriteWhileLeased(Rule):
    CODE = "CT303"
    VALID = (
        """
x = ct.ones((1024,), f32)
p = ct.zeros((1024,), f32).partition((128,))
p, x, _ = scale(p, x, 1.0).sync()
q = x.partition((128,))
""",
        """
async def main():
    x = ct.ones((1024,), f32)
    p = ct.zeros((1024,), f32).partition((128,))
    p, x, _ = await scale(p, x, 1.0)
    return x.partition((128,))
""",
        """
x = ct.ones((1024,), f32)
p = ct.zeros((1024,), f32).partition((128,))
g = scale(p, x, 1.0).graph()
g.replay()
p, x, _ = g.sync()
q = x.partition((128,))
""",
    )
    INVALID = (
        """
x = ct.ones((1024,), f32)
p = ct.zeros((1024,), f32).partition((128,))
op = scale(p, x, 1.0)
q = x.partition((128,))  # E: CT303
op.sync()
""",
        """
x = ct.ones((1024,), f32)
p = ct.zeros((1024,), f32).partition((128,))
g = scale(p, x, 1.0).graph()
q = x.partition((128,))  # E: CT303
g.sync()
""",
        """
def f(c):
    x = ct.ones((1024,), f32)
    p = ct.zeros((1024,), f32).partition((128,))
    op = scale(p, x, 1.0)
    if c:
        op.sync()
    q = x.partition((128,))  # E: CT303
    return q, op
""",
    )


class UnpartitionedMut(Rule):
    CODE = "CT304"
    VALID = (
        """
def f(z, x):
    return scale(z, x, 1.0).sync()
""",
    )
    INVALID = (
        """
z = ct.zeros((1024,), f32)
x = ct.ones((1024,), f32)
scale(z, x, 1.0).sync()  # E: CT304
""",
        """
x = ct.ones((1024,), f32)
scale(ct.zeros((1024,), f32), x, 1.0).sync()  # E: CT304
""",
    )


class LaunchNeverRun(Rule):
    CODE = "CT305"
    VALID = (
        """
def make(p, x):
    return scale(p, x, 1.0)
""",
        """
def f(p, x, ops):
    ops.append(scale(p, x, 1.0))
""",
        """
import asyncio
async def f(p, q, x):
    return await asyncio.gather(scale(p, x, 1.0), scale(q, x, 1.0))
""",
        """
def f(p, x):
    return scale(p, x, 1.0).then(lambda z, x, a: scale(z, x, a)).sync()
""",
        """
def f(p, x, c):
    if c:
        op = scale(p, x, 1.0)
    else:
        op = scale(p, x, 2.0)
    return op.sync()
""",
        """
def f(p, x):
    op = scale(p, x, 1.0)
    def later():
        return op.sync()
    return later
""",
        """
def f(p, x):
    g = scale(p, x, 1.0).graph()
    for _ in range(3):
        g.replay()
""",
    )
    INVALID = (
        """
def f(p, x):
    scale(p, x, 1.0)  # E: CT305
""",
        """
def f(p, x):
    op = scale(p, x, 1.0)  # E: CT305
    return x
""",
        """
def f(p, x):
    op = scale(p, x, 1.0)  # E: CT305
    chained = op.then(print)  # a chain never run: its first launch never runs
""",
    )


class MoveInLoop(Rule):
    CODE = "CT306"
    VALID = (
        """
x = ct.ones((1024,), f32)
z = ct.zeros((1024,), f32).partition((128,))
for _ in range(10):
    z, x, _ = scale(z, x, 1.0).sync()
""",
        """
x = ct.ones((1024,), f32)
for _ in range(10):
    z = ct.zeros((1024,), f32).partition((128,))
    z, x, _ = scale(z, x, 1.0).sync()
""",
        """
x = ct.ones((1024,), f32)
z = ct.zeros((1024,), f32).partition((128,))
while True:
    z, x, _ = scale(z, x, 1.0).sync()
    if x is not None:
        break
""",
        """
x = ct.ones((1024,), f32)
z = ct.zeros((1024,), f32).partition((128,))
for _ in range(3):
    scale(z, x, 1.0).sync()
    break
""",
    )
    INVALID = (
        """
x = ct.ones((1024,), f32)
z = ct.zeros((1024,), f32).partition((128,))
for _ in range(10):
    scale(z, x, 1.0).sync()  # E: CT306
""",
        """
t = ct.zeros((1024,), f32)
for _ in range(2):
    p = t.partition((128,))  # E: CT306
""",
        """
x = ct.ones((1024,), f32)
z = ct.zeros((1024,), f32).partition((128,))
i = 0
while i < 3:
    op = scale(z, x, 1.0)  # E: CT306
    op.sync()
    i = i + 1
""",
    )


class AccessBeforeWait(Rule):
    CODE = "CT308"
    VALID = (
        """
@ct.kernel(pdl=True)
def after(z: Mut[Tensor[f32, (128,)]], w: Tensor[f32, (-1,)], h: Tensor[f32, (-1,)]) -> None:
    wt = ct.load_tile_like(w, z)
    ct.wait_for_predecessor()
    z.store(wt + ct.load_tile_like(h, z))

x = ct.ones((512,), f32)
w = ct.ones((512,), f32)
out = ct.zeros((512,), f32).partition((128,))
h = ct.zeros((512,), f32).partition((128,))
out, w, h = scale(h, x, 2.0).then(lambda h, x, a: after(out, w, h.unpartition())).sync()
""",
        """
@ct.kernel(pdl=True)
def early(z: Mut[Tensor[f32, (128,)]], h: Tensor[f32, (-1,)]) -> None:
    t = ct.load_tile_like(h, z)
    ct.wait_for_predecessor()
    z.store(t)

x = ct.ones((512,), f32)
other = ct.ones((512,), f32)
out = ct.zeros((512,), f32).partition((128,))
h = ct.zeros((512,), f32).partition((128,))
out, other = scale(h, x, 2.0).then(lambda h, x, a: early(out, other)).sync()
""",
    )
    INVALID = (
        """
@ct.kernel(pdl=True)
def early(z: Mut[Tensor[f32, (128,)]], h: Tensor[f32, (-1,)]) -> None:
    t = ct.load_tile_like(h, z)  # E: CT308
    ct.wait_for_predecessor()
    z.store(t)

x = ct.ones((512,), f32)
out = ct.zeros((512,), f32).partition((128,))
h = ct.zeros((512,), f32).partition((128,))
scale(h, x, 2.0).then(lambda h, x, a: early(out, h.unpartition())).sync()
""",
        """
@ct.kernel(pdl=True)
def early(z: Mut[Tensor[f32, (128,)]], h: Tensor[f32, (-1,)]) -> None:
    t = ct.load_tile_like(h, z)  # E: CT308
    ct.wait_for_predecessor()
    z.store(t)

x = ct.ones((512,), f32)
out = ct.zeros((512,), f32).partition((128,))
h = ct.zeros((512,), f32).partition((128,))
g = scale(h, x, 2.0).then(lambda h, x, a: early(out, h.unpartition())).graph()
""",
    )


class PartitionShape(Rule):
    CODE = "CT401"
    VALID = (
        """
x = ct.ones((1024,), f32)
z = ct.zeros((1024,), f32).partition((128,))
scale(z, x, 1.0).sync()
""",
        """
a = ct.ones((256, 256), f32)
b = ct.ones((256, 256), f32)
c = ct.zeros((256, 256), f32).partition((64, 32))
mm(c, a, b, BK=32).sync()
""",
        """
a = ct.ones((256, 256), f32)
c = ct.zeros((256, 256), f32).partition((64, 32))
mm(c, a, a, BM=64, BK=32).sync()
""",
    )
    INVALID = (
        """
x = ct.ones((1024,), f32)
z = ct.zeros((1024,), f32).partition((64,))
scale(z, x, 1.0).sync()  # E: CT401
""",
        """
a = ct.ones((256, 256), f32)
c = ct.zeros((256, 256), f32).partition((64, 32))
mm(c, a, a, BM=32, BK=32).sync()  # E: CT401
""",
        """
x = ct.ones((1024,), f32)
z = ct.zeros((32, 32), f32).partition((8, 16))
scale(z, x, 1.0).sync()  # E: CT401
""",
    )


class GridMismatch(Rule):
    CODE = "CT402"
    VALID = (
        """
x = ct.ones((1024,), f32)
a = ct.zeros((1024,), f32).partition((64,))
b = ct.zeros((1000,), f32).partition((64,))
pair(a, b, x).sync()
""",
        """
def f(n, x):
    a = ct.zeros((1024,), f32).partition((64,))
    b = ct.zeros((n,), f32).partition((64,))
    return pair(a, b, x).sync()
""",
    )
    INVALID = (
        """
x = ct.ones((1024,), f32)
a = ct.zeros((1024,), f32).partition((64,))
b = ct.zeros((512,), f32).partition((64,))
pair(a, b, x).sync()  # E: CT402
""",
    )


class MutRank(Rule):
    CODE = "CT403"
    VALID = (
        """
z = ct.zeros((8, 8, 8), f32).partition((4, 4, 4))
vol(z).sync()
""",
    )
    INVALID = (
        """
z = ct.zeros((2, 2, 2, 2, 2, 2), f32).partition((1, 1, 1, 1, 1, 2))  # E: CT403
""",
    )


class MissingConst(Rule):
    CODE = "CT405"
    VALID = (
        """
a = ct.ones((256, 256), f32)
c = ct.zeros((256, 256), f32).partition((64, 32))
mm(c, a, a, BK=32).sync()
""",
        """
z = ct.zeros((1024,), f32).partition((128,))
fill(z, 1.0, dt=f32).sync()
""",
        """
z = ct.zeros((1024,), f32).partition((128,))
fill(z, 1.0, f32).sync()
""",
    )
    INVALID = (
        """
a = ct.ones((256, 256), f32)
c = ct.zeros((256, 256), f32).partition((64, 32))
mm(c, a, a).sync()  # E: CT405
""",
        """
z = ct.zeros((1024,), f32).partition((128,))
fill(z, 1.0).sync()  # E: CT405
""",
    )


class ArgumentMismatch(Rule):
    CODE = "CT406"
    VALID = (
        """
def f(x, y, n):
    z = ct.zeros((n,), f32).partition((128,))
    return add(z, x, y).sync()
""",
        """
x = ct.from_numpy(load())
z = ct.zeros((1024,), f32).partition((128,))
add(z, x, x).sync()
""",
        """
x = ct.ones((1024,), f32)
z = ct.zeros((1024,), f32).partition((128,))
add(z=z, x=x, y=x).sync()
""",
    )
    INVALID = (
        """
x = ct.ones((1024,), f16)
y = ct.ones((1024,), f32)
z = ct.zeros((1024,), f32).partition((128,))
add(z, x, y).sync()  # E: CT406
""",
        """
x = ct.ones((32, 32), f32)
z = ct.zeros((1024,), f32).partition((128,))
add(z, x, x).sync()  # E: CT406 CT406
""",
        """
x = ct.ones((1024,), f32)
z = ct.zeros((1024,), f32).partition((128,))
add(z, x, x, 128, 5).sync()  # E: CT406
""",
        """
x = ct.ones((1024,), f32)
z = ct.zeros((1024,), f32).partition((128,))
add(z, x, x, C=4).sync()  # E: CT406
""",
        """
x = ct.ones((1024,), f32)
z = ct.zeros((1024,), f32).partition((128,))
add(z, x).sync()  # E: CT406
""",
        """
x = ct.ones((1024,), f32)
z = ct.zeros((1024,), f32).partition((128,))
scale(z, x, x).sync()  # E: CT406
""",
        """
x = ct.ones((1024,), f32)
z = ct.zeros((1024,), f32).partition((128,))
add(z, z, x).sync()  # E: CT302
""",
    )


class BadPartition(Rule):
    CODE = "CT408"
    VALID = (
        """
z = ct.zeros((1024, 1024), f32).partition((128, 128), order=ct.grouped(8), blocks=132)
""",
    )
    INVALID = (
        """
z = ct.zeros((1024, 1024), f32).partition((128, 128), order=ct.grouped(0))  # E: CT408
""",
        """
z = ct.zeros((1024,), f32).partition((128,), blocks=0)  # E: CT408
""",
    )


class RegionWritten(Rule):
    CODE = "CT307"
    VALID = (
        """
t = ct.zeros((1024,), f32)
a, b = t.split_at(0, 512)
x = ct.ones((512,), f32)
first = add(a.partition((128,)), x, x)
second = add(b.partition((128,)), x, x)
first.sync()
t[0:512].numpy()
second.sync()
t.numpy()
""",
        """
n = rows()
t = ct.zeros((1024,), f32)
x = ct.ones((1024,), f32)
op = add(t[0:n].partition((128,)), x, x)
t[n - 1:].numpy()
op.sync()
""",
    )
    INVALID = (
        """
t = ct.zeros((1024,), f32)
x = ct.ones((256,), f32)
op = add(t[0:256].partition((128,)), x, x)
t[128:384].numpy()  # E: CT307
op.sync()
""",
        """
t = ct.zeros((1024,), f32)
x = ct.ones((256,), f32)
op = add(t[256:512].partition((128,)), x, x)
t.partition((128,))  # E: CT307
op.sync()
""",
        """
t = ct.zeros((1024,), f32)
x = ct.ones((512,), f32)
op = add(t.narrow(0, 0, 512).partition((128,)), x, x)
again = add(ct.zeros((512,), f32).partition((128,)), t[256:768], x)  # E: CT307
op.sync()
""",
    )


class ViewRegionRead(Rule):
    CODE = "CT303"
    VALID = (
        """
t = ct.zeros((1024,), f32)
x = ct.ones((512,), f32)
reader = add(ct.zeros((512,), f32).partition((128,)), t[0:512], x)
writer = add(t[512:].partition((128,)), x, x)
reader.sync()
writer.sync()
""",
    )
    INVALID = (
        """
t = ct.zeros((1024,), f32)
x = ct.ones((512,), f32)
reader = add(ct.zeros((512,), f32).partition((128,)), t[0:512], x)
t[256:768].partition((128,))  # E: CT303
reader.sync()
""",
    )


RULES = [r for r in Rule.__subclasses__()]


def _cases() -> list[object]:
    out = []
    for rule in RULES:
        for kind in ("VALID", "INVALID"):
            for i, snippet in enumerate(getattr(rule, kind)):
                out.append(pytest.param(snippet, kind, id=f"{rule.__name__}-{kind.lower()}-{i}"))
    return out


@pytest.mark.parametrize(("snippet", "kind"), _cases())
def test_rule_case(snippet: str, kind: str) -> None:
    source = with_prelude(snippet)
    want = expected(source)
    assert (kind == "VALID") == (not want), "INVALID cases need an # E: comment, VALID none"
    diags = run(source)
    assert found(diags) == want, "\n".join(f"{d.span}: {d.code} {d.message}" for d in diags)


def test_every_host_rule_has_cases() -> None:
    """Every ownership code, and every code a host API entry declares (but those found only
    when a launch runs: resource limits), has valid and invalid snippets."""
    tested = {r.CODE for r in RULES if r.VALID and r.INVALID}
    ownership = {c.code for c in CODES.values() if c.family is Family.OWNERSHIP}
    declared = {code for entry in HOST_API.values() for code in entry.codes} - {"CT412"}
    assert ownership | declared <= tested, sorted((ownership | declared) - tested)
