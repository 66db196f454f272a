"""cutile.lsp: the cutile language server (`cutile-lsp`, `python -m cutile.lsp`).

Handlers in `server` stay thin; the work happens in small pure modules (`engine`, `convert`,
`positions`, `actions`, `hover`, `inlay`, `options`, `project`, `scheduler`) that tests drive
without a client.
"""

from __future__ import annotations

SERVER_NAME = "cutile-lsp"
