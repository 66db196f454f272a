"""Running tileiras and tileirdisasm: version negotiation, compiling, disassembling, and turning
their failures into CT502/CT503 errors that say what to do."""

from __future__ import annotations

import hashlib
import json
import platform
import re
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from ...diagnostics import messages
from ...diagnostics.diagnostic import Span
from ..bytecode.version import SUPPORTED, Version, pick
from .atomic import atomic_write
from .cache import default_cache_dir
from .discover import TOOLKIT_VARS, Toolchain
from .errors import PIN_COMMAND, toolchain_error

ARCHS = ("sm_80", "sm_86", "sm_87", "sm_88", "sm_89", "sm_90", "sm_100", "sm_103", "sm_107",
         "sm_110", "sm_120", "sm_121")
TIMEOUT_S = 600
# What tileiras prints when the libnvvm/ptxas it loaded does not fit it (exit 5).
_NVVM_FAILURE = "failed to compile Tile IR program"


@dataclass(frozen=True)
class ToolInfo:
    release: str                 # e.g. "13.4.92"
    versions: tuple[Version, ...]  # bytecode versions it reads


@dataclass(frozen=True)
class CompileOutput:
    cubin: bytes
    remarks: str   # tileiras's stderr (remarks when asked for), usually empty
    seconds: float


_INFO: dict[tuple[str, int, int], ToolInfo] = {}


def tool_info(tc: Toolchain) -> ToolInfo:
    """`tileiras --version` and `--list-versions`, memoized per binary (path, size, mtime) in
    memory and on disk, so a process whose kernels are all cached runs no subprocess."""
    st = tc.tileiras.stat()
    key = (str(tc.tileiras), st.st_size, st.st_mtime_ns)
    if key not in _INFO:
        memo = default_cache_dir() / "tools" / (hashlib.sha256(repr(key).encode()).hexdigest()
                                                 + ".json")
        _INFO[key] = _read_info(memo) or _probe_info(tc)
        if not memo.exists():
            atomic_write(memo, json.dumps({"release": _INFO[key].release, "versions": [
                str(v) for v in _INFO[key].versions]}).encode())
    return _INFO[key]


def _read_info(memo: Path) -> ToolInfo | None:
    try:
        data = json.loads(memo.read_text())
        return ToolInfo(str(data["release"]), tuple(Version.parse(v) for v in data["versions"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None  # absent or damaged: ask the binary again


def _probe_info(tc: Toolchain) -> ToolInfo:
    env = tc.environment()
    versions = []
    for line in _run_tool(tc, ["--list-versions"], env).split():
        try:
            versions.append(Version.parse(line))
        except ValueError:
            continue
    release_text = _run_tool(tc, ["--version"], env)
    m = re.search(r"V(\d+\.\d+\.\d+)", release_text) or re.search(
        r"release (\d+\.\d+)", release_text)
    return ToolInfo(m.group(1) if m else "unknown", tuple(versions))


def negotiate(tc: Toolchain, want: Version | None = None) -> Version:
    """The bytecode version to write: `want` if tileiras reads it, else the newest both know."""
    info = tool_info(tc)
    if want is not None and want in info.versions:
        return want
    chosen = None if want is not None else pick(list(info.versions))
    if chosen is None:
        ours = str(want) if want is not None else ", ".join(map(str, SUPPORTED))
        raise toolchain_error(messages.TOOLCHAIN_VERSIONS, release=info.release,
                              path=tc.tileiras, theirs=", ".join(map(str, info.versions)) or
                              "nothing", ours=ours, packages=PIN_COMMAND)
    return chosen


def host_arch() -> str:
    """The host stub embedded in cubins must match the CPU that loads them."""
    return "aarch64" if platform.machine().lower() in ("aarch64", "arm64") else "x86_64"


def compile_cubin(tc: Toolchain, bytecode: bytes, arch: str, *, kernel: str = "kernel",
                  opt_level: int = 3, lineinfo: bool = False, remarks: str | None = None,
                  keep_dir: Path | None = None, span: Span | None = None) -> CompileOutput:
    """Assemble bytecode into a cubin. Failures keep the bytecode under `keep_dir`."""
    if arch not in ARCHS:
        raise ValueError(f"unknown GPU architecture {arch!r}; expected one of {', '.join(ARCHS)}")
    env = tc.environment()
    with tempfile.TemporaryDirectory(prefix="cutile-") as tmp:
        src = Path(tmp) / f"{kernel}.tileirbc"
        out = Path(tmp) / f"{kernel}.cubin"
        src.write_bytes(bytecode)
        cmd = [str(tc.tileiras), f"--gpu-name={arch}", f"--opt-level={opt_level}",
               f"--host-arch={host_arch()}", "-o", str(out), str(src)]
        if lineinfo:
            cmd.append("--lineinfo")
        if remarks:
            cmd += [f"--remarks={remarks}", "--remark-format=command-line"]
        start = time.perf_counter()
        try:
            proc = subprocess.run(cmd, env=env, capture_output=True, text=True,
                                  timeout=TIMEOUT_S, check=False)
        except subprocess.TimeoutExpired:
            kept = keep_failed(bytecode, kernel, keep_dir, "timed out")
            raise toolchain_error(messages.COMPILE_TIMEOUT, span, seconds=TIMEOUT_S,
                                  kernel=kernel, arch=arch, kept=kept) from None
        except OSError as exc:
            raise toolchain_error(messages.TOOLCHAIN_BROKEN, span, tool="tileiras",
                                  path=tc.tileiras, detail=exc) from None
        seconds = time.perf_counter() - start
        log = (proc.stderr + proc.stdout).strip()
        if proc.returncode != 0 or not out.exists():
            raise _failure(tc, bytecode, kernel, arch, proc.returncode, log, keep_dir, span)
        return CompileOutput(out.read_bytes(), log, seconds)


def disassemble(tc: Toolchain, bytecode: bytes) -> str:
    """The official text form of bytecode (tileirdisasm), e.g. for `.tileir` and tests."""
    if tc.disasm is None:
        raise toolchain_error(messages.TOOLCHAIN_PART_MISSING, tool="tileirdisasm",
                              path=tc.tileiras, where=tc.tileiras.parent,
                              package=PIN_COMMAND.split()[0])
    with tempfile.TemporaryDirectory(prefix="cutile-") as tmp:
        src = Path(tmp) / "module.tileirbc"
        src.write_bytes(bytecode)
        proc = subprocess.run([str(tc.disasm), str(src)], env=tc.environment(),
                              capture_output=True, text=True, timeout=120, check=False)
    if proc.returncode != 0:
        raise ValueError(f"tileirdisasm rejected the bytecode: {proc.stderr.strip()}")
    return proc.stdout


def keep_failed(bytecode: bytes, kernel: str, keep_dir: Path | None, log: str) -> Path:
    """Save bytecode (and the tool's output) that tileiras rejected, for a bug report."""
    digest = hashlib.sha256(bytecode).hexdigest()[:16]
    folder = keep_dir if keep_dir is not None else Path(tempfile.gettempdir()) / "cutile-failed"
    path = folder / f"{_safe(kernel)}-{digest}.tileirbc"
    atomic_write(path, bytecode)
    atomic_write(path.with_suffix(".log"), log.encode())
    return path


def _failure(tc: Toolchain, bytecode: bytes, kernel: str, arch: str, rc: int, log: str,
             keep_dir: Path | None, span: Span | None) -> Exception:
    env = tc.environment()
    detail = _summary(log)
    release = _release_or_unknown(tc)
    if _NVVM_FAILURE in log or "libnvvm" in log.lower() or "ptxas" in log.lower():
        for var in TOOLKIT_VARS:
            if env.get(var):
                return toolchain_error(messages.TOOLCHAIN_ENV_MISMATCH, span, path=tc.tileiras,
                                       var=var, value=env[var], release=release, detail=detail)
        if tc.wheels_disagree():
            versions = ", ".join(f"{d} {v}" for d, v in tc.wheel_versions)
            return toolchain_error(messages.TOOLCHAIN_WHEEL_MISMATCH, span, release=release,
                                   path=tc.tileiras, versions=versions, packages=PIN_COMMAND,
                                   detail=detail)
    kept = keep_failed(bytecode, kernel, keep_dir, log)
    return toolchain_error(messages.COMPILE_FAILED, span, kernel=kernel, arch=arch, rc=rc,
                           detail=detail, kept=kept)


def _release_or_unknown(tc: Toolchain) -> str:
    try:
        return tool_info(tc).release
    except Exception:  # the tool is already failing; do not hide the first error
        return "unknown"


def _summary(log: str) -> str:
    """The first error lines of a tileiras log (the rest is in the kept .log file)."""
    lines = [ln.strip() for ln in log.splitlines() if ln.strip()]
    errors = [ln for ln in lines if "error" in ln.lower()] or lines
    text = "; ".join(dict.fromkeys(errors[:3]))
    return text[:500] if text else "no output"


def _run_tool(tc: Toolchain, args: list[str], env: dict[str, str]) -> str:
    try:
        proc = subprocess.run([str(tc.tileiras), *args], env=env, capture_output=True, text=True,
                              timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise toolchain_error(messages.TOOLCHAIN_BROKEN, tool="tileiras", path=tc.tileiras,
                              detail=exc) from None
    if proc.returncode != 0:
        raise toolchain_error(messages.TOOLCHAIN_BROKEN, tool="tileiras", path=tc.tileiras,
                              detail=f"'tileiras {' '.join(args)}' exited {proc.returncode}: "
                                     f"{_summary(proc.stderr + proc.stdout)}")
    return proc.stdout + proc.stderr


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:80] or "kernel"

