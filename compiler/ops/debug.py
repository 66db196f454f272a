"""Debugging from the device: printf and device_assert."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...diagnostics import messages as msg
from ..dtypes import BOOL
from ..frontend.builder import Arg, Builder
from ..frontend.values import FValue, none_value
from ..lower.types import OpCtx
from ..types import TileType
from .defs import ir_op
from .registry import Call, function

if TYPE_CHECKING:
    from ..bytecode import Value as BcValue


@function("printf", "fmt: str, *args: Any", "print from the device, C format", "debug",
          returns="None")
def _printf(b: Builder, c: Call) -> FValue:
    fmt = b.const(c["fmt"], "the format of printf()")
    if not isinstance(fmt, str):
        b.fail(msg.NOT_CONSTANT, c["fmt"].span, what="the format of printf() (a string)")
    values = [b.tile(Arg(a.value, a.span), "printf") for a in c.rest]
    b.emit("printf", values, [], c.span, {"format": fmt})
    return none_value(c.span)


@function("device_assert", "cond: Any, message: str = ''", "fail the launch (CT5xx) where `cond` "
          "is false", "debug", returns="None")
def _assert(b: Builder, c: Call) -> FValue:
    cond = b.tile(c["cond"], "device_assert")
    assert isinstance(cond.type, TileType)
    if cond.type.dtype != BOOL:
        b.fail(msg.BAD_OPERAND, c["cond"].span, op="device_assert",
               what=f"a {cond.type.dtype} condition (compare to get a bool tile)")
    text = b.const(c["message"], "the message of device_assert()")
    b.emit("assert", [cond], [], c.span, {"message": str(text)})
    return none_value(c.span)


def _assert_lower(c: OpCtx) -> list[BcValue]:
    c.b.op("assert", [], c.args[0], message=str(c.attrs.get("message", "")))
    return []


# The interpreter raises the runtime's DeviceError for a failed assert, so it implements it.
ir_op("assert", None, _assert_lower)
