"""What the modules that lower one family of ops (gathers.py, atomics.py, loops.py) use of the
kernel's lowerer (emit.py, which implements this protocol and passes itself to them): the
bytecode builder, the values of IR values, the memory tokens, parameters and their addresses,
and the facts it gathered about the kernel. They import nothing of emit.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ..bytecode import Builder, Value
    from ..bytecode.types import Padding
    from ..ir import Op
    from ..ir import Value as IrValue
    from .pointers import TensorAddress
    from .ranges import Ranges


class LowerCtx(Protocol):
    b: Builder  # where the op being lowered emits its code
    ranges: Ranges  # compile-time ranges of the kernel's integer values (and each one's op)
    entry_token: Value  # the token of reads that may reorder freely (and relaxed atomics)
    scattered: frozenset[int]  # the parameters the kernel scatters into (a token each)
    status: Value | None  # the launch's status word (a pointer) when it has run-time checks
    range_check_numbers: dict[Op, int]  # each `range_check` op's number in the status word

    def v(self, x: IrValue) -> Value:
        """The bytecode value of an IR value."""

    def bind(self, op: Op, values: Sequence[Value]) -> None:
        """Gives `op`'s results their bytecode values."""

    def param_of(self, x: IrValue) -> int:
        """The index of the kernel parameter `x` is."""

    def index(self, xs: Sequence[IrValue]) -> list[Value]:
        """Tile indices as i32 scalars."""

    def token(self, key: int | None) -> Value:
        """The current token of a Mut slab or scattered tensor (its parameter), of printf
        ordering, or (None) the entry token."""

    def set_token(self, key: int, token: Value) -> None:
        """The token after an access that advanced `key`'s."""

    def address(self, param: int) -> TensorAddress:
        """Where a tensor parameter's elements are (built once, in the prologue)."""

    def pview(self, param: int, tile: tuple[int, ...], pad: Padding | None = ...) -> Value:
        """The parameter's partition view into `tile`-shaped tiles (built once, in the
        prologue); `pad`: the value read outside the tensor (None: no padding value)."""

    def tile_inside(self, src: IrValue, index: list[Value], tile: tuple[int, ...]
                    ) -> tuple[list[Value], Value]:
        """`index` with each entry clamped to `src`'s `tile`-shaped tiles (0 outside), and
        whether every entry was inside (checked before any arithmetic on it)."""
