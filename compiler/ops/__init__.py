"""The operation registry: one definition per kernel-side operation (its signature, typing rule,
folding, NumPy semantics, Tile IR lowering and doc line; see `defs.py`). Every module of this
package is imported here, so a new op is one new or edited module."""

import importlib
import pkgutil

from .registry import FUNCTIONS, METHODS, OpSpec, bind

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")

__all__ = ["FUNCTIONS", "METHODS", "OpSpec", "bind"]
