"""Autotuning choices on disk, next to the cubin cache: `<CUTILE_CACHE_DIR>/autotune/`.

One small JSON file per (kernel, config list, key, device) digest, written atomically (temp file
+ os.replace), so processes tuning at the same time never see a torn file: the last writer wins
and every writer wrote a complete, valid choice. A file that does not parse, or does not match
the config list it is asked for, is a miss (and is overwritten by the next tuning).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..compiler.toolchain.atomic import atomic_write
from ..compiler.toolchain.cache import default_cache_dir
from ..compiler.toolchain.key import source_hash

FORMAT = 1


digest = source_hash  # sha256 of NUL-separated parts, as cache keys are made


class TuningCache:
    def __init__(self, root: Path | None = None) -> None:
        self.root = (root if root is not None else default_cache_dir()) / "autotune"

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str, configs: list[str]) -> int | None:
        """The index of the chosen config, or None (no entry, unreadable, or another list)."""
        try:
            entry = json.loads(self.path(key).read_bytes())
        except (OSError, ValueError):
            return None
        if not isinstance(entry, dict) or entry.get("format") != FORMAT:
            return None
        best = entry.get("best")
        if entry.get("configs") != configs or not isinstance(best, int) or isinstance(best, bool):
            return None
        return best if 0 <= best < len(configs) else None

    def put(self, key: str, configs: list[str], best: int, info: dict[str, Any]) -> Path:
        """Stores the choice (with `info`: what was timed, for people reading the file)."""
        entry = {**info, "format": FORMAT, "configs": configs, "best": best}
        path = self.path(key)
        atomic_write(path, json.dumps(entry, indent=1, sort_keys=True).encode())
        return path
