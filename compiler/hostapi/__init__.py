"""The host API, declared once (in the spirit of compiler/ops): every constructor, method and
property a user calls on the host, with its signature, its ownership effect, the diagnostics it
may raise and its doc line.

Who reads it: the runtime (runtime/hostimpl.py checks at import that every entry has an
implementation and every public attribute of a handle class has an entry; lazy ops answer the
handles' attribute names with CT406), the checker's host analysis (checker/host/core.py
evaluates each call by its entry: generically by its effect, with a handler where the effect is
not enough), the language server's hover, and docs/host-api.md (scripts/gen_host_api.py). It
lives in the compiler because the runtime and the checker may both import the compiler.
"""

from . import table as _table  # noqa: F401 (declares the entries)
from .registry import (
    HOST_API,
    USE_CODES,
    Effect,
    HostEntry,
    Kind,
    Param,
    Receiver,
    entries,
    lookup,
    public_names,
)

# The public attributes of Tensor and Partition: one of these on a lazy op is the mistake of
# taking the launch for its results (CT406 in the checker and at run time).
HANDLE_ATTRIBUTES = public_names("tensor", "partition")
# The public attributes of lazy ops and graphs.
OP_ATTRIBUTES = public_names("op", "graph")

__all__ = ["HANDLE_ATTRIBUTES", "HOST_API", "OP_ATTRIBUTES", "USE_CODES", "Effect",
           "HostEntry", "Kind", "Param", "Receiver", "entries", "lookup", "public_names"]
