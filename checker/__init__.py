"""cutile.checker: whole-module analysis (host ownership + kernels via the frontend), rules
configuration, suppressions, the `cutile-check` CLI and its output formats."""

from .analyze import FixMode, Report, analyze_paths, analyze_source, analyze_stdin
from .config import Config, Overrides

__all__ = ["Config", "FixMode", "Overrides", "Report", "analyze_paths", "analyze_source",
           "analyze_stdin"]
