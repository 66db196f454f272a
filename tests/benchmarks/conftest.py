"""The benchmark tests import `benchmarks` from the repository root, which the `pytest` script
(unlike `python -m pytest`) does not put on sys.path; without it, `tests/benchmarks` itself would
be found as a namespace package named `benchmarks`."""

import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[2])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
