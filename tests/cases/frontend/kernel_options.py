import cutile as ct
from cutile import Mut, Tensor, f32

N = 2


@ct.kernel(occupancy=2, num_ctas=2, opt_level=3, worker_warps=8, unsafe=False)
def good(z: Mut[Tensor[f32, (128,)]]) -> None:
    z.store(ct.zeros((128,), f32))


@ct.kernel(occupancy=0)  # E: CT114 "kernel option 'occupancy' must be an int from 1 to 32"
def zero_occupancy(z: Mut[Tensor[f32, (128,)]]) -> None:
    z.store(ct.zeros((128,), f32))


@ct.kernel(num_ctas=3)  # E: CT114 "'num_ctas' must be 1, 2, 4, 8 or 16"
def odd_cluster(z: Mut[Tensor[f32, (128,)]]) -> None:
    z.store(ct.zeros((128,), f32))


@ct.kernel(warps=4)  # E: CT114 "'warps' is not a kernel option"
def unknown(z: Mut[Tensor[f32, (128,)]]) -> None:
    z.store(ct.zeros((128,), f32))


@ct.kernel(occupancy=N)  # E: CT114 "must be a literal value"
def not_literal(z: Mut[Tensor[f32, (128,)]]) -> None:
    z.store(ct.zeros((128,), f32))


@ct.kernel(unsafe=1)  # E: CT114 "must be True or False"
def unsafe_int(z: Mut[Tensor[f32, (128,)]]) -> None:
    z.store(ct.zeros((128,), f32))


@ct.kernel(worker_warps=6)  # E: CT114 "'worker_warps' must be 4 or 8 (math warps per CTA)"
def six_warps(z: Mut[Tensor[f32, (128,)]]) -> None:
    z.store(ct.zeros((128,), f32))
