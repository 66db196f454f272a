"""Tensor parallelism: the engine's rank in a group and the collectives between its ranks,
through torch.distributed on torch tensors that share cutile's memory (DLPack, no copies).

What is split, and where the sums happen, is said by the model's description (layers.SHARDS,
`AllReduce`, `Head.vocab_split`); this module only moves the bytes. With one rank (`SINGLE`)
nothing here runs and torch is never imported.

Ordering. cutile launches are lazy and go to cutile's stream; a collective runs on the host
between two links (a `links.HostLink`), on buffers the previous launch has handed back:
- Interpreter: cutile tensors are NumPy memory, so `torch.from_dlpack` of one is a CPU tensor
  on the same bytes; the launches before it have run when their `.then` hands the buffers
  back, and gloo reads and writes the bytes in place.
- CUDA: `torch.from_dlpack` runs with torch's current stream set to cutile's own stream
  (`torch.cuda.ExternalStream` on its handle), so cutile's export orders nothing new (one
  stream) and the collective is issued on that stream: NCCL's internal stream waits for
  cutile's work before it, and with `async_op=False` torch makes the current stream (cutile's)
  wait for the collective before anything queued after it; gloo copies to the host after an
  event on the current stream and the copy back is waited for on it the same way. So the next
  cutile launch sees the sum, without a host wait for NCCL (gloo waits on the host by nature).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Protocol

import cutile as ct


class Comm(Protocol):
    """The collectives the engine needs, in place on cutile tensors."""

    def all_reduce(self, t: ct.HostTensor) -> None:
        """t = the sum of every rank's t."""

    def all_gather(self, out: ct.HostTensor, t: ct.HostTensor) -> None:
        """out (1, world * n) = every rank's t (1, n), in rank order."""

    def capturable(self) -> bool:
        """Whether the collectives enqueue device work only (NCCL on CUDA), so that a CUDA
        graph can capture them."""


@dataclass(frozen=True)
class TensorParallel:
    """This process's place in a tensor-parallel group of `world` ranks."""
    rank: int = 0
    world: int = 1
    comm: Comm | None = None


SINGLE = TensorParallel()


class TorchComm:
    """`Comm` over an initialized torch.distributed process group (gloo or NCCL)."""

    def __init__(self) -> None:
        import torch  # type: ignore[import-not-found, unused-ignore]
        import torch.distributed as dist  # type: ignore[import-not-found, unused-ignore]
        from torch.utils.dlpack import from_dlpack  # type: ignore[import-not-found, unused-ignore]

        self.torch, self.dist, self.from_dlpack = torch, dist, from_dlpack
        self.cuda = ct.backend_name() == "cuda"
        self.streams: dict[int, Any] = {}  # cutile's stream handle -> torch's view of it

    def _view(self, t: ct.HostTensor) -> Any:
        return self.from_dlpack(t).view(-1)

    def all_reduce(self, t: ct.HostTensor) -> None:
        with self._on_cutile_stream():
            self.dist.all_reduce(self._view(t))

    def all_gather(self, out: ct.HostTensor, t: ct.HostTensor) -> None:
        with self._on_cutile_stream():
            o = self._view(out)
            n = o.numel() // self.dist.get_world_size()
            self.dist.all_gather(list(o.split(n)), self._view(t))

    def capturable(self) -> bool:
        return self.cuda and self.dist.get_backend() == "nccl"

    def _on_cutile_stream(self) -> Any:
        """torch's current stream made cutile's current one (CUDA), for the collective."""
        import contextlib

        if not self.cuda:
            return contextlib.nullcontext()
        from cutile.runtime.context import backend, current_stream

        handle = current_stream()
        stream = self.streams.get(handle)
        if stream is None:
            device = self.torch.device("cuda", backend().device.index)
            external = self.torch.cuda.ExternalStream
            stream = external(handle, device=device)  # type: ignore[no-untyped-call, unused-ignore]
            self.streams[handle] = stream
        return self.torch.cuda.stream(stream)


def from_env(backend: str | None = None) -> TensorParallel:
    """Joins the group torchrun describes (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT in the
    environment) with torch.distributed's `backend` (default: nccl on CUDA, gloo on the
    interpreter). Call it after choosing the device (CUTILE_DEVICE) and before any cutile
    work: the collectives are ordered on the stream cutile has then."""
    import torch.distributed as dist  # type: ignore[import-not-found, unused-ignore]

    if backend is None:
        backend = "nccl" if ct.backend_name() == "cuda" else "gloo"
    if not dist.is_initialized():
        if backend == "nccl":
            import torch  # type: ignore[import-not-found, unused-ignore]

            torch.cuda.set_device(int(os.environ.get("CUTILE_DEVICE", "0")))
        dist.init_process_group(backend)
    return TensorParallel(dist.get_rank(), dist.get_world_size(), TorchComm())
