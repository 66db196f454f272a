"""A kernel defined in a function or a class body is found by its __qualname__ (two factories
may each define a kernel of one name); a name of the enclosing function is no constant: CT103
at the same line from the checker and the run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nested_kernels as k
import numpy as np
import pytest

import cutile as ct
from cutile import f32
from cutile.compiler.api import check_source

pytestmark = pytest.mark.usefixtures("backend")
X = np.arange(37 * 80, dtype=np.float32).reshape(37, 80) / 7


def _run(kernel: ct.Kernel) -> np.ndarray:
    y, _ = kernel(ct.zeros((37, 80), f32).partition((8, 32)), ct.from_numpy(X)).sync()
    return y.unpartition().numpy()


def test_kernels_made_by_factories_and_in_a_class_body() -> None:
    np.testing.assert_allclose(_run(k.make_scale()), 2 * X)
    np.testing.assert_allclose(_run(k.make_shift()), X + 1)  # same name, other factory
    np.testing.assert_allclose(_run(k.Ops.negate), -X)


def test_a_local_of_the_factory_is_ct103_at_edit_time_and_run_time() -> None:
    with pytest.raises(ct.KernelError) as err:
        _run(k.make_with_local())
    (diag,) = err.value.diagnostics
    source = Path(k.__file__).read_text(encoding="utf-8")
    line = 1 + next(i for i, t in enumerate(source.splitlines())
                    if t.startswith("        y.store(ct.load_tile_like(x, y) * factor)"))
    assert (diag.code, diag.span.line) == ("CT103", line)
    edit_time = [(d.code, d.span.line) for d in check_source(source, k.__file__)]
    assert edit_time == [("CT103", line)]


def test_a_kernel_without_source_is_ct906_not_a_traceback_from_cutile() -> None:
    """A program read from stdin (as a REPL) keeps no source: the launch says so with CT906.
    (`python -c` did too before Python 3.13, which keeps the `-c` text for tracebacks.)"""
    program = ("import cutile as ct\nfrom cutile import Mut, Tensor, f32\n@ct.kernel\n"
               "def k(z: Mut[Tensor[f32, (16,)]]) -> None:\n    z.store(ct.zeros((16,), f32))\n"
               "k(ct.zeros((16,), f32).partition((16,))).sync()\n")
    done = subprocess.run([sys.executable, "-"], input=program, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "CUTILE_BACKEND": "interpreter"})
    assert done.returncode == 1
    assert "CT906" in done.stderr and "cannot read the source of kernel 'k'" in done.stderr
    assert "KeyError" not in done.stderr


def test_nested_kernels_find_their_entry_in_the_cubin(toolchain: object) -> None:
    """The cubin's entry is the function's own name, not its qualname: through the null driver
    (which answers NOT_FOUND as the real one does) each nested kernel compiles for sm_90 and
    its function is found (on the H200 this was CT505 cuModuleGetFunction NOT_FOUND)."""
    pytest.importorskip("cuda.bindings")
    from benchmarks import launch_overhead

    with launch_overhead.null_cuda():
        for kernel in (k.make_scale(), k.make_shift(), k.Ops.negate):
            _run(kernel)
