"""The switch of the binding that calls cuLaunchKernel (runtime/cuda/driver.py):
`CUTILE_LAUNCH_BINDING=bindings|ctypes`. The ctypes launcher's argument plumbing and error
check run on the CPU against a recording stand-in for the driver symbol; the GPU test runs a
kernel through each binding."""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np
import pytest
import rt_kernels as k

import cutile as ct
from cutile import f32

driver = pytest.importorskip("cutile.runtime.cuda.driver")


class Recorder:
    """Stands in for libcuda's cuLaunchKernel: records the arguments, returns `code`."""

    def __init__(self, code: int = 0) -> None:
        self.code = code
        self.calls: list[tuple[Any, ...]] = []

    def __call__(self, *args: Any) -> int:
        self.calls.append(args)
        return self.code


def test_ctypes_launcher_passes_pointers_and_grid() -> None:
    call = Recorder()
    launch = driver.ctypes_launcher(0x7F00_0000_1000, call)
    launch((4, 2, 1), 0x7F00_0000_2000, 0x7F00_0000_3000)
    launch((4, 2, 1), 0x7F00_0000_2000, 0x7F00_0000_3000)
    launch((1, 1, 1), 0, 0x7F00_0000_4000)  # the null stream: a NULL pointer
    first, second, third = call.calls
    fn, gx, gy, gz, bx, by, bz, shared, stream, params, extra = first
    assert isinstance(fn, ctypes.c_void_p) and fn.value == 0x7F00_0000_1000
    assert (gx, gy, gz, bx, by, bz, shared, extra) == (4, 2, 1, 1, 1, 1, 0, None)
    assert stream.value == 0x7F00_0000_2000 and params.value == 0x7F00_0000_3000
    # the pointer objects are built once per value
    assert second[8] is stream and second[9] is params and second[0] is fn
    assert third[8].value is None and third[9].value == 0x7F00_0000_4000


def test_ctypes_launcher_failure_is_ct505_naming_the_error() -> None:
    launch = driver.ctypes_launcher(1, Recorder(code=700))
    with pytest.raises(ct.DeviceError) as err:
        launch((1, 1, 1), 1, 1)
    diag = err.value.diagnostics[0]
    assert diag.code == "CT505"
    assert "cuLaunchKernel" in diag.message and "CUDA_ERROR_ILLEGAL_ADDRESS" in diag.message


def test_binding_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(driver.BINDING_ENV, raising=False)
    assert driver.launch_binding() == "bindings"
    monkeypatch.setenv(driver.BINDING_ENV, " CTypes ")
    assert driver.launch_binding() == "ctypes"
    monkeypatch.setenv(driver.BINDING_ENV, "cffi")
    with pytest.raises(ct.CutileError) as err:
        driver.launch_binding()
    assert err.value.diagnostics[0].code == "CT901"
    assert "'cffi'" in err.value.diagnostics[0].message


@pytest.mark.gpu
@pytest.mark.parametrize("binding", driver.BINDINGS)
def test_each_binding_launches(binding: str, cuda: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from cutile.runtime import context

    monkeypatch.setenv(driver.BINDING_ENV, binding)
    old = context.set_backend(cuda)
    try:
        add = k.add.with_hints()  # a fresh kernel object: its executable gets this launcher
        x, y = ct.rand((10_000,), f32, seed=1), ct.rand((10_000,), f32, seed=2)
        op = add(ct.zeros((10_000,), f32).partition((1024,)), x, y)
        for _ in range(9):
            op = op.then(add)
        z, x, y = op.sync()
        np.testing.assert_array_equal(z.unpartition().numpy(), x.numpy() + y.numpy())
    finally:
        context.set_backend(old)
