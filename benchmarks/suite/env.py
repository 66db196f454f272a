"""What the numbers were measured on: GPU, driver, clocks, power limit, toolchain and versions."""

from __future__ import annotations

import datetime
import importlib
import importlib.metadata
import os
import platform
import shutil
import subprocess
from pathlib import Path
from typing import Any

SMI_FIELDS = ("name", "driver_version", "clocks.sm", "clocks.mem", "clocks.max.sm",
              "clocks.max.mem", "power.limit", "power.draw", "temperature.gpu", "memory.total",
              "persistence_mode", "compute_mode")


def _run(cmd: list[str], timeout: float = 20.0) -> str:
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"unavailable ({exc.__class__.__name__})"
    return (done.stdout or done.stderr).strip()


def nvidia_smi() -> dict[str, str]:
    if shutil.which("nvidia-smi") is None:
        return {"error": "nvidia-smi not found"}
    text = _run(["nvidia-smi", f"--query-gpu={','.join(SMI_FIELDS)}", "--format=csv,noheader"])
    first = text.splitlines()[0] if text else ""
    values = [v.strip() for v in first.split(",")]
    if len(values) != len(SMI_FIELDS):
        return {"raw": text}
    return dict(zip(SMI_FIELDS, values, strict=True))


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _module_version(name: str) -> str:
    try:
        mod = importlib.import_module(name)
    except Exception as exc:  # a broken install is worth recording, not fatal
        return f"not importable ({exc.__class__.__name__}: {exc})"[:200]
    return str(getattr(mod, "__version__", "unknown"))


def tileiras_info() -> dict[str, str]:
    try:
        from cutile.compiler.toolchain import find_toolchain, tool_info

        tc = find_toolchain()
        info = tool_info(tc)
        return {"tileiras": info.release, "tileiras_path_source": tc.source,
                "bytecode_versions": " ".join(str(v) for v in info.versions)}
    except Exception as exc:
        return {"tileiras": f"unavailable ({exc.__class__.__name__}: {exc})"[:300]}


def cuda_info() -> dict[str, str]:
    out: dict[str, str] = {}
    try:
        import torch

        out["torch_cuda"] = str(torch.version.cuda)
        if torch.cuda.is_available():
            props = torch.cuda.get_device_properties(0)
            out["sm_count"] = str(props.multi_processor_count)
            out["capability"] = f"{props.major}.{props.minor}"
            out["l2_bytes"] = str(getattr(props, "L2_cache_size", "unknown"))
    except Exception as exc:
        out["torch_cuda"] = f"unavailable ({exc.__class__.__name__})"
    try:
        from cuda.bindings import driver

        _, ver = driver.cuDriverGetVersion()
        out["cuda_driver_api"] = f"{int(ver) // 1000}.{int(ver) % 1000 // 10}"
    except Exception as exc:
        out["cuda_driver_api"] = f"unavailable ({exc.__class__.__name__})"
    return out


def git_commit(root: Path) -> str:
    """The commit measured: CUTILE_COMMIT when given (a copy of the tree on a GPU machine may
    carry a stale .git), else git's HEAD (+dirty for uncommitted changes)."""
    given = os.environ.get("CUTILE_COMMIT")
    if given:
        return given
    text = _run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"])
    dirty = _run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"])
    return text + ("+dirty" if dirty and "unavailable" not in dirty else "")


def collect(root: Path, gpu: bool = True) -> dict[str, Any]:
    env: dict[str, Any] = {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "python": platform.python_version(),
        "host": platform.node(),
        "cutile_commit": git_commit(root),
        "numpy": _version("numpy"),
        "torch": _version("torch"),
        "triton": _version("triton"),
        "cuda-tile": _version("cuda-tile"),
        "cuda-bindings": _version("cuda-bindings"),
        "matplotlib": _version("matplotlib"),
    }
    env.update(tileiras_info())
    if gpu:
        env["nvidia_smi"] = nvidia_smi()
        env.update(cuda_info())
    return env
