"""Finding `tileiras` (and `tileirdisasm`, ptxas, libnvvm) and the environment to run it in.

Order: `CUTILE_TILEIRAS`, the pinned `nvidia-cuda-tileiras` wheel, `PATH`, `CUDA_HOME/bin`.
tileiras loads the ptxas/libnvvm of `CUDA_HOME`/`CUDA_ROOT`/`CUDA_PATH` when those are set, so
a tileiras from anywhere else runs with them removed (a mismatched toolkit makes it fail with
only "failed to compile Tile IR program").
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from ...diagnostics import messages
from .errors import PIN_COMMAND, toolchain_error

TOOLKIT_VARS = ("CUDA_HOME", "CUDA_ROOT", "CUDA_PATH")


@dataclass(frozen=True)
class Toolchain:
    tileiras: Path
    source: str                      # "CUTILE_TILEIRAS", "wheel", "PATH" or "CUDA_HOME"
    disasm: Path | None = None       # tileirdisasm, when shipped
    kept_vars: tuple[str, ...] = ()  # toolkit variables tileiras runs with (it lives under them)

    @cached_property
    def wheel_versions(self) -> tuple[tuple[str, str], ...]:
        """(distribution, version) of the tileiras trio when it came from wheels. Read when
        asked (a failed compile explains a mismatch with them): the package metadata costs
        milliseconds that a cache hit should not pay."""
        if self.source != "wheel":
            return ()
        return tuple((d, _dist_version(d)) for d in
                     ("nvidia-cuda-tileiras", "nvidia-cuda-nvcc", "nvidia-nvvm"))

    def environment(self, base: Mapping[str, str] | None = None) -> dict[str, str]:
        env = dict(os.environ if base is None else base)
        for var in TOOLKIT_VARS:
            if var not in self.kept_vars:
                env.pop(var, None)
        return env

    def wheels_disagree(self) -> bool:
        minors = {".".join(v.split(".")[:2]) for _, v in self.wheel_versions}
        return len(minors) > 1


def find_toolchain(env: Mapping[str, str] | None = None) -> Toolchain:
    """The tileiras to use, or a CT501 `CompileError` saying what was searched."""
    env = dict(os.environ if env is None else env)
    override = env.get("CUTILE_TILEIRAS")
    if override:
        path = Path(override).expanduser()
        if not _executable(path):
            raise toolchain_error(messages.TOOLCHAIN_BAD_OVERRIDE, path=path)
        return _make(path, "CUTILE_TILEIRAS", env)
    searched = ["CUTILE_TILEIRAS (unset)"]

    wheel_bin = wheel_bin_dir()
    if wheel_bin is not None and _executable(wheel_bin / "tileiras"):
        tc = _make(wheel_bin / "tileiras", "wheel", env)
        _check_wheel_parts(wheel_bin)
        return tc
    searched.append("the nvidia-cuda-tileiras wheel")

    on_path = shutil.which("tileiras", path=env.get("PATH"))
    if on_path:
        return _make(Path(on_path), "PATH", env)
    searched.append("PATH")

    for var in ("CUDA_HOME", "CUDA_PATH"):
        root = env.get(var)
        if root and _executable(Path(root) / "bin" / "tileiras"):
            return _make(Path(root) / "bin" / "tileiras", "CUDA_HOME", env)
        searched.append(f"{var}/bin" + ("" if root else " (unset)"))
    raise toolchain_error(messages.TOOLCHAIN_MISSING, searched=", ".join(searched),
                          packages=PIN_COMMAND)


def wheel_bin_dir() -> Path | None:
    """`nvidia/cu13/bin` of the installed CUDA wheels (a namespace package), if any."""
    try:
        spec = importlib.util.find_spec("nvidia")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for loc in spec.submodule_search_locations:
        for cu in sorted(Path(loc).glob("cu1*"), reverse=True):
            if (cu / "bin" / "tileiras").exists():
                return cu / "bin"
    return None


def _check_wheel_parts(bin_dir: Path) -> None:
    """tileiras needs ptxas beside it and libnvvm in the same CUDA tree."""
    if not _executable(bin_dir / "ptxas"):
        raise toolchain_error(messages.TOOLCHAIN_PART_MISSING, tool="ptxas",
                              path=bin_dir / "tileiras", where=bin_dir,
                              package=f"nvidia-cuda-nvcc (same version as tileiras: "
                                      f"{PIN_COMMAND.split()[1]})")
    root = bin_dir.parent
    candidates = [*root.glob("lib/libnvvm.so*"), *root.glob("nvvm/lib64/libnvvm.so*"),
                  *root.glob("nvvm/bin/nvvm*.dll"), *root.glob("bin/nvvm*.dll")]
    if not candidates:
        raise toolchain_error(messages.TOOLCHAIN_PART_MISSING, tool="libnvvm",
                              path=bin_dir / "tileiras", where=f"{root / 'lib'}, "
                              f"{root / 'nvvm' / 'lib64'}",
                              package=f"nvidia-nvvm (same version as tileiras: "
                                      f"{PIN_COMMAND.split()[2]})")


def _make(path: Path, source: str, env: Mapping[str, str]) -> Toolchain:
    path = path.resolve()
    disasm: Path | None = path.parent / "tileirdisasm"
    if disasm is None or not _executable(disasm):
        found = shutil.which("tileirdisasm", path=env.get("PATH"))
        disasm = Path(found) if found else None
    kept = tuple(v for v in TOOLKIT_VARS if env.get(v) and _under(path, Path(env[v])))
    return Toolchain(path, source, disasm, kept)


def _dist_version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _under(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.expanduser().resolve())
    except ValueError:
        return False
    return True


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)
