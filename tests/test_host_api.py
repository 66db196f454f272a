"""The host API registry (compiler/hostapi): its generated reference is current, and its
entries are well formed."""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType

import pytest

from cutile.compiler.hostapi import HOST_API, Effect, HostEntry
from cutile.compiler.hostapi.registry import declare
from cutile.diagnostics.codes import CODES

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import gen_host_api  # noqa: E402


def load_script() -> ModuleType:
    return gen_host_api


def test_host_api_md_is_up_to_date() -> None:
    text = (ROOT / "docs" / "host-api.md").read_text(encoding="utf-8")
    assert text == load_script().render(), "run: python scripts/gen_host_api.py"


def test_check_mode_detects_a_stale_file(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    module = load_script()
    monkeypatch.setattr(module, "OUTPUT", tmp_path / "host-api.md")
    module.OUTPUT.write_text("stale\n")
    assert module.main(["--check"]) == 1
    assert module.main([]) == 0
    assert module.main(["--check"]) == 0


def test_every_entry_is_in_the_reference() -> None:
    text = load_script().render()
    for entry in HOST_API.values():
        assert f"| `{entry.usage}` |" in text, entry.usage


@pytest.mark.parametrize("key", sorted(HOST_API), ids=lambda k: ".".join(k))
def test_entry_is_well_formed(key: tuple[str, str]) -> None:
    entry = HOST_API[key]
    assert entry.doc.endswith(".") and (entry.doc[0].isupper() or entry.doc[0] == "`")
    assert all(code in CODES for code in entry.codes)
    if entry.effect in (Effect.READS, Effect.WRITES) or (
            entry.effect is Effect.MOVES and entry.receiver == "tensor"):
        assert entry.action, "messages name what the call does to the receiver"
    if entry.kind == "property":
        assert not entry.sig
    else:
        assert entry.params is not None  # the signature parses
    assert entry.receiver == "ct" or entry.effect is not Effect.CREATES


def test_an_entry_is_declared_once() -> None:
    entry = next(iter(HOST_API.values()))
    with pytest.raises(ValueError, match="declared twice"):
        declare(entry)


def test_hover_text_shows_signature_effect_and_codes() -> None:
    entry = HOST_API["tensor", "partition"]
    text = entry.markdown()
    assert text.startswith("```python\nt.partition(tile_shape: ")
    assert "Ownership: moves the receiver" in text
    assert "CT303" in text and "CT408" in text


def test_a_bad_signature_does_not_parse() -> None:
    bad = HostEntry("tensor", "nonexistent_", "method", Effect.INSPECTS, "X.", "a b")
    with pytest.raises(SyntaxError):
        bad.params  # noqa: B018


def test_dir_of_the_package_lists_every_public_name() -> None:
    """The host API loads lazily: dir(cutile) (what REPLs and editors complete from) must
    still list it, and every name in __all__ must resolve."""
    import cutile

    names = dir(cutile)
    assert set(cutile.__all__) <= set(names) and "zeros" in names and "kernel" in names
    assert all(hasattr(cutile, n) for n in cutile.__all__)
    assert "compiler" not in names  # the package's parts are not its API
