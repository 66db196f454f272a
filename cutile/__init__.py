"""cutile: safe, fast GPU tile kernels in Python. `import cutile as ct`."""

from typing import TYPE_CHECKING

from .compiler.dsl.markers import (
    TileValue,
    bf16,
    bool_,
    f8e4m3,
    f8e5m2,
    f16,
    f32,
    f64,
    i8,
    i16,
    i32,
    i64,
    tf32,
    u8,
    u16,
    u32,
    u64,
)
from .compiler.dsl.ops import (
    abs,
    block_id,
    broadcast_to,
    cat,
    ceil,
    cos,
    cumsum,
    device_assert,
    exp,
    exp2,
    expand_dims,
    floor,
    load_tile_like,
    log,
    log2,
    max,
    maximum,
    min,
    minimum,
    mma,
    num_blocks,
    num_tiles,
    permute,
    printf,
    prod,
    rsqrt,
    sin,
    sqrt,
    sum,
    tanh,
    where,
)
from .compiler.dsl.orders import TileOrder, col_major, grouped, row_major
from .compiler.dtypes import DType
from .compiler.errors import (
    CompileError,
    CutileError,
    DeviceError,
    KernelError,
    LaunchError,
    OwnershipError,
)

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Annotated as Tensor
    from typing import Annotated as Tile
    from typing import Any, ParamSpec
    from typing import Union as Const
    from typing import Union as Mut

    from .runtime.api import (
        DeviceOp,
        GraphOp,
        HostTensor,
        LaunchNeverRunWarning,
        Partition,
        Stream,
        backend_name,
        empty,
        from_dlpack,
        from_numpy,
        meta,
        rand,
        randn,
        synchronize,
    )
    from .runtime.api import arange as _arange
    from .runtime.api import full as _full
    from .runtime.api import ones as _ones
    from .runtime.api import zeros as _zeros
    from .runtime.kernel import Kernel, function, kernel

    # Inside kernels the constructors make tiles, on the host tensors: to type checkers they
    # return Any, with their parameters kept.
    _P = ParamSpec("_P")

    def _tile_or_tensor(f: Callable[_P, object]) -> Callable[_P, Any]:
        return f

    zeros = _tile_or_tensor(_zeros)
    ones = _tile_or_tensor(_ones)
    full = _tile_or_tensor(_full)
    arange = _tile_or_tensor(_arange)
else:
    from .compiler.dsl.markers import Const, Mut, Tile

# The host API loads the runtime (and NumPy) on first use, so `import cutile.checker` and the
# language server stay light and never import the runtime (DESIGN §1: checker -> compiler only).
_RUNTIME = {"Kernel": "kernel", "function": "kernel", "kernel": "kernel", "Tensor": "kernel"}


def __getattr__(name: str) -> object:
    import importlib

    if name.startswith("__"):  # tools probing dunders must not load the runtime
        raise AttributeError(name)
    module = importlib.import_module(f"{__name__}.runtime.{_RUNTIME.get(name, 'api')}")
    try:
        value = getattr(module, name)
    except AttributeError:
        raise AttributeError(f"module 'cutile' has no attribute '{name}'") from None
    globals()[name] = value
    return value


__all__ = [
    "CompileError", "Const", "CutileError", "DType", "DeviceError", "Kernel", "KernelError",
    "LaunchError", "Mut", "OwnershipError", "Tensor", "Tile", "TileOrder", "TileValue", "abs",
    "bf16", "block_id", "bool_", "broadcast_to", "cat", "ceil", "col_major", "cos", "cumsum",
    "device_assert", "exp", "exp2", "expand_dims", "f8e4m3", "f8e5m2", "f16", "f32", "f64",
    "floor", "function", "grouped", "i8", "i16", "i32", "i64", "kernel", "load_tile_like", "log",
    "log2", "max", "maximum", "min", "minimum", "mma", "num_blocks", "num_tiles", "permute",
    "printf", "prod", "row_major", "rsqrt", "sin", "sqrt", "sum", "tanh", "tf32", "u8", "u16",
    "u32", "u64", "where",
]
__all__ += [  # the host API (runtime)
    "DeviceOp", "GraphOp", "HostTensor", "LaunchNeverRunWarning", "Partition", "Stream", "arange",
    "backend_name", "empty", "from_dlpack", "from_numpy", "full", "meta", "ones", "rand",
    "randn", "synchronize", "zeros",
]
