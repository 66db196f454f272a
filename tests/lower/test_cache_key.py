"""The compile cache key is made before specializing or lowering: it must still change whenever
the generated code could, and a rerun with nothing changed must hit without lowering."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from lower_util import module, spec_for

from cutile.compiler import compile as compile_mod
from cutile.compiler.compile import compile_kernel, specialization_key
from cutile.compiler.dtypes import F16, DType
from cutile.compiler.specialization import MutFacts, Specialization, TensorFacts
from cutile.compiler.toolchain import DiskCache, KernelCompiler, Toolchain
from cutile.reader.source import ModuleInfo

SOURCE = '''
import cutile as ct
from cutile import Const, Mut, Tensor, f32

SCALE = 2.0


@ct.function
def twice(t):
    return t * SCALE


@ct.kernel
def scale(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], B: Const[int]) -> None:
    z.store(twice(ct.load_tile_like(x, z)))
'''


def _info(source: str = SOURCE) -> ModuleInfo:
    return module("/virtual/scaled.py", source)


def _spec(info: ModuleInfo, b: int = 128, **opts: object) -> Specialization:
    return spec_for(info, "scale", {"B": b}, **opts)  # type: ignore[arg-type]


def _digest(info: ModuleInfo, spec: Specialization) -> str:
    return specialization_key(info, "scale", spec).digest()


def _with_dtype(spec: Specialization, dtype: DType) -> Specialization:
    args = []
    for f in spec.args:
        if isinstance(f, MutFacts):
            f = replace(f, tensor=replace(f.tensor, dtype=dtype))
        elif isinstance(f, TensorFacts):
            f = replace(f, dtype=dtype)
        args.append(f)
    return replace(spec, args=tuple(args))


def _with_whole(spec: Specialization) -> Specialization:
    z = spec.args[0]
    assert isinstance(z, MutFacts)
    return replace(spec, args=(replace(z, whole=(True,)), *spec.args[1:]))


def test_key_changes_with_everything_that_feeds_lowering() -> None:
    info = _info()
    spec = _spec(info)
    base = _digest(info, spec)
    assert _digest(_info(), _spec(_info())) == base  # a fresh parse of the same text
    variants = {
        "helper body": _digest(_info(SOURCE.replace("t * SCALE", "t * SCALE + 1.0")), spec),
        "module constant": _digest(_info(SOURCE.replace("SCALE = 2.0", "SCALE = 3.0")), spec),
        "decorator option": _digest(_info(SOURCE.replace("@ct.kernel\n",
                                                         "@ct.kernel(occupancy=2)\n")), spec),
        "const": _digest(info, _spec(info, b=256)),
        "hint": _digest(info, replace(spec, hints=(("occupancy", 2),))),
        "opt_level hint": _digest(info, replace(spec, hints=(("opt_level", 1),))),
        "arch": _digest(info, replace(spec, arch="sm_100")),
        "dtype": _digest(info, _with_dtype(spec, F16)),
        "alignment": _digest(info, _spec(info, align=4)),
        "contiguity": _digest(info, _spec(info, contiguous=False)),
        "persistence": _digest(info, _spec(info, persistent=True)),
        # the lowering reads `whole` (a slab spanning its axis goes through the tensor's view)
        "whole slab": _digest(info, _with_whole(spec)),
    }
    assert base not in variants.values()
    assert len(set(variants.values())) == len(variants), variants


def test_key_options_follow_the_lowering_merge() -> None:
    """A hint equal to the decorator's option gives the decorator's key; opt_level is read
    without lowering."""
    info = _info(SOURCE.replace("@ct.kernel\n", "@ct.kernel(opt_level=1)\n"))
    spec = _spec(info)
    key = specialization_key(info, "scale", spec)
    assert key.opt_level == 1
    assert specialization_key(info, "scale", replace(spec, hints=(("opt_level", 2),))
                              ).opt_level == 2


@pytest.fixture
def fresh_disk(tmp_path: Path) -> DiskCache:
    return DiskCache(tmp_path / "cache")


def test_rerun_hits_disk_without_lowering(toolchain: Toolchain, fresh_disk: DiskCache,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    info = _info()
    first = compile_kernel(info, "scale", _spec(info),
                           compiler=KernelCompiler(toolchain, fresh_disk))
    assert first.source == "tileiras"

    def no_lowering(*args: object, **kwargs: object) -> None:
        raise AssertionError("a cache hit lowered the kernel")

    monkeypatch.setattr(compile_mod, "lower_kernel", no_lowering)
    again = compile_kernel(_info(), "scale", _spec(_info()),  # a new process: new parse, memory
                           compiler=KernelCompiler(toolchain, fresh_disk))
    assert again.source == "disk"
    assert again.cubin == first.cubin and again.slots == first.slots
    assert again.key == first.key
    monkeypatch.undo()
    changed = compile_kernel(_info(SOURCE.replace("t * SCALE", "t * SCALE + 1.0")), "scale",
                             _spec(info), compiler=KernelCompiler(toolchain, fresh_disk))
    assert changed.source == "tileiras" and changed.bytecode != first.bytecode


def test_slots_round_trip() -> None:
    info = _info()
    slots = compile_mod.lower_kernel(info, "scale", _spec(info)).slots
    assert compile_mod.unpack_slots(compile_mod.pack_slots(slots)) == slots


def test_a_specialization_with_errors_is_never_cached(toolchain: Toolchain,
                                                      fresh_disk: DiskCache) -> None:
    """A hit skips the analysis, so only specializations that compiled may have entries: one
    whose Consts make an error raises it on every attempt."""
    from cutile.diagnostics.errors import CutileError

    # x read over a slab of 100 is one tile of 128; a tile of B = 100 is an error
    info = _info(SOURCE.replace("twice(ct.load_tile_like(x, z))",
                                "twice(ct.load_tile_like(x, z) + ct.zeros((B,), f32))"))
    kc = KernelCompiler(toolchain, fresh_disk)
    for _ in range(2):
        with pytest.raises(CutileError) as err:
            compile_kernel(info, "scale", _spec(info, b=100), compiler=kc)  # not a power of 2
        assert err.value.diagnostics[0].code.startswith("CT2")
    assert fresh_disk.entries() == [] and len(kc.memory) == 0
