"""`python -m cutile.checker`: the same as `cutile-check`."""

from .cli import main

raise SystemExit(main())
