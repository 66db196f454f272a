"""What a host call checks on its tensor before it runs, from the effect its registry entry
declares (compiler/hostapi), as the checker follows the same effect at edit time:

- every call: CT301 (CT306 from a loop) when the handle was moved;
- a move or a write (`partition`, `reshape`, `fill_`): CT303 while a pending launch reads the
  tensor, CT303/CT307 for a region of its view family that a pending launch reads/writes;
- a read (`numpy`, `__dlpack__`): CT307 for a region that a pending launch writes;
- CT406 for a meta tensor, where the entry raises META_TENSOR_DATA (it has no elements).

The tensor's name in a message is read from the call's source (`receiver_name` parses it), so
it is worked out only once a check has failed: a call that passes its checks reads no source.
"""

from __future__ import annotations

from ..compiler.hostapi import Effect, HostEntry
from ..diagnostics import messages as msg
from ..diagnostics.diagnostic import Span
from .errors import launch_error
from .handle import TensorHandle
from .ownership import State, check_usable, check_writable
from .sites import Site, argument_label, argument_span, receiver_name
from .views import region_conflict, region_error

_CHANGES = (Effect.MOVES, Effect.WRITES)


# `enter(..., at=CONSUMER)`: a protocol method (`__dlpack__`) called for another function, so
# `t` is that call's first argument (`ct.from_dlpack(t)`, `np.from_dlpack(t)`), or the receiver
# of a direct call (`t.__dlpack__()`); worked out from source only for a message
CONSUMER = -1


def enter(t: TensorHandle, entry: HostEntry, site: Site, at: int | None = None) -> None:
    """Raises what `entry`'s effect forbids on `t` now (call it first, with the user's site).
    `t` is the call's receiver (`t.numpy()`), its argument `at`, or (CONSUMER) either."""
    changes = entry.effect in _CHANGES
    if changes and t._leases is not None:  # a pending launch may read it
        check_writable(t, _where(site, at)[0], entry.action, site)
    elif t._state is State.MOVED:
        i = _index(site, at)
        name, span = _where(site, i)
        check_usable(t, name, site if i is None else span)
    if (t._buf is None or t._backend is None) and msg.META_TENSOR_DATA in entry.raises:
        name, span = _where(site, at)
        raise launch_error(msg.META_TENSOR_DATA, span, name=name, action=entry.action)
    region = t._region
    if region is not None and (changes or entry.effect is Effect.READS):
        conflict = region_conflict(region, changes)
        if conflict is not None:
            name, span = _where(site, at)
            raise region_error(conflict, name, entry.action, span)


def _index(site: Site, at: int | None) -> int | None:
    """The argument `t` is (None: the receiver); CONSUMER read from the source, so only when a
    message is made."""
    if at != CONSUMER:
        return at
    call = site.call()
    return 0 if call is not None and call.args else None


def _where(site: Site, at: int | None) -> tuple[str, Span]:
    """`t`'s name and span at the call, as the checker gives them."""
    i = _index(site, at)
    if i is None:
        return receiver_name(site, "the tensor"), site.span()
    return argument_label(site, i, "the tensor"), argument_span(site, i)
