"""A grab bag of realistic elementwise kernels: saxpy, relu, gelu (tanh), clamp, sigmoid."""
import cutile as ct
from cutile import Const, Mut, Tensor, f16, f32

SQRT_2_OVER_PI = 0.7978845608028654


@ct.function
def gelu(t):
    inner = SQRT_2_OVER_PI * (t + 0.044715 * t * t * t)
    return 0.5 * t * (1.0 + ct.tanh(inner))


@ct.function
def sigmoid(t):
    return 1.0 / (1.0 + ct.exp(-t))


@ct.kernel
def saxpy(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], y: Tensor[f32, (-1,)], a: f32,
          B: Const[int]) -> None:
    z.store(a * ct.load_tile_like(x, z) + ct.load_tile_like(y, z))


@ct.kernel
def activations(z: Mut[Tensor[f16, (1024,)]], x: Tensor[f16, (-1,)]) -> None:
    t = ct.load_tile_like(x, z).astype(f32)
    relu = ct.maximum(t, 0.0)
    clamp = ct.minimum(ct.maximum(t, -6.0), 6.0)
    z.store((gelu(t) + sigmoid(t) + relu + clamp).astype(f16))
