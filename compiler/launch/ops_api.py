"""What a pending launch (a lazy op) offers, for the rule that its results come from .sync().

`kernel(args)` returns an op, not the arguments: indexing it, unpacking it or asking it for a
tensor's attribute is CT406 in the checker and at run time, worded here once.
"""

from __future__ import annotations

from typing import Literal

from .. import messages as msg
from ..diagnostics import Diagnostic, Span

# The public attributes of DeviceOp, LaunchOp, ChainOp and GraphOp (a runtime test keeps this
# in step with the classes).
OP_ATTRIBUTES = frozenset({"start", "sync", "then", "graph", "replay", "finished", "phase",
                           "backend", "stream", "site", "kernel_name", "own_ref"})

# The public attributes of Tensor and Partition (a runtime test keeps this in step): one of
# these on a launch is the mistake of taking the launch for its results. Ops answer them with
# CT406 (a property each: a __getattr__ would slow every attribute access of every launch).
HANDLE_ATTRIBUTES = frozenset({
    "active_leases", "blocks", "data_ptr", "device", "dtype", "grid", "is_contiguous",
    "is_meta", "launch_grid", "ndim", "num_tiles", "numpy", "order", "partition", "readers",
    "reshape", "shape", "size", "state", "strides", "tile", "tiling", "unpartition",
    "narrow", "permute", "split_at", "view"})

Use = Literal["attribute", "unpack", "index"]


def unsynced_diagnostic(kernel: str, use: Use, span: Span, attribute: str = "") -> Diagnostic:
    words = {"attribute": f"it has no attribute '{attribute}'",
             "unpack": "it cannot be unpacked", "index": "it cannot be indexed"}[use]
    return msg.LAUNCH_RESULT_UNSYNCED.at(span, kernel=kernel, use=words)


def sync_unpack_diagnostic(kernel: str, returned: int, names: int, span: Span) -> Diagnostic:
    """CT406: `a, b = op.sync()` where the launch hands back another number of values."""
    return msg.SYNC_UNPACK.at(span, kernel=kernel, n=returned, s="" if returned == 1 else "s",
                              m=names, ms="" if names == 1 else "s",
                              v="s" if names == 1 else "")
