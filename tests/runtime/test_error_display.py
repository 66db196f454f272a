"""Uncaught run-time errors print like `cutile-check --output-format full`, from the user's call."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = '''\
import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def scale(z: Mut[Tensor[f32, (128,)]], x: Tensor[f32, (-1,)], alpha: f32) -> None:
    z.store(ct.load_tile_like(x, z) * alpha)


def main() -> None:
    x = ct.ones((1024,), f32)
    z = ct.zeros((1024,), f32).partition((128,))
    op = scale(z, x, 2.0)
    z.unpartition()
    op.sync()


main()
'''


def run_script(tmp_path: Path, source: str, **env: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "app.py"
    path.write_text(source)
    environ = {**os.environ, "CUTILE_BACKEND": "interpreter", "PYTHONPATH": str(ROOT), **env}
    return subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                          env=environ, cwd=tmp_path, timeout=120, check=False)


def test_ownership_error_shows_carets_notes_and_user_frames_only(tmp_path: Path) -> None:
    done = run_script(tmp_path, SCRIPT)
    assert done.returncode == 1
    err = done.stderr
    path = tmp_path / "app.py"
    expected = textwrap.dedent(f"""\
        {path}:14:5: error[CT301]: 'z' was moved into a launch of 'scale' that has not been synced; use the values returned by .sync() instead
           |
        14 |     z.unpartition()
           |     ^^^^^^^^^^^^^^^
          = note: {path}:13:16: 'z' was moved here
           |
        13 |     op = scale(z, x, 2.0)
           |                ^
        """)  # noqa: E501
    assert expected in err, err
    trace = err[err.index("Traceback"):err.index("OwnershipError")]
    assert trace.count('File "') == 2, trace  # <module> and main(): nothing inside cutile
    assert f'File "{path}", line 14, in main' in trace
    # one root cause: the launch the error left unsynced does not warn CT305 as well
    assert "CT305" not in err


def test_internal_frames_kept_on_request(tmp_path: Path) -> None:
    done = run_script(tmp_path, SCRIPT, CUTILE_TRACEBACK="full")
    trace = done.stderr[:done.stderr.index("OwnershipError")]
    assert "ownership.py" in trace and "error[CT301]" in done.stderr


def test_other_exceptions_keep_python_display(tmp_path: Path) -> None:
    done = run_script(tmp_path, "import cutile\nraise KeyError('plain')\n")
    assert done.stderr.rstrip().endswith("KeyError: 'plain'")
    assert "error[" not in done.stderr
