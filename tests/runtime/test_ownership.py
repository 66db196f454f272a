"""Ownership errors: every CT3xx the runtime raises, with its code and both sites."""

from __future__ import annotations

import gc
import warnings

import numpy as np
import pytest
import rt_kernels as k
from rt_util import line_of

import cutile as ct
from cutile import f32
from cutile.runtime.ownership import State


def test_use_after_partition_names_both_sites() -> None:
    x = ct.zeros((256,), f32)
    p = x.partition((128,))  # partition-site
    with pytest.raises(ct.OwnershipError) as err:
        x.numpy()  # use-site
    (d,) = err.value.diagnostics
    assert d.code == "CT301"
    assert d.message == "'x' was moved by .partition() and cannot be used here"
    assert d.span.line == line_of("# use-site") and d.span.path == __file__
    (note,) = d.notes
    assert note.message == "'x' was moved here"
    assert note.span is not None and note.span.line == line_of("# partition-site")
    assert p.state is State.LIVE and x.state is State.MOVED


def test_use_after_move_into_pending_launch() -> None:
    x, y = ct.ones((256,), f32), ct.ones((256,), f32)
    z = ct.zeros((256,), f32).partition((128,))
    op = k.add(z, x, y)  # launch-site
    with pytest.raises(ct.OwnershipError) as err:
        z.unpartition()  # use-site
    (d,) = err.value.diagnostics
    assert d.code == "CT301"
    assert "moved into a launch of 'add' that has not been synced" in d.message
    assert d.span.line == line_of("# use-site")
    assert d.notes[0].span is not None and d.notes[0].span.line == line_of("# launch-site")
    z2, _, _ = op.sync()
    with pytest.raises(ct.OwnershipError, match="'z' was moved into a launch of 'add' and"):
        z.unpartition()
    assert z2.unpartition().numpy()[0] == 2.0


def test_moved_partition_as_launch_argument_points_at_argument() -> None:
    x, y = ct.ones((256,), f32), ct.ones((256,), f32)
    z = ct.zeros((256,), f32).partition((128,))
    t = z.unpartition()
    with pytest.raises(ct.OwnershipError) as err:
        k.add(z, x, y)  # call-site
    (d,) = err.value.diagnostics
    assert d.code == "CT301" and d.span.line == line_of("# call-site")
    assert d.span.end_col - d.span.col == 1  # just `z`
    assert d.notes[0].message == "'z' was moved here"
    assert t.state is State.LIVE


def test_aliased_mut_and_input() -> None:
    arr = np.zeros(256, dtype=np.float32)
    a, b = ct.from_dlpack(arr), ct.from_dlpack(arr)  # two handles, one storage
    y = ct.ones((256,), f32)
    zp = a.partition((128,))
    with pytest.raises(ct.OwnershipError) as err:
        k.add(zp, b, y)  # alias-site
    (d,) = err.value.diagnostics
    assert d.code == "CT302"
    # 'b' is not passed as 'z' ('zp' is): the message says which value is the Mut argument
    assert d.message == ("'b', passed to 'add' as parameter 'x', overlaps 'zp', passed as Mut "
                         "parameter 'z'; a Mut argument must not share storage with another "
                         "argument")
    assert d.span.line == line_of("# alias-site")
    assert d.notes[0].span is not None and "'zp' is passed here as Mut" in d.notes[0].message
    assert zp.state is State.LIVE and b.state is State.LIVE  # nothing was committed


def test_same_partition_as_two_mut_arguments() -> None:
    zp = ct.zeros((64,), f32).partition((16,))
    with pytest.raises(ct.OwnershipError) as err:
        k.pair(zp, zp)
    assert err.value.diagnostics[0].code == "CT302"
    assert err.value.diagnostics[0].message.startswith(
        "'zp' is passed to 'pair' both as Mut parameter")


def test_partition_while_leased_then_after_sync() -> None:
    x, y = ct.ones((256,), f32), ct.ones((256,), f32)
    z = ct.zeros((256,), f32).partition((128,))
    op = k.add(z, x, y)  # lease-site
    assert x.state is State.SHARED
    with pytest.raises(ct.OwnershipError) as err:
        x.partition((128,))  # write-site
    (d,) = err.value.diagnostics
    assert d.code == "CT303"
    assert d.message == ("'x' is read by a pending launch of 'add' and cannot be partitioned "
                         "until that launch is synced")
    assert d.span.line == line_of("# write-site")
    assert d.notes[0].message == "leased here to a launch of 'add'"
    assert d.notes[0].span is not None and d.notes[0].span.line == line_of("# lease-site")
    x.numpy()  # reading a leased tensor is fine
    op.sync()
    assert x.state is State.LIVE
    x.partition((128,))


def test_reshape_while_leased() -> None:
    x, y = ct.ones((256,), f32), ct.ones((256,), f32)
    op = k.add(ct.zeros((256,), f32).partition((128,)), x, y)
    with pytest.raises(ct.OwnershipError, match="cannot be reshaped"):
        y.reshape((16, 16))
    op.sync()


def test_shared_input_in_two_launches() -> None:
    x, y = ct.ones((256,), f32), ct.ones((256,), f32)
    op1 = k.add(ct.zeros((256,), f32).partition((128,)), x, y)
    op2 = k.add(ct.zeros((256,), f32).partition((128,)), x, x)
    assert x._own.readers == 3
    op1.sync()
    assert x.state is State.SHARED
    op2.sync()
    assert x.state is State.LIVE


def test_unpartitioned_mut() -> None:
    x, y, z = ct.ones((256,), f32), ct.ones((256,), f32), ct.zeros((256,), f32)
    with pytest.raises(ct.OwnershipError) as err:
        k.add(z, x, y)  # call-site
    (d,) = err.value.diagnostics
    assert d.code == "CT304"
    assert d.message == ("Mut parameter 'z' of 'add' needs a partition; pass "
                         "z.partition(tile_shape) instead of the tensor")
    assert d.span.line == line_of("# call-site")


def test_launch_never_run_warns_at_creation_and_frees_leases() -> None:
    x, y = ct.ones((256,), f32), ct.ones((256,), f32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        k.add(ct.zeros((256,), f32).partition((128,)), x, y)  # dropped-site
        gc.collect()
    (w,) = [w for w in caught if issubclass(w.category, ct.LaunchNeverRunWarning)]
    assert str(w.message).startswith("CT305 this launch of 'add' is never run")
    assert w.lineno == line_of("# dropped-site") and w.filename == __file__
    assert x.state is State.LIVE
    x.partition((128,))


def test_reshape_moves_and_views() -> None:
    x = ct.arange(16, f32)
    m = x.reshape((4, 4))
    assert m.shape == (4, 4) and m.numpy()[1, 0] == 4.0
    with pytest.raises(ct.OwnershipError, match="moved by reshape"):
        x.shape  # noqa: B018


def test_unpartition_moves_partition() -> None:
    p = ct.zeros((64,), f32).partition((32,))
    t = p.unpartition()
    assert t.shape == (64,)
    with pytest.raises(ct.OwnershipError, match=r"moved by \.unpartition"):
        p.unpartition()


def test_leases_from_one_reader_to_several_and_back() -> None:
    # one reader is kept without a list; a second reader, a dropped launch's lease and the
    # syncs in any order must still leave the right readers (and CT303 names a pending one)
    x, y = ct.ones((256,), f32), ct.ones((256,), f32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ct.LaunchNeverRunWarning)
        k.add(ct.zeros((256,), f32).partition((128,)), x, y)
        gc.collect()
    op1 = k.add(ct.zeros((256,), f32).partition((128,)), x, y)  # the dead lease is replaced
    assert x._own.readers == 1
    op2 = k.add(ct.zeros((256,), f32).partition((128,)), y, x)  # second-site
    assert x._own.readers == 2 and x.state is State.SHARED
    op1.sync()
    assert x._own.readers == 1
    with pytest.raises(ct.OwnershipError) as err:
        x.reshape((16, 16))
    (d,) = err.value.diagnostics
    assert d.code == "CT303"
    assert d.notes[0].span is not None and d.notes[0].span.line == line_of("# second-site")
    op2.sync()
    assert x.state is State.LIVE and y.state is State.LIVE
    x.reshape((16, 16))
