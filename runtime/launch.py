"""`kernel(*args)`: validate, check ownership, and build the lazy launch (nothing runs yet)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..compiler import messages as msg
from ..compiler.diagnostics import Note
from .backends.base import Executable
from .binding import Bound
from .context import backend, current_stream
from .errors import ownership_error
from .ops import LaunchOp
from .ownership import State
from .partition import Partition
from .sites import Site, argument_span, argument_text, caller_site
from .tensor import Tensor, byte_extent

if TYPE_CHECKING:
    from .kernel import Kernel

_MUT_HERE = "'{name}' is passed here as Mut parameter '{param}'"


def launch(kernel: Kernel, args: tuple[Any, ...], kwargs: dict[str, Any]) -> LaunchOp:
    site = caller_site()
    binder = kernel.binder()
    bound = binder.bind(args, kwargs, site)
    _check_aliasing(kernel, bound, site)
    be = backend()
    spec = bound.spec

    def prepare() -> Executable:
        return kernel.executable(be, spec)

    op = LaunchOp(kernel.__name__, be, prepare, [], bound.grid, (), [], [], site,
                  current_stream())
    _commit(kernel, bound, op, site, len(args))
    return op


def _commit(kernel: Kernel, bound: Bound, op: LaunchOp, site: Site, positional: int) -> None:
    """Moves the Mut partitions into the launch and leases the inputs (all checks passed)."""
    how = f"into a launch of {kernel.__name__}"
    values = list(bound.values)
    for i, p in enumerate(kernel.binder().sig.params):
        v = values[i]
        if p.kind == "mut":
            new = v._handoff()
            new._own.state = State.EXCLUSIVE
            v._own.move(how, site, op)
            values[i] = new
            op._held.append(new)
        elif p.kind == "tensor":
            v._own.lease(op, site)
            op._leased.append(v)
    results: list[Any] = [None] * positional
    for i, at in enumerate(bound.where):
        if isinstance(at, int) and at < positional:
            results[at] = values[i]
    op._args = values
    op._results = tuple(results)


def _check_aliasing(kernel: Kernel, bound: Bound, site: Site) -> None:
    """CT302: a Mut argument's memory must not overlap any other argument's."""
    params = kernel.binder().sig.params
    ranges = [(i, r) for i, r in ((i, _range(v)) for i, v in enumerate(bound.values))
              if r is not None]
    for i, r in ranges:
        if params[i].kind != "mut":
            continue
        for j, other in ranges:
            if j != i and _overlap(r, other) and not (params[j].kind == "mut" and j < i):
                mut_text = argument_text(site, bound.where[i], params[i].name)
                name = argument_text(site, bound.where[j], params[j].name)
                note = Note(_MUT_HERE.format(name=mut_text, param=params[i].name),
                            argument_span(site, bound.where[i]))
                raise ownership_error(msg.ALIASED_MUT, argument_span(site, bound.where[j]),
                                      (note,), name=name, kernel=kernel.__name__,
                                      mut=params[i].name, other=params[j].name)


Range = tuple[str, int, int]


def _range(v: Any) -> Range | None:
    t = v._tensor if isinstance(v, Partition) else v
    if not isinstance(t, Tensor) or t._buf is None:
        return None
    lo, hi = byte_extent(t)
    base = t._buf.ptr + t._offset
    return (str(t._buf.device), base + lo, base + hi)


def _overlap(a: Range, b: Range) -> bool:
    return a[0] == b[0] and a[1] < b[2] and b[1] < a[2]
