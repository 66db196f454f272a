import cutile as ct
from cutile import Const, Mut, Tensor, f32


@ct.kernel(pdl=True)
def gemv_like(z: Mut[Tensor[f32, (16,)]], w: Tensor[f32, (-1, -1)], x: Tensor[f32, (-1,)]) -> None:
    wt = w.load_tile((16, 16), (ct.block_id(0), 0))  # weights before the wait: allowed here
    ct.wait_for_predecessor()
    xt = x.load_tile((16,), (0,))
    z.store(ct.sum(wt * ct.expand_dims(xt, 0), 1))


@ct.kernel(pdl=True)
def first_thing(z: Mut[Tensor[f32, (16,)]], x: Tensor[f32, (-1,)]) -> None:
    ct.wait_for_predecessor()
    z.store(ct.load_tile_like(x, z))


@ct.kernel
def not_opted_in(z: Mut[Tensor[f32, (16,)]]) -> None:
    ct.wait_for_predecessor()  # E: CT116 "not declared @ct.kernel(pdl=True)"
    z.store(ct.zeros((16,), f32))


@ct.kernel(pdl=True)
def never_waits(z: Mut[Tensor[f32, (16,)]]) -> None:  # E: CT116 "never calls"
    z.store(ct.zeros((16,), f32))


@ct.kernel(pdl=True)
def in_branch(z: Mut[Tensor[f32, (16,)]], F: Const[bool]) -> None:
    if ct.block_id(0) == 0:
        ct.wait_for_predecessor()  # E: CT116 "not inside an if"
    z.store(ct.zeros((16,), f32))


@ct.kernel(pdl=True)
def in_loop(z: Mut[Tensor[f32, (16,)]]) -> None:
    for i in range(2):
        ct.wait_for_predecessor()  # E: CT116 "not inside a loop"
    z.store(ct.zeros((16,), f32))


@ct.kernel(pdl=True)
def twice(z: Mut[Tensor[f32, (16,)]]) -> None:
    ct.wait_for_predecessor()
    ct.wait_for_predecessor()  # E: CT116 "more than once"
    z.store(ct.zeros((16,), f32))


@ct.kernel(pdl=True)
def skipped(z: Mut[Tensor[f32, (16,)]]) -> None:
    if ct.block_id(0) > 3:
        return
    ct.wait_for_predecessor()  # E: CT116 "a return before"
    z.store(ct.zeros((16,), f32))


@ct.function
def settle() -> None:
    ct.wait_for_predecessor()


@ct.kernel(pdl=True)
def through_helper(z: Mut[Tensor[f32, (16,)]]) -> None:
    settle()
    z.store(ct.zeros((16,), f32))


@ct.kernel(pdl="yes")  # E: CT114
def bad_option(z: Mut[Tensor[f32, (16,)]]) -> None:
    z.store(ct.zeros((16,), f32))


@ct.kernel
def wait_value(z: Mut[Tensor[f32, (16,)]]) -> None:
    ct.wait_for_predecessor(1)  # E: CT110
    z.store(ct.zeros((16,), f32))
