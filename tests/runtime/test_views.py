"""Host views: slicing, narrow, view, permute, split_at; region leases (CT302/CT303/CT307);
strided tensors in kernels (interpreter, compared with NumPy)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import view_kernels as vk
from rt_util import line_of

import cutile as ct
from cutile import f32


def _grid(shape: tuple[int, ...]) -> np.ndarray:
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)


def test_views_match_numpy() -> None:
    a = _grid((6, 8, 5))
    t = ct.from_numpy(a)
    cases = [
        (t[1:5, :, 2], a[1:5, :, 2]),
        (t[..., 3], a[..., 3]),
        (t[-1], a[-1]),
        (t[::2, 1::3, 1:4], a[::2, 1::3, 1:4]),
        (t.narrow(1, 2, 3), a[:, 2:5]),
        (t.narrow(-1, 0, 0), a[..., 0:0]),
        (t.permute(2, 0, 1), a.transpose(2, 0, 1)),
        (t.permute((1, 0, 2))[2:4], a.transpose(1, 0, 2)[2:4]),
        (t.view((48, 5)), a.reshape(48, 5)),
        (t[2].view(-1), a[2].reshape(-1)),
        (t[1:3].permute(2, 1, 0)[1, ::2], a[1:3].transpose(2, 1, 0)[1, ::2]),
    ]
    for v, want in cases:
        assert v.shape == want.shape
        assert v.strides == tuple(s // 4 for s in want.strides) or want.size == 0
        np.testing.assert_array_equal(v.numpy(), want)
    lo, hi = t.split_at(1, 3)
    np.testing.assert_array_equal(lo.numpy(), a[:, :3])
    np.testing.assert_array_equal(hi.numpy(), a[:, 3:])
    assert t[1:3].data_ptr == t.data_ptr + 1 * 8 * 5 * 4  # same memory, an offset


@pytest.mark.parametrize(("make", "detail"), [
    (lambda t: t[7], "index 7 is out of range for axis 0 of extent 6"),
    (lambda t: t[::-1], "slice steps must be positive, not -1"),
    (lambda t: t[::0], "slice steps must be positive, not 0"),
    (lambda t: t[1, 2, 3], "too many indices (3) for a tensor of rank 2"),
    (lambda t: t[[0, 1]], "views take ints, slices and '...'"),
    (lambda t: t.narrow(0, 4, 3), "narrow(0, 4, 3) needs 0 <= start and start + length <= 6"),
    (lambda t: t.narrow(2, 0, 1), "axis 2 is out of range for a tensor of rank 2"),
    (lambda t: t.split_at(1, 9), "split_at(1, 9) needs 0 <= k <= 8"),
    (lambda t: t.permute(0, 0), "permute((0, 0)) must name each of the 2 axes once"),
    (lambda t: t.permute(1, 0).view(48), "view((48,)) needs a contiguous tensor"),
    (lambda t: t[:, 1:].view((42,)), "needs a contiguous tensor"),
])
def test_bad_views_are_ct406(make: object, detail: str) -> None:
    t = ct.from_numpy(_grid((6, 8)))
    with pytest.raises(ct.LaunchError) as err:
        make(t)  # type: ignore[operator]
    (d,) = err.value.diagnostics
    assert d.code == "CT406" and d.message.startswith("view: ") and detail in d.message
    assert d.span.path == __file__


def test_view_reshape_to_wrong_size() -> None:
    with pytest.raises(ct.LaunchError) as err:
        ct.from_numpy(_grid((6, 8))).view((5, 5))
    assert err.value.diagnostics[0].code == "CT406"


def test_split_halves_are_both_mutable_in_one_launch() -> None:
    a = _grid((8, 8))
    t = ct.from_numpy(a)
    left, right = t.split_at(1, 4)  # column halves: their bytes interleave, their boxes do not
    vk.pair2(left.partition((4, 4)), right.partition((4, 4))).sync()
    want = np.concatenate([np.full((8, 4), 1.0), np.full((8, 4), 2.0)], axis=1)
    np.testing.assert_array_equal(t.numpy(), want)


def test_overlapping_mut_views_in_one_launch_are_ct302() -> None:
    t = ct.zeros((8, 8), f32)
    with pytest.raises(ct.OwnershipError) as err:
        vk.pair2(t[0:4].partition((4, 4)), t[2:6].partition((4, 4)))  # alias-site
    (d,) = err.value.diagnostics
    assert d.code == "CT302" and d.span.line == line_of("# alias-site")


def test_mut_view_and_overlapping_input_are_ct302() -> None:
    t = ct.zeros((8, 8), f32)
    with pytest.raises(ct.OwnershipError) as err:
        vk.double2(t[:, 0:4].partition((4, 4)), t[:, 2:6])
    assert err.value.diagnostics[0].code == "CT302"
    # a disjoint input is fine: the columns 4..8 read, 0..4 written
    t2 = ct.from_numpy(_grid((8, 8)))
    vk.double2(t2[:, 0:4].partition((4, 4)), t2[:, 4:8]).sync()
    np.testing.assert_array_equal(t2.numpy()[:, :4], 2 * _grid((8, 8))[:, 4:])


def test_pending_reader_and_disjoint_writer_run_together() -> None:
    a = _grid((8, 4))
    t = ct.from_numpy(a)
    out = ct.zeros((4, 4), f32)
    reader = vk.double2(out.partition((4, 4)), t[0:4])  # reads rows 0..4
    writer = vk.inc2(t[4:8].partition((2, 4)))  # writes rows 4..8
    (o, _) = reader.sync()
    writer.sync()
    np.testing.assert_array_equal(o.unpartition().numpy(), 2 * a[0:4])
    np.testing.assert_array_equal(t.numpy(), np.concatenate([a[0:4], a[4:8] + 1]))


def test_partition_of_a_view_another_launch_reads_is_ct303() -> None:
    t = ct.from_numpy(_grid((8, 4)))
    reader = vk.double2(ct.zeros((4, 4), f32).partition((4, 4)), t[0:4])  # lease-site
    with pytest.raises(ct.OwnershipError) as err:
        t[2:6].partition((2, 4))  # write-site
    (d,) = err.value.diagnostics
    assert d.code == "CT303"
    assert d.message == ("'t[2:6]' overlaps a region that a pending launch of 'double2' reads "
                         "and cannot be partitioned until that launch is synced")
    assert d.span.line == line_of("# write-site")
    assert d.notes[0].span is not None and d.notes[0].span.line == line_of("# lease-site")
    t[4:8].partition((2, 4))  # disjoint: fine
    reader.sync()
    t[2:6].partition((2, 4))  # synced: fine


def test_base_read_before_view_is_seen_by_the_view() -> None:
    t = ct.from_numpy(_grid((8, 4)))
    reader = vk.double2(ct.zeros((8, 4), f32).partition((4, 4)), t)  # the whole tensor
    with pytest.raises(ct.OwnershipError) as err:
        t[6:8].partition((2, 4))
    assert err.value.diagnostics[0].code == "CT303"
    reader.sync()


def test_partition_then_reader_then_launch_is_ct303() -> None:
    t = ct.from_numpy(_grid((8, 4)))
    p = t[0:4].partition((4, 4))
    reader = vk.double2(ct.zeros((4, 4), f32).partition((4, 4)), t[2:6])
    with pytest.raises(ct.OwnershipError) as err:
        vk.inc2(p)  # launch-site
    (d,) = err.value.diagnostics
    assert d.code == "CT303" and "cannot be passed to a Mut parameter" in d.message
    assert d.span.line == line_of("# launch-site")
    reader.sync()
    vk.inc2(p).sync()


def test_base_used_while_a_view_is_written_is_ct307() -> None:
    a = _grid((8, 4))
    t = ct.from_numpy(a)
    writer = vk.inc2(t[0:4].partition((2, 4)))  # lease-site
    with pytest.raises(ct.OwnershipError) as err:
        t.numpy()  # use-site
    (d,) = err.value.diagnostics
    assert d.code == "CT307"
    assert d.message == ("'t' overlaps a region that a pending launch of 'inc2' writes and "
                         "cannot be copied to the host until that launch is synced")
    assert d.span.line == line_of("# use-site")
    assert d.notes[0].span is not None and d.notes[0].span.line == line_of("# lease-site")
    with pytest.raises(ct.OwnershipError, match="a pending launch of 'inc2' writes"):
        t.partition((4, 4))
    with pytest.raises(ct.OwnershipError) as err2:
        vk.double2(ct.zeros((4, 4), f32).partition((4, 4)), t[3:7])
    assert err2.value.diagnostics[0].code == "CT307"
    np.testing.assert_array_equal(t[4:8].numpy(), a[4:8])  # disjoint: readable
    writer.sync()
    np.testing.assert_array_equal(t.numpy(), np.concatenate([a[0:4] + 1, a[4:8]]))


def test_two_pending_writers_of_overlapping_views_are_ct307() -> None:
    t = ct.zeros((8, 4), f32)
    first = vk.inc2(t[0:4].partition((2, 4)))
    with pytest.raises(ct.OwnershipError) as err:
        t[3:5].partition((2, 4))
    assert err.value.diagnostics[0].code == "CT307"
    first.sync()


def test_views_of_a_permuted_view_lease_their_own_box() -> None:
    t = ct.zeros((4, 8), f32)
    tt = t.permute(1, 0)  # (8, 4); rows of tt are columns of t
    writer = vk.inc2(tt[0:4].partition((4, 4)))  # t[:, 0:4]
    np.testing.assert_array_equal(t[:, 4:8].numpy(), np.zeros((4, 4)))
    with pytest.raises(ct.OwnershipError):
        t[:, 3:5].numpy()
    writer.sync()
    np.testing.assert_array_equal(t.numpy(), np.concatenate([np.ones((4, 4)),
                                                             np.zeros((4, 4))], axis=1))


def test_view_of_view_shape_leases_conservatively() -> None:
    t = ct.zeros((8, 4), f32)
    flat = t[0:4].view((16,))  # the same elements: rows 0..4
    writer = vk.inc1(flat.partition((16,)))
    t[4:8].numpy()  # outside the box
    with pytest.raises(ct.OwnershipError):
        flat[12:16].numpy()  # inside the box: the axis map is gone, so the whole box counts
    writer.sync()
    np.testing.assert_array_equal(t.numpy()[0:4], np.ones((4, 4)))


def test_interleaved_strided_views_do_not_overlap() -> None:
    a = _grid((8, 6))
    t = ct.from_numpy(a)
    # red-black by rows, then by columns: no element is shared, so one launch may take both
    vk.double2(t[::2].partition((4, 6)), t[1::2]).sync()
    want = a.copy()
    want[::2] = 2 * a[1::2]
    np.testing.assert_array_equal(t.numpy(), want)
    vk.double2(t[:, 1::2].partition((8, 3)), t[:, ::2]).sync()
    want[:, 1::2] = 2 * want[:, ::2]
    np.testing.assert_array_equal(t.numpy(), want)
    vk.pair2(t[::3, ::2].partition((2, 2)), t[1::3, ::2].partition((2, 2))).sync()
    np.testing.assert_array_equal(t.numpy()[1::3, ::2], np.full((3, 3), 2.0))
    # two pending writers of the two colours run together
    red = vk.inc2(t[::2].partition((4, 6)))
    black = vk.inc2(t[1::2].partition((4, 6)))
    red.start()
    black.sync()
    red.sync()


@pytest.mark.parametrize(("mut", "other"), [
    (lambda t: t[::2], lambda t: t[2::2]),  # rows 2, 4, 6 in both
    (lambda t: t[::3], lambda t: t[1::2]),  # row 3 in both
    (lambda t: t[:, ::2], lambda t: t[:, 4:5]),  # column 4
    (lambda t: t[1::2, ::3], lambda t: t.permute(1, 0)[3, 5:6]),  # element (5, 3)
])
def test_strided_views_sharing_an_element_are_ct302(mut: Any, other: Any) -> None:
    t = ct.zeros((8, 6), f32)
    m, o = mut(t), other(t)
    with pytest.raises(ct.OwnershipError) as err:
        vk.double2(m.partition(m.shape), o if o.ndim == 2 else o.view((1, 1)))
    assert err.value.diagnostics[0].code == "CT302"


def test_a_pending_writer_of_one_colour_leases_only_its_elements() -> None:
    t = ct.zeros((8, 6), f32)
    writer = vk.inc2(t[::2].partition((4, 6)))
    writer.start()
    t[1::2].numpy()  # the other colour: fine
    with pytest.raises(ct.OwnershipError, match="CT307"):
        t[2::4].numpy()  # rows 2 and 6: written
    writer.sync()


def test_boxes_intersect_is_exact_for_index_progressions() -> None:
    from cutile.compiler.launch.regions import boxes_intersect

    rng = np.random.default_rng(0)
    for _ in range(3000):
        lo = rng.integers(0, 12, 2)
        step = rng.integers(1, 6, 2)
        count = rng.integers(0, 6, 2)
        hi = lo + np.maximum(count - 1, 0) * step + (count > 0)
        a, b = ((int(lo[i]), int(hi[i]), int(step[i])) for i in range(2))
        want = bool(set(range(*a)) & set(range(*b)))
        assert boxes_intersect((a, (0, 4, 1)), (b, (2, 3, 1))) is want, (a, b)
        assert not boxes_intersect((a, (0, 4, 2)), (b, (1, 4, 2)))  # never on axis 1


# -- strided tensors in kernels (interpreter; test_views_gpu.py runs the same on the GPU) ------
def test_strided_input_matches_numpy() -> None:
    a = _grid((16, 12))
    t = ct.from_numpy(a)
    for v, want in [(t[::2, 1::2], a[::2, 1::2]), (t.permute(1, 0)[0:8], a.T[0:8]),
                    (t[3:11, 2:10], a[3:11, 2:10])]:
        out = ct.zeros(want.shape, f32)
        (o, _) = vk.double2(out.partition((4, 2)), v).sync()
        np.testing.assert_array_equal(o.unpartition().numpy(), 2 * want)


def test_mut_partition_of_a_strided_view_matches_numpy() -> None:
    a = _grid((12, 10))
    t = ct.from_numpy(a)
    vk.inc2(t.permute(1, 0)[2:8, 1:11].partition((4, 4))).sync()  # a transposed, offset window
    want = a.copy()
    want.T[2:8, 1:11] += 1
    np.testing.assert_array_equal(t.numpy(), want)
    vk.inc2(t[::3, 1::2].partition((2, 4))).sync()  # every third row, every other column
    want[::3, 1::2] += 1
    np.testing.assert_array_equal(t.numpy(), want)


def test_strided_numpy_import_as_kernel_input_and_output() -> None:
    base = _grid((10, 12))
    src = ct.from_dlpack(base[1::2, ::3])  # a non-contiguous NumPy array, zero copy
    assert not src.is_contiguous() and src.strides == (24, 3)
    out_host = np.zeros((12, 10), dtype=np.float32)
    dst = ct.from_dlpack(out_host.T[::2])  # shape (5, 12) with strides (2, 10)
    (d, _) = vk.double2(dst[:, 0:4].partition((2, 4)), src[:, 0:4]).sync()
    np.testing.assert_array_equal(out_host.T[::2][:, 0:4], 2 * base[1::2, ::3][:, 0:4])
    assert d.unpartition().strides == (2, 10)


# -- DLPack ------------------------------------------------------------------------------------
def test_dlpack_exports_a_view_with_its_strides() -> None:
    a = _grid((6, 8))
    t = ct.from_numpy(a)
    for v, want in [(t[1:5, ::2], a[1:5, ::2]), (t.permute(1, 0), a.T), (t[2], a[2]),
                    (t.split_at(1, 3)[1], a[:, 3:])]:
        got = np.from_dlpack(v)
        assert got.strides == want.strides
        np.testing.assert_array_equal(got, want)
    shared = np.from_dlpack(t[1:3, 2:4])
    vk.inc2(t[1:3, 2:4].partition((2, 2))).sync()
    np.testing.assert_array_equal(shared, a[1:3, 2:4] + 1)  # zero copy: the same memory


def test_dlpack_export_of_a_region_being_written_is_ct307() -> None:
    t = ct.zeros((8, 4), f32)
    writer = vk.inc2(t[0:4].partition((4, 4)))
    with pytest.raises(ct.OwnershipError) as err:
        np.from_dlpack(t[2:6])
    assert err.value.diagnostics[0].code == "CT307"
    np.from_dlpack(t[4:8])
    writer.sync()


def test_zero_stride_import_cannot_be_partitioned() -> None:
    row = np.arange(4, dtype=np.float32)
    b = np.lib.stride_tricks.as_strided(row, (8, 4), (0, 4))  # stride 0 on axis 0, writable
    t = ct.from_dlpack(b)
    assert t.strides == (0, 1)
    out = ct.zeros((8, 4), f32)
    (o, _) = vk.double2(out.partition((4, 4)), t).sync()  # reading it is fine
    np.testing.assert_array_equal(o.unpartition().numpy(), 2 * b)
    with pytest.raises(ct.LaunchError) as err:
        t.partition((4, 4))
    (d,) = err.value.diagnostics
    assert d.code == "CT408" and "stride 0" in d.message


# -- lowering: what a strided view passes to a compiled kernel -----------------------------------
def test_a_strided_mut_view_passes_its_address_shape_and_strides() -> None:
    pytest.importorskip("cuda.bindings")
    from fake_cuda import decode_params

    from cutile.compiler.compile import lower_kernel
    from cutile.compiler.dtypes import F32
    from cutile.runtime.backends.base import Buffer, Device
    from cutile.runtime.backends.pack import Packer
    from cutile.runtime.sites import caller_site
    from cutile.runtime.tensor import Tensor, contiguous_strides

    ptr = 0x7F00_0000_1000
    base = Tensor(None, Buffer(Device("cuda", 0), ptr, 1 << 20), 0, (12, 10),
                  contiguous_strides((12, 10)), F32)
    z = base.permute(1, 0)[2:6, 1:9]  # shape (4, 8), strides (1, 10), 2 + 10 elements in
    x = base[9:12, 1::3]  # shape (3, 3), strides (10, 3); rows 9..12, disjoint from z's 1..9
    bound = vk.double2.binder().bind((z.partition((2, 4)), x), {}, caller_site())
    slots = lower_kernel(vk.double2.module(), "double2", bound.spec).slots
    packer = Packer(slots)  # owns the parameter buffer that decode_params reads
    got = decode_params(packer.pack(bound.values), slots)
    meaning = {(0, "ptr", 0): ptr + 12 * 4, (0, "shape", 0): 4, (0, "shape", 1): 8,
               (0, "stride", 0): 1, (0, "stride", 1): 10, (1, "ptr", 0): ptr + 91 * 4,
               (1, "shape", 0): 3, (1, "shape", 1): 3, (1, "stride", 0): 10,
               (1, "stride", 1): 3}
    assert got == tuple(meaning[(s.arg, s.field, s.axis)] for s in slots)
    assert {(s.arg, s.field) for s in slots} >= {(0, "stride"), (1, "stride")}


@ct.kernel
def _acc_add(out: ct.Acc[ct.Tensor[f32, (-1,)], "add"],  # noqa: UP037 (the op, not a type)
             x: ct.Tensor[f32, (-1,)]) -> None:
    i = ct.block_id(0)
    out.add(x.load_tile((16,), (i,)), (i,))


def test_acc_views_lease_their_regions_as_writes() -> None:
    t = ct.zeros((64,), f32)
    lo, hi = t.split_at(0, 32)
    x = ct.ones((32,), f32)
    a = _acc_add(lo, x, grid=2)  # pending: it writes rows 0..32 only
    b = _acc_add(hi, x, grid=2)  # a disjoint region: runs alongside
    with pytest.raises(ct.CutileError) as err:
        t.numpy()  # overlaps both pending writers
    assert err.value.diagnostics[0].code == "CT307"
    lo, _ = a.sync()
    hi, _ = b.sync()
    np.testing.assert_array_equal(t.numpy(), np.ones(64, np.float32))


def test_negative_strides_compile_to_ct508_for_the_gpu() -> None:
    """The interpreter takes any strides; a compiled kernel reads through TMA, which needs
    positive ones: the compile is refused before tileiras with CT508 at the parameter."""
    a = np.arange(32 * 32, dtype=np.float32).reshape(32, 32)
    src = ct.from_dlpack(a[::-1])
    out = ct.zeros((32, 32), f32).partition((16, 16))
    with pytest.raises(ct.CutileError) as err:
        vk.double2.compile(out, src, arch="sm_90")
    assert err.value.diagnostics[0].code == "CT508"
    assert "negative strides (-32, 1)" in err.value.diagnostics[0].message


def test_views_of_a_broadcast_import_differing_on_its_stride_0_axis_overlap() -> None:
    """A writable import whose rows are one row in memory (stride 0): `t[0]` written and
    `t[1]` read are the same elements, so CT302, whatever their indices say."""
    a = np.zeros(8, np.float32)
    b = np.lib.stride_tricks.as_strided(a, shape=(4, 8), strides=(0, 4), writeable=True)
    t = ct.from_dlpack(b)
    with pytest.raises(ct.OwnershipError) as err:
        vk.add_one(t[0].partition((8,)), t[1]).sync()
    assert err.value.diagnostics[0].code == "CT302"
    np.testing.assert_array_equal(a, 0)  # nothing ran
