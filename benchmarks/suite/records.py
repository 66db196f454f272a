"""One measurement record per (kernel, shape, implementation, variant), and the JSON file."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

# metric names whose larger values are better; any other metric is a time (smaller wins)
HIGHER_IS_BETTER = {"TB/s", "TFLOP/s", "tok/s"}
STATUSES = ("ok", "skipped", "failed", "wrong", "suspect")


@dataclass
class Record:
    row: int
    kernel: str
    shape: str
    impl: str  # cutile | torch | torch.compile | triton | cuda.tile | ceiling
    variant: str = ""
    dtype: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    status: str = "ok"
    reason: str = ""
    metric_name: str = ""
    metric: float | None = None
    metric_p25: float | None = None
    metric_p75: float | None = None
    time_s: float | None = None  # median seconds per launch (or per measured unit)
    time_s_p25: float | None = None
    time_s_p75: float | None = None
    windows: int = 0
    launches_per_window: int = 0
    bytes: int = 0
    flops: int = 0
    compile_s: float | None = None
    rel_err: float | None = None
    launch_mode: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok" and self.metric is not None

    @property
    def higher_is_better(self) -> bool:
        return self.metric_name in HIGHER_IS_BETTER

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_json(d: dict[str, Any]) -> Record:
        return Record(**d)


def better(a: Record, b: Record) -> bool:
    """Whether a's metric beats b's (both ok, same metric)."""
    assert a.metric is not None and b.metric is not None
    return a.metric > b.metric if a.higher_is_better else a.metric < b.metric


def best(records: list[Record]) -> Record | None:
    found: Record | None = None
    for r in records:
        if r.ok and (found is None or better(r, found)):
            found = r
    return found


def write_json(path: Path, env: dict[str, Any], command: str, records: list[Record]) -> None:
    doc = {"command": command, "env": env, "records": [r.to_json() for r in records]}
    path.write_text(json.dumps(doc, indent=1, sort_keys=False) + "\n")


def read_json(path: Path) -> tuple[dict[str, Any], str, list[Record]]:
    doc = json.loads(path.read_text())
    return doc["env"], doc["command"], [Record.from_json(r) for r in doc["records"]]
