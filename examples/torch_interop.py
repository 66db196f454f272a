"""Tensors in and out through DLPack, without copies: torch (or NumPy when torch is absent).

On a GPU the torch tensors live on the device and cutile launches on them in place; on the
interpreter the same code runs on CPU tensors.
"""

from typing import Any

import numpy as np

import cutile as ct
from cutile import Const, Mut, Tensor, f32


@ct.kernel
def relu(y: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], B: Const[int]) -> None:
    y.store(ct.maximum(ct.load_tile_like(x, y), 0.0))


def inputs(n: int) -> tuple[Any, Any, str]:
    try:
        import torch  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        rng = np.random.default_rng(0)
        return rng.standard_normal(n).astype(np.float32), np.zeros(n, np.float32), "numpy"
    device = "cuda" if ct.backend_name() == "cuda" else "cpu"
    x = torch.randn(n, device=device, dtype=torch.float32)
    return x, torch.zeros(n, device=device, dtype=torch.float32), "torch"


def main(n: int = 1 << 16, tile: int = 1024) -> None:
    x_ext, y_ext, lib = inputs(n)
    x = ct.from_dlpack(x_ext)  # zero copy: cutile keeps x_ext alive
    y = ct.from_dlpack(y_ext).partition((tile,))
    y, x = relu(y, x).sync()
    out: Any = np.from_dlpack(y.unpartition()) if lib == "numpy" else __import__(
        "torch").from_dlpack(y.unpartition())
    # The kernel wrote into y_ext's memory: the external tensor sees the result with no copy.
    want = np.maximum(np.asarray(x_ext.cpu() if lib == "torch" else x_ext), 0)
    np.testing.assert_allclose(np.asarray(y_ext.cpu() if lib == "torch" else y_ext), want)
    np.testing.assert_allclose(np.asarray(out.cpu() if lib == "torch" else out), want)
    print(f"torch_interop: relu on {lib} tensors through DLPack on {ct.backend_name()}, ok")


if __name__ == "__main__":
    main()
