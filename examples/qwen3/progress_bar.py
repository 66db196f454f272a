"""A one-line progress bar on stderr (redrawn in place at most ten times a second), for the
seconds to minutes a large checkpoint takes to read and copy to the device."""

from __future__ import annotations

import sys
import time
from typing import TextIO

WIDTH = 30


class Bar:
    """`advance(n)` adds n units of `total`; `close()` draws the full bar and ends the line.
    `enabled` False: draws nothing."""

    def __init__(self, label: str, total: int, unit: str = "", enabled: bool = True,
                 stream: TextIO | None = None) -> None:
        self.label, self.total, self.unit, self.enabled = label, max(total, 1), unit, enabled
        self.stream = stream if stream is not None else sys.stderr
        self.done, self.drawn_at, self.start = 0, 0.0, time.monotonic()

    def advance(self, n: int) -> None:
        self.done = min(self.done + n, self.total)
        now = time.monotonic()
        if self.enabled and now - self.drawn_at >= 0.1:
            self.drawn_at = now
            self._draw()

    def close(self) -> None:
        self.done = self.total  # finished (a file's header bytes are not counted as read)
        if self.enabled:
            self._draw()
            self.stream.write("\n")
            self.stream.flush()

    def _draw(self) -> None:
        frac = self.done / self.total
        fill = int(frac * WIDTH)
        amount = (f"{self.done / 2**30:.2f}/{self.total / 2**30:.2f} GiB" if self.unit == "bytes"
                  else f"{self.done}/{self.total}{' ' + self.unit if self.unit else ''}")
        self.stream.write(f"\r{self.label} [{'#' * fill}{'.' * (WIDTH - fill)}] "
                          f"{frac:4.0%} {amount} {time.monotonic() - self.start:.1f} s")
        self.stream.flush()
