"""Shared helpers of the lowering tests: specializations built from a kernel's signature."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from cutile.compiler.dsl.orders import TileOrder, row_major
from cutile.compiler.frontend.params import read_signature
from cutile.compiler.specialization import (
    MutFacts,
    ParamFacts,
    Specialization,
    TensorFacts,
)
from cutile.reader.source import ModuleInfo, parse_module

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def script(name: str) -> ModuleType:
    """A generator of scripts/ (they import their shared gen_common.py from there)."""
    scripts = str(ROOT / "scripts")
    if scripts not in sys.path:
        sys.path.insert(0, scripts)
    return importlib.import_module(name)


def load_file(path: Path, name: str) -> ModuleType:
    """The Python file at `path` executed as module `name` (a fresh module on every call)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def example(name: str) -> ModuleType:
    """examples/<name>.py as a module."""
    return load_file(EXAMPLES / f"{name}.py", f"cutile_example_{name}")


def module(path: Path | str, source: str | None = None) -> ModuleInfo:
    text = Path(path).read_text() if source is None else source
    info = parse_module(text, str(path))
    assert isinstance(info, ModuleInfo), info
    return info


def spec_for(info: ModuleInfo, name: str, consts: dict[str, Any], *, align: int = 16,
             contiguous: bool = True, order: TileOrder = row_major, persistent: bool = False,
             arch: str = "sm_90", slabs: dict[str, tuple[int, ...]] | None = None
             ) -> Specialization:
    """Facts a launch with allocator-aligned, contiguous tensors would give (`slabs`: the
    partition shape of a Mut parameter whose signature has a dynamic extent)."""
    sig, diags = read_signature(info, info.functions[name])
    assert not diags, diags
    args: list[ParamFacts] = []
    for p in sig.params:
        if p.kind in ("tensor", "mut", "acc"):
            assert p.dtype is not None
            rank = len(p.shape)
            item = p.dtype.itemsize
            facts = TensorFacts(p.dtype, rank, align, (min(16, align * item),) * rank,
                                (16,) * rank, contiguous)
            if p.kind == "mut":
                tile = (slabs or {}).get(p.name) or tuple(
                    int(consts[d]) if isinstance(d, str) else d for d in p.shape)
                args.append(MutFacts(facts, tile, order, persistent))
            else:
                args.append(facts)
        elif p.kind == "scalar":
            args.append(p.dtype)
        else:
            args.append(None)
    ordered = tuple((p.name, consts[p.name]) for p in sig.params if p.kind == "const")
    return Specialization(ordered, tuple(args), arch)
