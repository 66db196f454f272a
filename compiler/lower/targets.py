"""What a target GPU can take: tileiras compiles the MX formats (f4e2m1, f8e8m0) only for
sm_100 and newer, and cutile's GPU memory has no packed f4e2m1 tensors (CT507); TMA reads no
tensor with a negative stride (CT508). Checked before lowering so the user gets the code at the
value or parameter concerned, not a tileiras log or an illegal address."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...diagnostics import messages as msg
from ...diagnostics.diagnostic import Diagnostic
from ..ir import Block, KernelIR, Value
from ..specialization import MutFacts, Specialization, TensorFacts
from ..types import TensorType, TileType


def sm_number(arch: str) -> int | None:
    """100 for "sm_100a", 90 for "sm_90"; None when the name is not sm_<digits>."""
    m = re.fullmatch(r"sm_(\d+)[a-z]?", arch)
    return int(m.group(1)) if m else None


def _values(block: Block) -> Iterator[Value]:
    for op in block.ops:
        yield from op.results
        for region in op.regions:
            yield from region.args
            yield from _values(region)


def target_diagnostics(ir: KernelIR, spec: Specialization) -> list[Diagnostic]:
    """The first value of each dtype the target lacks, every f4e2m1 tensor parameter, and
    every tensor argument with a negative stride."""
    arch = spec.arch
    sm = sm_number(arch)
    out: list[Diagnostic] = []
    for p, facts in zip(ir.params, spec.args, strict=False):
        tensor = facts.tensor if isinstance(facts, MutFacts) else facts
        if isinstance(tensor, TensorFacts) and tensor.descending:
            out.append(msg.NEGATIVE_STRIDES.at(p.value.span, name=p.name,
                                               strides=tensor.descending))
    seen: set[str] = set()
    for p in ir.params:
        ty = p.value.type
        if isinstance(ty, TensorType) and ty.dtype.name == "f4e2m1":
            out.append(msg.F4_TENSOR_ON_GPU.at(p.value.span, name=p.name))
            seen.add("f4e2m1")
    for v in [p.value for p in ir.params] + list(_values(ir.body)):
        dtype = v.type.dtype if isinstance(v.type, (TileType, TensorType)) else None
        if dtype is None or dtype.name in seen or not dtype.min_sm:
            continue
        if sm is not None and sm >= dtype.min_sm:
            continue
        seen.add(dtype.name)
        what = f"'{v.name}'" if v.name else "a value of this kernel"
        out.append(msg.DTYPE_NEEDS_ARCH.at(v.span, dtype=dtype.name, what=what,
                                           min_sm=dtype.min_sm, arch=arch))
    return out
