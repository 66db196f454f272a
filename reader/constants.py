"""Module-level constants: the names a kernel may read from its module, with their values.

A name bound once, at module level, to a constant expression is a compile-time constant:
numbers, bools, strings and tuples of them, `math.inf`/`np.pi`-style constants, `float("-inf")`,
earlier constants, and arithmetic on all of these (`NEG_INF = -math.inf`, `BLOCK = 1 << 7`,
`SCALE = 1.0 / 3.0`). Evaluated here without running the user's code: an operation that raises
(a division by zero) or would build a huge number makes the name no constant.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable
from typing import Any

ConstValue = int | float | bool | str | tuple["ConstValue", ...]

# `math` and NumPy constants are float literals, in kernels and in module constants
MATH_CONSTANTS = {f"{module}.{name}": float(getattr(math, name))
                  for module in ("math", "numpy") for name in ("inf", "nan", "pi", "e")}
MATH_CONSTANTS["math.tau"] = math.tau

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
    ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert,
}
MAX_BITS = 256  # an int constant past this many bits is no constant (and no tile extent)


def float_of_text(node: ast.Call) -> float | None:
    """`float("-inf")`, `float("nan")`, `float("1e-6")`: the float literal (Triton's habit)."""
    if len(node.args) != 1 or node.keywords:
        return None
    arg = node.args[0]
    if not isinstance(arg, ast.Constant) or not isinstance(arg.value, str):
        return None
    try:
        return float(arg.value)
    except ValueError:
        return None


def constant_value(expr: ast.AST, known: dict[str, ConstValue],
                   qualified: Callable[[ast.AST], str | None]) -> ConstValue | None:
    """The value of a module-level constant expression, or None. `known`: the constants bound
    before it; `qualified`: the module's import resolution (`np.inf` -> 'numpy.inf')."""
    if isinstance(expr, ast.Constant):
        return expr.value if isinstance(expr.value, (bool, int, float, str)) else None
    if isinstance(expr, ast.Tuple):
        items = [constant_value(e, known, qualified) for e in expr.elts]
        return None if any(i is None for i in items) else tuple(i for i in items if i is not None)
    if isinstance(expr, ast.Name) and expr.id in known:
        return known[expr.id]
    if isinstance(expr, (ast.Name, ast.Attribute)):
        full = qualified(expr)
        return None if full is None else MATH_CONSTANTS.get(full)
    if isinstance(expr, ast.Call):
        return float_of_text(expr) if qualified(expr.func) is None and \
            isinstance(expr.func, ast.Name) and expr.func.id == "float" else None
    if isinstance(expr, ast.UnaryOp) and type(expr.op) in _UNARY:
        inner = constant_value(expr.operand, known, qualified)
        return _number(_UNARY[type(expr.op)], inner)
    if isinstance(expr, ast.BinOp) and type(expr.op) in _BINARY:
        left = constant_value(expr.left, known, qualified)
        right = constant_value(expr.right, known, qualified)
        return _number(_BINARY[type(expr.op)], left, right)
    return None


def _number(fn: Callable[..., Any], *values: ConstValue | None) -> ConstValue | None:
    """fn over numbers (bools count as ints, as Python has them), or None when an operand is
    no number, the operation raises, or an int result would be huge. Shifts and powers are
    bounded before they run, so a constant like `1 << 10**9` costs nothing."""
    if not all(isinstance(v, (int, float)) for v in values):
        return None
    if fn in (operator.lshift, operator.pow) and not _small(fn, *values):
        return None
    try:
        out = fn(*values)
    except (ArithmeticError, ValueError, TypeError):
        return None
    if isinstance(out, complex) or (isinstance(out, int) and out.bit_length() > MAX_BITS):
        return None  # (-8) ** 0.5 is complex
    return out if isinstance(out, (int, float)) else None


def _small(fn: Callable[..., Any], base: Any, exponent: Any) -> bool:
    """Whether `base << exponent` or `base ** exponent` stays within MAX_BITS (floats: their
    own overflow is an OverflowError, caught by the caller)."""
    if not isinstance(base, int) or not isinstance(exponent, int):
        return True
    if fn is operator.lshift:
        return exponent <= MAX_BITS
    return exponent <= 0 or base in (0, 1, -1) or base.bit_length() * exponent <= MAX_BITS


def bind_constants(target: ast.AST, value: ConstValue | None,
                   known: dict[str, ConstValue]) -> None:
    """Record the names `target` binds to `value` (a name, or a tuple of targets unpacking a
    tuple of the same length, nested); nothing where the value is not a constant or does not
    unpack so."""
    if value is None:
        return
    if isinstance(target, ast.Name):
        known[target.id] = value
    elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, tuple) and \
            len(value) == len(target.elts) and \
            not any(isinstance(e, ast.Starred) for e in target.elts):
        for e, v in zip(target.elts, value, strict=True):
            bind_constants(e, v, known)
