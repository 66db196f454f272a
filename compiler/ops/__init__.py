"""The operation registry: one entry per kernel-side operation, driving the frontend's shape and
dtype rules (and naming the IR ops the interpreter and lowering implement)."""

from . import creation, debug, elementwise, matmul, memory, reduce, shape  # noqa: F401 - register
from .registry import FUNCTIONS, METHODS, OpSpec, bind

__all__ = ["FUNCTIONS", "METHODS", "OpSpec", "bind"]
