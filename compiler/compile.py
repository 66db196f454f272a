"""One kernel specialization -> bytecode -> cubin, through the toolchain's caches.

`compile_kernel(info, name, spec)` specializes the kernel with the frontend (its diagnostics
become a KernelError), lowers it, and lets `KernelCompiler` assemble and cache the cubin.
`CUTILE_DUMP=bytecode,tileir` writes `<kernel>.<arch>.tileirbc` / `.tileir` next to the kernel's
source file, or into `CUTILE_DUMP_DIR`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

from ..diagnostics import messages as msg
from ..diagnostics.errors import error_for
from ..reader.source import ModuleInfo
from .bytecode import Version, encode
from .kernel_options import merged, opt_level
from .lower import EntrySlot, Lowered, LowerError, lower
from .lower.targets import target_diagnostics
from .specialization import MutFacts, Specialization, TensorFacts
from .toolchain import ArgFacts, KernelCompiler, SpecializationKey, default_compiler
from .toolchain.atomic import atomic_write
from .toolchain.cubin_info import Resources, cubin_resources
from .unit import kernel_unit, specialized_ir

DUMP_KINDS = ("bytecode", "tileir")


@dataclass(frozen=True)
class Compiled:
    name: str  # the entry symbol in the cubin
    arch: str
    bytecode: bytes
    cubin: bytes
    tileir: str  # tileirdisasm text of the bytecode
    slots: tuple[EntrySlot, ...]  # what the launcher passes, one per entry parameter
    key: SpecializationKey
    source: str  # where the cubin came from: "memory", "disk" or "tileiras"
    log: str = ""  # tileiras remarks, when asked for

    @property
    def entry(self) -> str:
        return self.name

    @cached_property
    def resources(self) -> Resources:
        """Registers, threads per CTA, shared/local/stack memory of the cubin's kernel, read
        from its ELF sections on first access (launches never pay for it)."""
        return cubin_resources(self.cubin, self.name)


def lower_kernel(info: ModuleInfo, name: str, spec: Specialization) -> Lowered:
    """The Tile IR module of one specialization (raises KernelError on frontend errors)."""
    ir = specialized_ir(kernel_unit(info, name), spec)
    unsupported = target_diagnostics(ir, spec)
    if unsupported:
        raise error_for(unsupported)
    try:
        return lower(ir, spec)
    except LowerError as err:
        detail = f"lowering '{name}' failed: {err}; please report this with the file"
        raise error_for([msg.INTERNAL_ERROR.at(ir.span, detail=detail)]) from None


def specialization_key(info: ModuleInfo, name: str, spec: Specialization) -> SpecializationKey:
    """Everything the generated code depends on, known before specializing or lowering: the
    module's source (the kernel, its helpers, its constants, how it names cutile and its
    decorator options), the whole Specialization (Consts, every argument fact, tiling, arch,
    hints) and, through the key's digest, the compiler's own sources and the toolchain. A
    cache hit therefore skips analysis and lowering."""
    args: list[ArgFacts] = []
    options: list[tuple[str, str]] = [("spec", repr(spec))]
    for i, f in enumerate(spec.args):
        if isinstance(f, MutFacts):
            args.append(_arg_facts("mut", f.tensor))
            options.append((f"tiling{i}", f"{f.order!r},{f.tile},{f.persistent},{f.whole}"))
        elif isinstance(f, TensorFacts):
            args.append(_arg_facts("tensor", f))
        elif f is not None:
            args.append(ArgFacts("scalar", f.name))
    unit = kernel_unit(info, name)
    options_set = merged(unit.fn.options, spec.hints)  # what the lowering writes
    set_options = sorted((k, repr(v)) for k, v in options_set.items() if v is not None)
    if set_options:
        options.append(("options", repr(set_options)))
    consts = tuple(sorted((k, repr(v)) for k, v in spec.consts))
    return SpecializationKey(unit.qualname, unit.source_hash, tuple(args), consts, spec.arch,
                             opt_level=opt_level(options_set), options=tuple(options))


def _arg_facts(kind: str, f: TensorFacts) -> ArgFacts:
    return ArgFacts(kind, f.dtype.name, f.rank, f.align,
                    tuple(f.stride_div_elems(a) for a in range(f.rank)), f.shape_div,
                    static_strides=(1,) if f.contiguous else ())


def compile_kernel(info: ModuleInfo, name: str, spec: Specialization, arch: str | None = None,
                   *, compiler: KernelCompiler | None = None, want: Version | None = None,
                   remarks: str | None = None, tileir: bool = True) -> Compiled:
    """Specialize, lower and assemble `name` from `info`; cached in memory and on disk. The
    key is made first, so a hit only reads the cache. `tileir=False` (launches) skips the
    disassembled text, which needs tileirdisasm."""
    if arch is not None and arch != spec.arch:
        spec = replace(spec, arch=arch)
    key = specialization_key(info, name, spec)
    made: list[Lowered] = []

    def build(version: Version) -> bytes:
        made.append(lower_kernel(info, name, spec))
        return encode(made[-1].module, version)

    kc = compiler or default_compiler()
    out = kc.compile(key, build, want=want, with_tileir=tileir, remarks=remarks,
                     attach=lambda: {"slots": pack_slots(made[-1].slots)})
    raw = out.bundle.get("slots")
    slots = unpack_slots(raw) if raw is not None else lower_kernel(info, name, spec).slots
    log = ""
    if remarks and out.source != "tileiras":  # remarks come from a real tileiras run
        from .toolchain import compile_cubin

        log = compile_cubin(kc.toolchain, out.bytecode, spec.arch, kernel=name,
                            opt_level=key.opt_level, remarks=remarks).remarks
    elif remarks:
        log = _cached_log(kc, out.key)
    # the cubin's entry is the function's own name (a kernel made in a factory is looked up by
    # its qualname, `make.<locals>.scale`, but its symbol is `scale`)
    compiled = Compiled(kernel_unit(info, name).name, spec.arch, out.bytecode, out.cubin,
                        out.tileir or "", slots, out.key, out.source, log)
    dump(compiled, info.path)
    return compiled


def pack_slots(slots: tuple[EntrySlot, ...]) -> bytes:
    """The entry ABI as cache bytes (JSON: one [arg, field, axis, ctype] per slot)."""
    return json.dumps([[s.arg, s.field, s.axis, s.ctype] for s in slots]).encode()


def unpack_slots(raw: bytes) -> tuple[EntrySlot, ...]:
    return tuple(EntrySlot(int(a), f, int(x), str(c)) for a, f, x, c in json.loads(raw))


def _cached_log(kc: KernelCompiler, key: SpecializationKey) -> str:
    bundle = kc.memory.get(key.digest())
    raw = bundle.get("log") if bundle is not None else None
    return raw.decode() if raw is not None else ""


def dump(compiled: Compiled, source_path: str, env: Mapping[str, str] | None = None
         ) -> list[Path]:
    """Writes what `CUTILE_DUMP` asks for; returns the files written."""
    env = os.environ if env is None else env
    kinds = {k.strip() for k in env.get("CUTILE_DUMP", "").split(",") if k.strip()}
    if not kinds:
        return []
    unknown = kinds - {*DUMP_KINDS, "all"}
    if unknown:
        raise ValueError(f"CUTILE_DUMP: unknown kind(s) {sorted(unknown)}; use "
                         f"{','.join(DUMP_KINDS)}")
    folder = Path(env.get("CUTILE_DUMP_DIR") or Path(source_path).parent)
    stem = f"{compiled.name}.{compiled.arch}"
    written = []
    if kinds & {"bytecode", "all"}:
        written.append(folder / f"{stem}.tileirbc")
        atomic_write(written[-1], compiled.bytecode)
    if kinds & {"tileir", "all"}:
        written.append(folder / f"{stem}.tileir")
        atomic_write(written[-1], compiled.tileir.encode())
    return written
