"""Helpers of the per-op tests: lower and assemble a kernel of a test file, and run a launch on
the interpreter and on CUDA."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from lower_util import module, spec_for

from cutile.compiler.bytecode import decode
from cutile.compiler.compile import compile_kernel
from cutile.compiler.toolchain import KernelCompiler
from cutile.runtime import context

Case = tuple[str, dict[str, Any]]  # kernel name, Const values


def assemble(compiler: KernelCompiler, path: str | Path, cases: list[Case]) -> list[str]:
    """Lowers each case, assembles it with tileiras and returns the Tile IR texts."""
    info = module(path)
    texts = []
    for name, consts in cases:
        c = compile_kernel(info, name, spec_for(info, name, consts), compiler=compiler)
        assert c.cubin[:4] == b"\x7fELF", name
        assert [f.name for f in decode(c.bytecode).functions] == [name]
        texts.append(c.tileir)
    return texts


def assembled(compiler: KernelCompiler, path: str | Path, cases: list[Case]) -> dict[str, str]:
    """`assemble`'s texts by kernel name."""
    return dict(zip((c[0] for c in cases), assemble(compiler, path, cases), strict=True))


def on_interpreter(launch: Callable[[], Any]) -> Any:
    from cutile.runtime.backends.interpreter import InterpreterBackend

    old = context.set_backend(InterpreterBackend())
    try:
        return launch()
    finally:
        context.set_backend(old)


def host(values: Any) -> Any:
    """A launch's outputs as NumPy arrays (partitions unpartitioned)."""
    out = []
    for v in values:
        if hasattr(v, "unpartition"):
            v = v.unpartition()
        out.append(v.numpy() if hasattr(v, "numpy") else v)
    return out


def same(a: Any, b: Any, **tol: float) -> None:
    for x, y in zip(a, b, strict=True):
        if tol:
            np.testing.assert_allclose(x, y, **tol)
        else:
            np.testing.assert_array_equal(x, y)
