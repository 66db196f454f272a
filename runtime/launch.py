"""Launching kernels (built by the runtime: argument checks, specialization, backends)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..compiler.errors import CutileError

if TYPE_CHECKING:
    from .kernel import Kernel


def launch(kernel: Kernel, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    raise CutileError(f"cannot launch {kernel.__name__}: the runtime has no launcher yet")
