"""The harness judges a traceback's frames by where the cutile package really is: a checkout in a
folder named `cutile` (what `git clone` picks) holds its virtual environment's libraries below
`.../cutile/.venv/`, and those frames are not cutile's."""

from __future__ import annotations

import os
from pathlib import Path

import cutile.checker.cli
import cutile.lsp.server

from . import frames, lsp_target


def test_the_package_and_its_components_are_ours() -> None:
    for module in (cutile, cutile.checker.cli, cutile.lsp.server):
        assert frames.is_ours(module.__file__ or "")
    assert not frames.is_ours(frames.__file__)  # the harness (tests/) is not the package
    assert frames.is_harness(frames.__file__)


def test_libraries_under_a_folder_named_like_the_package_are_not_ours(tmp_path: Path) -> None:
    venv = tmp_path / "cutile" / ".venv" / "lib" / "python3.11" / "site-packages"
    for name in ("pygls/io_.py", "json/decoder.py", "cutile_other/lsp/x.py", "runtime/a.py"):
        assert not frames.is_ours(str(venv / name))
    assert not frames.is_ours("<frozen runpy>") and not frames.is_ours("")


def test_a_link_into_the_package_is_ours(tmp_path: Path) -> None:
    real = Path(frames.package_dirs()[0])
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    assert frames.is_ours(str(link / "anything.py"))


def test_a_library_traceback_is_reported_in_a_library() -> None:
    venv = os.path.join(os.sep, "tmp", "x", "cutile", ".venv", "lib", "pygls", "io_.py")
    text = ("Traceback (most recent call last):\n"
            f'  File "{venv}", line 166, in run_async\n'
            "json.decoder.JSONDecodeError: Expecting value\n")
    found = lsp_target._traceback(text)
    assert found is not None and found.startswith("traceback on stderr in a library")
    ours = text.replace(venv, cutile.checker.cli.__file__ or "")
    found = lsp_target._traceback(ours)
    assert found is not None and found.startswith("traceback on stderr in cli.py")
    assert lsp_target._traceback("cutile-lsp WARNING one line\n") is None
