"""Run-time twins of the launch contract's rules that the parity cases do not pin down alone."""

from __future__ import annotations

import gc
import inspect
import warnings

import pytest

import cutile as ct
from cutile import Const, Mut, Tensor, f32
from cutile.compiler.hostapi import HANDLE_ATTRIBUTES, OP_ATTRIBUTES
from cutile.runtime.ops import ChainOp, DeviceOp, GraphOp, LaunchOp
from cutile.runtime.partition import Partition
from cutile.runtime.tensor import Tensor as HostTensor


@ct.kernel
def filled(z: Mut[Tensor[f32, (128,)]], B: Const[int]) -> None:
    z.store(ct.full((B,), 1.0, f32).reshape((128,)))  # cutile: ignore[CT208] (B=100 below)


@ct.kernel
def scale(z: Mut[Tensor[f32, (128,)]], x: Tensor[f32, (-1,)], alpha: f32) -> None:
    z.store(ct.load_tile_like(x, z) * alpha)


def test_sync_that_raised_is_not_reported_as_never_run() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        op = filled(ct.zeros((1024,), f32).partition((128,)), B=100)
        with pytest.raises(ct.KernelError, match="CT208"):
            op.sync()
        del op
        gc.collect()
    assert not [w for w in caught if issubclass(w.category, ct.LaunchNeverRunWarning)]


def test_unsynced_use_and_bad_unpack_are_launch_errors() -> None:
    x = ct.ones((1024,), f32)
    with pytest.raises(ct.LaunchError, match="cannot be indexed") as err:
        scale(ct.zeros((1024,), f32).partition((128,)), x, 1.0)[0]
    assert err.value.diagnostics[0].code == "CT406"
    with pytest.raises(ct.LaunchError, match=r"returns 3 values .* but 2 names receive them"):
        z, x = scale(ct.zeros((1024,), f32).partition((128,)), x, 1.0).sync()
    z, x, _ = scale(ct.zeros((1024,), f32).partition((128,)), x, 1.0).sync()  # still fine
    assert z.unpartition().numpy()[0] == 1.0


def test_op_attribute_list_matches_the_classes() -> None:
    public = {name for cls in (DeviceOp, LaunchOp, ChainOp, GraphOp)
              for name, _ in inspect.getmembers(cls) if not name.startswith("_")
              and name not in HANDLE_ATTRIBUTES}
    public |= {name for cls in (DeviceOp, LaunchOp, ChainOp) for name in cls.__slots__
               if not name.startswith("_")}
    assert public <= OP_ATTRIBUTES, public - OP_ATTRIBUTES


def test_handle_attribute_list_matches_tensors_and_partitions() -> None:
    public = {name for cls in (HostTensor, Partition) for name, _ in inspect.getmembers(cls)
              if not name.startswith("_")}
    public |= {name for cls in (HostTensor, Partition) for name in getattr(cls, "__slots__", ())
               if not name.startswith("_")}
    assert public == HANDLE_ATTRIBUTES
    assert not public & OP_ATTRIBUTES


def test_tensor_attribute_on_a_launch_is_a_launch_error() -> None:
    op = scale(ct.zeros((1024,), f32).partition((128,)), ct.ones((1024,), f32), 1.0)
    with pytest.raises(ct.LaunchError, match="has no attribute 'unpartition'"):
        op.unpartition()
    op.sync()
