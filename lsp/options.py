"""Typed client options: parsed once from `initializationOptions` or
`workspace/didChangeConfiguration`, never looked up by string key in handlers.

Invalid entries are reported and replaced by their defaults, so one typo does not switch the
server off.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from lsprotocol import types

from cutile.checker.selection import normalize_pattern

SECTION = "cutile"

SeverityName = Literal["error", "warning", "information", "hint", "off"]
SEVERITIES: dict[str, types.DiagnosticSeverity | None] = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
    "off": None,
}
# Keys of the section; `trace` is the client's own (`cutile.trace.server`), `settings` a wrapper.
KNOWN_KEYS = ("enable", "severityOverrides", "inlayHints", "docsUrl", "trace", "settings")


@dataclass(frozen=True)
class ClientOptions:
    enable: bool = True
    severity_overrides: Mapping[str, SeverityName] = field(default_factory=dict)
    inlay_hints: bool = True
    docs_url: str | None = None

    def severity_for(self, code: str) -> tuple[bool, types.DiagnosticSeverity | None]:
        """(overridden?, severity) for `code`; the longest matching selector wins (CT201 > CT2)."""
        matching = (s for s in self.severity_overrides if code.startswith(s))
        best = max(matching, key=len, default=None)
        if best is None:
            return False, None
        return True, SEVERITIES[self.severity_overrides[best]]


def settings_section(settings: object) -> object:
    """The `cutile` section of a settings payload, accepting both `{cutile: {...}}` and `{...}`."""
    if isinstance(settings, Mapping) and isinstance(settings.get(SECTION), Mapping):
        return settings[SECTION]
    return settings


def parse_options(raw: object) -> tuple[ClientOptions, list[str]]:
    """Options from a client payload, and a message for each entry that was ignored."""
    errors: list[str] = []
    if raw is None:
        return ClientOptions(), errors
    if isinstance(raw, Mapping) and SECTION in raw and not isinstance(raw[SECTION], Mapping):
        return ClientOptions(), [f"settings must be an object, got {type(raw[SECTION]).__name__}"]
    section = settings_section(raw)
    if isinstance(section, Mapping) and isinstance(section.get("settings"), Mapping):
        section = settings_section(section["settings"])
    if not isinstance(section, Mapping):
        return ClientOptions(), [f"settings must be an object, got {type(section).__name__}"]
    errors += [f"unknown setting {key!r} (known: {', '.join(KNOWN_KEYS[:4])})"
               for key in section if key not in KNOWN_KEYS]
    defaults = ClientOptions()
    enable = _bool(section, "enable", defaults.enable, errors)
    inlay = _bool(section, "inlayHints", defaults.inlay_hints, errors)
    docs_url = section.get("docsUrl")
    if docs_url is not None and not isinstance(docs_url, str):
        errors.append("docsUrl must be a string")
        docs_url = None
    return ClientOptions(enable=enable, severity_overrides=_overrides(section, errors),
                         inlay_hints=inlay, docs_url=docs_url or None), errors


def _bool(section: Mapping[str, object], key: str, default: bool, errors: list[str]) -> bool:
    value = section.get(key, default)
    if isinstance(value, bool):
        return value
    errors.append(f"{key} must be true or false, got {value!r}")
    return default


def _overrides(section: Mapping[str, object], errors: list[str]) -> dict[str, SeverityName]:
    raw = section.get("severityOverrides", {})
    if not isinstance(raw, Mapping):
        errors.append("severityOverrides must be an object such as {\"CT2\": \"warning\"}")
        return {}
    out: dict[str, SeverityName] = {}
    for key, value in raw.items():
        selector = normalize_pattern(str(key))
        if selector is None:
            errors.append(f"severityOverrides: {key!r} is not a code, a prefix or a code name "
                          "(CT201, CT2, use-after-move)")
        elif value not in SEVERITIES:
            errors.append(f"severityOverrides[{key!r}]: {value!r} is not one of "
                          f"{', '.join(SEVERITIES)}")
        else:
            out[selector] = value
    return out
