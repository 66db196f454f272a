"""The packages of cutile's `[models]` extra, imported when first needed, so that the light
install (the checker, the interpreter) never needs them and a run that does says what to
install instead of failing on an import."""

from __future__ import annotations

import importlib
from types import ModuleType

EXTRA = "models"
INSTALL = "pip install 'cutile[models]'"
# what each package is needed for, in the error message
USES = {"safetensors": "reading the checkpoint's *.safetensors weights",
        "tokenizers": "the checkpoint's tokenizer (tokenizer.json)",
        "jinja2": "the checkpoint's chat template"}


class MissingExtra(RuntimeError):
    """A package of the [models] extra is not installed: the message says which and how to get
    it."""


def need(package: str) -> ModuleType:
    """`import package`, or MissingExtra naming the extra to install."""
    try:
        return importlib.import_module(package)
    except ImportError:
        use = USES.get(package, "the Qwen3 engine")
        raise MissingExtra(f"{use} needs the '{package}' package, which is not installed; it "
                           f"comes with cutile's [{EXTRA}] extra: {INSTALL}") from None
