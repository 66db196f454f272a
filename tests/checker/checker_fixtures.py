"""Sources and helpers shared by the cutile-check tests (imported by name: pytest puts this
folder on sys.path)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Result:
    """What one cutile-check run produced."""

    code: int
    out: str
    err: str


Runner = Callable[..., Result]

CLEAN = '''\
import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def fill(z: Mut[Tensor[f32, (128,)]]) -> None:
    z.store(ct.zeros((128,), f32))
'''

# Parameter `x` has no annotation: CT107 at line 6, column 39 (1-based).
BAD_SIGNATURE = '''\
import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def fill(z: Mut[Tensor[f32, (128,)]], x) -> None:
    z.store(ct.zeros((128,), f32))
'''

SYNTAX_ERROR = "def broken(:\n    pass\n"
# a partition used after the launch it moved into was synced (CT301, with a safe fix)
MOVED = '''\
import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def add(z: Mut[Tensor[f32, (128,)]], x: Tensor[f32, (-1,)]) -> None:
    z.store(ct.load_tile_like(x, z))


x = ct.ones((1024,), f32)
z = ct.zeros((1024,), f32).partition((128,))
add(z, x).sync()
print(z)
'''


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


_EXPECT = re.compile(r"#\s*E:\s*((?:CT\d{3}[\s,]*)+)")


def expected(source: str) -> list[tuple[int, str]]:
    """(line, code) for every `# E: CODE [CODE...]` comment, 1-based lines."""
    out = []
    for lineno, line in enumerate(source.splitlines(), 1):
        match = _EXPECT.search(line)
        if match:
            out += [(lineno, code) for code in re.findall(r"CT\d{3}", match.group(1))]
    return sorted(out)
