"""The codes the host analysis reports, and where in the analysis each one is decided."""

from __future__ import annotations

from dataclasses import dataclass

from ...diagnostics.codes import CODES


@dataclass(frozen=True)
class HostRule:
    code: str
    decided_in: str  # the module of this package that reports it
    when: str

    def __post_init__(self) -> None:
        assert self.code in CODES, self.code

    @property
    def name(self) -> str:
        return CODES[self.code].name


HOST_RULES: tuple[HostRule, ...] = (
    HostRule("CT301", "expressions", "a name whose tensor or partition was moved is used"),
    HostRule("CT302", "launches", "a Mut partition shares storage with another argument"),
    HostRule("CT303", "hostapi", "a tensor is partitioned while a pending launch reads it"),
    HostRule("CT304", "launches", "a tensor (not a partition) is passed to a Mut parameter"),
    HostRule("CT305", "check", "a launch is never synced, awaited, chained, captured or handed on"),
    HostRule("CT306", "expressions", "a value moved in a loop is used by the next iteration"),
    HostRule("CT307", "views", "a region a pending launch writes (by a view) is used"),
    HostRule("CT401", "launches", "a partition's tile shape does not fit the Mut parameter"),
    HostRule("CT402", "launches", "Mut partitions of known shapes give different grids"),
    HostRule("CT403", "hostapi", "a partition's tile shape has rank above 3"),
    HostRule("CT405", "launches", "a Const parameter is neither given nor named in a shape"),
    HostRule("CT406", "launches", "arguments of the wrong count, name, kind, dtype or shape"),
    HostRule("CT408", "hostapi", "a literal block count, group size or tile extent below 1"),
)
