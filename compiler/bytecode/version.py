"""Bytecode versions: which ones we write, and parsing `13.4`-style strings."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Version:
    major: int
    minor: int

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"

    @staticmethod
    def parse(text: str) -> Version:
        parts = text.strip().split(".")
        if len(parts) < 2 or not all(p.isdigit() for p in parts[:2]):
            raise ValueError(f"not a bytecode version: {text!r}")
        return Version(int(parts[0]), int(parts[1]))


V13_1 = Version(13, 1)
V13_2 = Version(13, 2)
V13_3 = Version(13, 3)
V13_4 = Version(13, 4)

# 13.4 is what the pinned tileiras reads natively; 13.3 is the fallback for an older tileiras.
# Older versions lack Hopper support in their tileiras releases, and 13.5 changes the function
# header, so we write neither.
SUPPORTED: tuple[Version, ...] = (V13_3, V13_4)
DEFAULT = V13_4


def pick(available: list[Version]) -> Version | None:
    """The newest version we can write that the toolchain also reads."""
    both = [v for v in SUPPORTED if v in available]
    return max(both) if both else None
