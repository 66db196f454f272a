"""Toolchain failures as `CompileError`s carrying one `Diagnostic` each."""

from __future__ import annotations

from typing import Any

from ...diagnostics.diagnostic import Span
from ...diagnostics.errors import CompileError, expected_error
from ...diagnostics.messages import Message

# Toolchain problems often have no source location; they point at this pseudo-file unless the
# caller knows the kernel's span.
NO_SPAN = Span("<tileiras>", 1, 0, 1, 0)

# The pinned wheels that make up the toolchain, with the versions `pyproject.toml` pins.
PINNED = "13.4.92"
WHEELS = ("nvidia-cuda-tileiras", "nvidia-cuda-nvcc", "nvidia-nvvm")
PIN_COMMAND = " ".join(f"{w}=={PINNED}" for w in WHEELS)


def toolchain_error(message: Message, span: Span | None = None, **fields: Any) -> CompileError:
    return expected_error(CompileError, [message.at(span or NO_SPAN, **fields)])
