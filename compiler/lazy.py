"""Package attributes loaded on first use (PEP 562), so importing a package stays cheap."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_getattr(package: str, homes: dict[str, str],
                 namespace: dict[str, Any]) -> Callable[[str], Any]:
    """A module `__getattr__` that imports `package.<homes[name]>` for `name`, once."""
    def getattr_(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{home}"), name)
        namespace[name] = value
        return value
    return getattr_
