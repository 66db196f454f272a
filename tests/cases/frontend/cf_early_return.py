import cutile as ct
from cutile import Const, Mut, Tensor, f16, f32, i32


@ct.kernel
def guard(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], n: i32) -> None:
    if ct.block_id(0) * 64 >= n:
        return
    z.store(ct.load_tile_like(x, z))


@ct.kernel
def guard_in_else(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], n: i32) -> None:
    if n > 0:
        t = ct.load_tile_like(x, z)
    else:
        return
    z.store(t)  # bound on the only path that gets here


@ct.kernel
def dead_branch_types(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], n: i32) -> None:
    t = ct.load_tile_like(x, z)
    if n > 0:
        t = t.astype(f16)  # no CT212: this path ends before the branches join
        return
    z.store(t)


@ct.kernel
def search(z: Mut[Tensor[i32, (1,)]], x: Tensor[f32, (-1, 16)], n: i32) -> None:
    best = ct.zeros((), f32)
    for r in range(n):
        v = ct.max(ct.max(x.load_tile((1, 16), (r, 0)), 1), 0)
        if v > 1.0:
            z.store(ct.full((1,), 0, i32) + r)
            return
        best = ct.maximum(best, v)
        while best > 4.0:
            best = best - 1.0
            if best < 0.5:
                return
    z.store(ct.full((1,), -1, i32))


@ct.kernel
def loop_changes_type_then_returns(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)],
                                   n: i32) -> None:
    t = ct.load_tile_like(x, z)
    for i in range(n):
        if i > 3:
            t = t.astype(f16)  # leaves the loop: the carried t keeps its type
            return
        t = t + 1.0
    z.store(t)


@ct.kernel
def partition_after_guard(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1, 64)],
                          n: i32) -> None:
    if n > 3:
        return
    else:
        p = x.partition((1, 64))
    z.store(p.load((0, 0)).reshape((64,)))


@ct.kernel
def partition_from_two_branches(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1, 64)],
                                n: i32) -> None:
    if n > 3:
        p = x.partition((1, 64))
    else:
        p = x.partition((1, 64))
    z.store(p.load((0, 0)).reshape((64,)))  # E: CT111 "only tiles and numbers flow out"


@ct.kernel
def value_from_a_branch(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], n: i32) -> None:
    t = ct.load_tile_like(x, z)
    if n > 0:
        return t  # E: CT108
    for i in range(n):
        if i == 2:
            return 0  # E: CT108
    z.store(t)


@ct.kernel
def const_guard(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], B: Const[int]) -> None:
    if B > 64:
        return  # decided when compiled: the rest is not compiled for B > 64
    z.store(ct.load_tile_like(x, z))
