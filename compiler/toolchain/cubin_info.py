"""What tileiras chose for a kernel, read from its cubin on the CPU: registers, CTA size, shared,
local and stack memory, cluster shape, and a few cheap feature flags.

Where each number lives (checked against `cuobjdump --dump-resource-usage` and `-elf`):
- registers: EIATTR_REGCOUNT in `.nv.info` (keyed by the entry's symbol index). The `.text.<fn>`
  header's sh_info bits 24-31 hold it too, but only in sm_80 cubins; sm_90/sm_100 ones leave
  them 0, so that is only the fallback.
- threads: EIATTR_REQNTID (or MAX_THREADS) in `.nv.info.<fn>`. Tile kernels launch with a
  (1, 1, 1) block and the driver takes the CTA size from here.
- shared: the size of `.nv.shared.<fn>` (cuobjdump's SHARED; the driver's reserved shared
  memory, `.nv.shared.reserved.*`, is not counted). tileiras asks for no dynamic shared memory.
- local: `.nv.local.<fn>`; stack: EIATTR_MIN_STACK_SIZE (register spills land in the stack
  frame, so with today's ptxas this, not local, is where spills show).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from ...diagnostics import messages
from ...diagnostics.errors import CompileError
from . import nvinfo as nv
from .elf import Elf, ElfError, Section, read_elf
from .errors import toolchain_error

STO_CUDA_ENTRY = 0x10  # st_other bit of a kernel entry point
STT_FUNC = 2


@dataclass(frozen=True)
class Resources:
    kernel: str
    registers: int  # per thread
    threads: int | None  # per CTA (None: the cubin does not fix it)
    block: tuple[int, int, int] | None
    shared_bytes: int  # static shared memory per CTA
    local_bytes: int  # per thread
    stack_bytes: int  # per thread, spills included
    spill_refills: int  # instructions marked as register spills or refills
    max_registers: int | None  # the cap ptxas worked under (lower with an occupancy hint)
    cluster: tuple[int, int, int] | None  # CTAs per cluster, when set
    barriers: int
    mbarriers: int
    param_bytes: int  # the kernel parameter bank (constant bank 0)
    tma: bool | None  # tensor-map (TMA) instructions; None: the cubin does not say (sm_80)
    tcgen05: bool  # Blackwell tensor-core (UMMA) instructions
    reg_reconfig: bool  # setmaxnreg: warp groups trade registers

    def __str__(self) -> str:
        threads = "? threads" if self.threads is None else f"{self.threads} threads"
        parts = [f"{self.registers} regs", threads, f"{size(self.shared_bytes)} smem",
                 f"{size(self.stack_bytes)} stack", f"{self.spill_refills} spill/refill"]
        if self.local_bytes:
            parts.append(f"{size(self.local_bytes)} local")
        if self.cluster is not None:
            parts.append("cluster " + "x".join(map(str, self.cluster)))
        return ", ".join(parts)


def size(n: int) -> str:
    return f"{n} B" if n < 1024 else f"{n / 1024:.1f} KiB"


def cubin_resources(cubin: bytes, kernel: str | None = None) -> Resources:
    """The resources of `kernel` (default: the cubin's only entry point) in `cubin`.
    Raises CompileError (CT506) when the bytes are not a cubin this reader understands."""
    try:
        return _read(read_elf(cubin), kernel)
    except ElfError as err:
        raise _unreadable(str(err)) from None
    except (IndexError, ValueError, struct.error) as err:  # truncated records
        raise _unreadable(f"{type(err).__name__}: {err}") from None


def entry_names(cubin: bytes) -> tuple[str, ...] | None:
    """The kernel entry points of `cubin`; None when the bytes are no ELF this reader knows."""
    try:
        return tuple(name for name, _ in _entries(read_elf(cubin)))
    except (ElfError, IndexError, ValueError, struct.error):
        return None


def _read(elf: Elf, kernel: str | None) -> Resources:
    name, symbol = _entry(elf, kernel)
    text = _need(elf, f".text.{name}")
    common = _attrs(elf, elf.section(".nv.info"))
    info = _attrs(elf, elf.section(f".nv.info.{name}"))
    compat = elf.section(".nv.compat")
    regs = nv.per_symbol(common, nv.REGCOUNT, symbol)
    block = _triple(info, nv.REQNTID) or _triple(info, nv.MAX_THREADS)
    maxreg = nv.first(info, nv.MAXREG_COUNT)
    tma = None if compat is None else _flag(_attrs(elf, compat), nv.COMPAT_INST_TENSORMAP_V1)
    return Resources(
        kernel=name,
        registers=regs if regs is not None else text.info >> 24,
        threads=None if block is None else block[0] * block[1] * block[2],
        block=block,
        shared_bytes=_size(elf, f".nv.shared.{name}"),
        local_bytes=_size(elf, f".nv.local.{name}"),
        stack_bytes=nv.per_symbol(common, nv.MIN_STACK_SIZE, symbol) or 0,
        spill_refills=nv.spill_refills(info),
        max_registers=None if maxreg is None else maxreg.number(),
        cluster=_triple(info, nv.CTA_PER_CLUSTER),
        barriers=_number(info, nv.NUM_BARRIERS),
        mbarriers=_number(info, nv.NUM_MBARRIERS),
        param_bytes=_size(elf, f".nv.constant0.{name}"),
        tma=tma,
        tcgen05=any(a.id in (nv.TCGEN05_1CTA_USED, nv.TCGEN05_2CTA_USED) for a in info),
        reg_reconfig=nv.first(info, nv.REG_RECONFIG) is not None,
    )


def _entry(elf: Elf, kernel: str | None) -> tuple[str, int]:
    """The kernel's name and symbol index (`.nv.info` keys its records by symbol index)."""
    entries = _entries(elf)
    if kernel is not None:
        found = [e for e in entries if e[0] == kernel]
        if not found:
            names = ", ".join(n for n, _ in entries) or "none"
            raise ElfError(f"no kernel named {kernel!r} (entry points: {names})")
        return found[0]
    if len(entries) != 1:
        names = ", ".join(n for n, _ in entries) or "none"
        raise ElfError(f"expected one kernel entry point, found {len(entries)} ({names}); "
                       "name the kernel")
    return entries[0]


def _entries(elf: Elf) -> list[tuple[str, int]]:
    return [(s.name, i) for i, s in enumerate(elf.symbols)
            if s.info & 0xF == STT_FUNC and s.other & STO_CUDA_ENTRY]


def _need(elf: Elf, name: str) -> Section:
    s = elf.section(name)
    if s is None:
        raise ElfError(f"no {name} section")
    return s


def _attrs(elf: Elf, s: Section | None) -> tuple[nv.Attr, ...]:
    return () if s is None else nv.parse_attrs(elf.contents(s))


def _size(elf: Elf, name: str) -> int:
    s = elf.section(name)
    return 0 if s is None else s.size


def _triple(attrs: tuple[nv.Attr, ...], ident: int) -> tuple[int, int, int] | None:
    a = nv.first(attrs, ident)
    if a is None or len(a.value) != 12:
        return None
    x, y, z = a.words()
    return (x, y, z)


def _number(attrs: tuple[nv.Attr, ...], ident: int) -> int:
    a = nv.first(attrs, ident)
    return 0 if a is None else a.number()


def _flag(attrs: tuple[nv.Attr, ...], ident: int) -> bool:
    a = nv.first(attrs, ident)
    return a is not None and a.number() != 0


def _unreadable(detail: str) -> CompileError:
    return toolchain_error(messages.CUBIN_UNREADABLE, detail=detail)
