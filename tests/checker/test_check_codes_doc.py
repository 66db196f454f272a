"""docs/codes.md is generated from the registry and must be current."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from cutile.diagnostics.codes import CODES

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "gen_codes_doc.py"


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_codes_doc", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_codes_md_is_up_to_date() -> None:
    text = (ROOT / "docs" / "codes.md").read_text(encoding="utf-8")
    assert text == load_script().render(), "run: python scripts/gen_codes_doc.py"


def test_every_code_has_a_section() -> None:
    text = load_script().render()
    for code in CODES.values():
        assert f"### {code.code}\n\n**{code.name}**: {code.summary}." in text


def test_check_mode_detects_a_stale_file(tmp_path: Path) -> None:
    module = load_script()
    module.OUTPUT = tmp_path / "codes.md"
    module.OUTPUT.write_text("stale\n")
    assert module.main(["--check"]) == 1
    assert module.main([]) == 0
    assert module.main(["--check"]) == 0


def test_script_runs_as_a_program() -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True,
                          text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
