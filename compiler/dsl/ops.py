"""Kernel-side functions of the kernel language, as mypy and pyright see them.

The frontend recognizes these by name in kernel source; they are never called on the GPU path.
Called on the host, each raises CutileError saying it belongs inside a kernel.
"""

from __future__ import annotations

from typing import Any

from .markers import TileValue, _kernel_only

Shape = tuple[int, ...] | int
Axis = int


def block_id(axis: int) -> TileValue: return _kernel_only("block_id")
def num_blocks(axis: int) -> TileValue: return _kernel_only("num_blocks")
def load_tile_like(x: Any, z: Any) -> TileValue: return _kernel_only("load_tile_like")
def num_tiles(p: Any, axis: int) -> TileValue: return _kernel_only("num_tiles")
def exp(x: Any) -> TileValue: return _kernel_only("exp")
def exp2(x: Any) -> TileValue: return _kernel_only("exp2")
def log(x: Any) -> TileValue: return _kernel_only("log")
def log2(x: Any) -> TileValue: return _kernel_only("log2")
def sqrt(x: Any) -> TileValue: return _kernel_only("sqrt")
def rsqrt(x: Any) -> TileValue: return _kernel_only("rsqrt")
def sin(x: Any) -> TileValue: return _kernel_only("sin")
def cos(x: Any) -> TileValue: return _kernel_only("cos")
def tanh(x: Any) -> TileValue: return _kernel_only("tanh")
def abs(x: Any) -> TileValue: return _kernel_only("abs")
def floor(x: Any) -> TileValue: return _kernel_only("floor")
def ceil(x: Any) -> TileValue: return _kernel_only("ceil")
def maximum(x: Any, y: Any) -> TileValue: return _kernel_only("maximum")
def minimum(x: Any, y: Any) -> TileValue: return _kernel_only("minimum")
def where(cond: Any, x: Any, y: Any) -> TileValue: return _kernel_only("where")
def broadcast_to(x: Any, shape: Shape) -> TileValue: return _kernel_only("broadcast_to")
def permute(x: Any, axes: tuple[int, ...]) -> TileValue: return _kernel_only("permute")
def expand_dims(x: Any, axis: Axis) -> TileValue: return _kernel_only("expand_dims")
def cat(tiles: tuple[Any, ...], axis: Axis = 0) -> TileValue: return _kernel_only("cat")
def sum(x: Any, axis: Axis, keepdims: bool = False) -> TileValue:
    return _kernel_only("sum")
def max(x: Any, axis: Axis, keepdims: bool = False) -> TileValue:
    return _kernel_only("max")
def min(x: Any, axis: Axis, keepdims: bool = False) -> TileValue:
    return _kernel_only("min")
def prod(x: Any, axis: Axis, keepdims: bool = False) -> TileValue:
    return _kernel_only("prod")
def cumsum(x: Any, axis: Axis) -> TileValue: return _kernel_only("cumsum")
def mma(a: Any, b: Any, acc: Any) -> TileValue: return _kernel_only("mma")
def printf(fmt: str, *args: Any) -> None: _kernel_only("printf")
def device_assert(cond: Any, message: str = "") -> None: _kernel_only("device_assert")
