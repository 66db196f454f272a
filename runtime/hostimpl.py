"""The runtime's side of the host API registry (compiler/hostapi): which class or module
implements each receiver, and the check, run when `cutile.runtime.api` is imported, that every
entry has its implementation (a function or method with the declared parameters, a property)
and every public attribute of a handle class or constructor function has an entry. Adding a
method to `Tensor` without a row, or a row without the method, fails at import."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from types import ModuleType
from typing import Any

from ..compiler.hostapi import HANDLE_ATTRIBUTES, HostEntry, Param, Receiver, entries
from . import constructors
from .ops import ChainOp, DeviceOp, GraphOp, LaunchOp
from .partition import Partition
from .tensor import Tensor

# The classes that implement a receiver (each of them implements every entry), and the
# classes whose public attributes must all have an entry: those and the ops' abstract base.
IMPLEMENTERS: dict[Receiver, tuple[type, ...]] = {
    "tensor": (Tensor,), "partition": (Partition,), "op": (LaunchOp, ChainOp),
    "graph": (GraphOp,)}
_SURFACES: dict[Receiver, tuple[type, ...]] = {**IMPLEMENTERS,
                                               "op": (DeviceOp, *IMPLEMENTERS["op"])}


def problems() -> list[str]:
    """What does not match between the registry and the runtime, in words (none: [])."""
    out = [p for entry in entries("ct") for p in _function(constructors, entry)]
    out += [f"constructors.{name} has no host API entry" for name in _public_functions(
        constructors) if name not in {e.name for e in entries("ct")}]
    for receiver, classes in IMPLEMENTERS.items():
        declared = {e.name for e in entries(receiver)}
        for entry in entries(receiver):
            out += [p for cls in classes for p in _member(cls, entry)]
        for cls in _SURFACES[receiver]:
            traps = HANDLE_ATTRIBUTES if receiver in ("op", "graph") else frozenset()
            out += [f"{cls.__name__}.{name} has no host API entry ({receiver})"
                    for name in sorted(_public_attributes(cls) - declared - traps)]
    return out


def verify() -> None:
    found = problems()
    if found:
        raise RuntimeError("the host API registry (compiler/hostapi) and the runtime disagree: "
                           + "; ".join(found))


def _function(module: ModuleType, entry: HostEntry) -> list[str]:
    fn = getattr(module, entry.name, None)
    if not callable(fn):
        return [f"ct.{entry.name} is declared but {module.__name__} does not define it"]
    return _signature(f"ct.{entry.name}", fn, entry.params, skip_self=False)


def _member(cls: type, entry: HostEntry) -> list[str]:
    where = f"{cls.__name__}.{entry.name}"
    found = inspect.getattr_static(cls, entry.name, None)
    if entry.kind == "property":
        ok = isinstance(found, property) or inspect.ismemberdescriptor(found)
        return [] if ok else [f"{where} is declared a property but is not one"]
    if not callable(found):
        return [f"{where} is declared but not implemented"]
    return _signature(where, found, entry.params, skip_self=True)


def _signature(where: str, fn: Callable[..., Any], params: tuple[Param, ...],
               skip_self: bool) -> list[str]:
    """The implementation's parameters, as names and kinds, must be the declared ones."""
    got = list(inspect.signature(fn).parameters.values())[1 if skip_self else 0:]
    shape = [(p.name, p.kind is p.KEYWORD_ONLY, p.kind is p.VAR_POSITIONAL) for p in got]
    want = [(p.name, p.keyword, p.variadic) for p in params]
    if shape != want:
        return [f"{where} takes {[s[0] for s in shape]}, declared {[w[0] for w in want]}"]
    return []


def _public_functions(module: ModuleType) -> list[str]:
    return [name for name, value in vars(module).items() if not name.startswith("_")
            and inspect.isfunction(value) and value.__module__ == module.__name__]


def _public_attributes(cls: type) -> set[str]:
    names = {name for name, _ in inspect.getmembers(cls) if not name.startswith("_")}
    return names | {name for c in cls.__mro__ for name in getattr(c, "__slots__", ())
                    if not name.startswith("_")}
