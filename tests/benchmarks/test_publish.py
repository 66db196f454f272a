"""`python -m benchmarks.suite.publish`: docs/benchmarks.md shows the committed run's targets
table, the README its summary."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_suite_plan import _fake_records

from benchmarks.suite import publish, records


def test_publish_replaces_only_the_marked_section(tmp_path: Path) -> None:
    env = {"date": "2026-12-02 16:12 UTC", "nvidia_smi": {"name": "NVIDIA H200"}}
    records.write_json(tmp_path / "results.json", env, "python -m benchmarks.suite",
                       _fake_records())
    readme = tmp_path / "README.md"
    readme.write_text(f"# x\n\nbefore\n{publish.START}\nstale\n{publish.END}\nafter\n")
    publish.main([str(tmp_path), "--readme", str(readme)])
    text = readme.read_text()
    assert text.startswith("# x\n\nbefore\n") and text.endswith(f"{publish.END}\nafter\n")
    assert "stale" not in text and "NVIDIA H200" in text and "2026-12-02 16:12 UTC" in text
    assert "| # | kernel | targets met |" in text and "targets met" in text


def test_publish_needs_the_markers(tmp_path: Path) -> None:
    records.write_json(tmp_path / "results.json", {}, "cmd", _fake_records())
    readme = tmp_path / "README.md"
    readme.write_text("# no markers\n")
    with pytest.raises(SystemExit, match="markers"):
        publish.main([str(tmp_path), "--readme", str(readme)])
    assert readme.read_text() == "# no markers\n"


def test_publish_puts_the_table_in_the_docs_and_a_summary_in_the_readme(tmp_path: Path) -> None:
    env = {"date": "2026-12-02 16:12 UTC", "nvidia_smi": {"name": "NVIDIA H200"}}
    records.write_json(tmp_path / "results.json", env, "python -m benchmarks.suite",
                       _fake_records())
    readme, docs = tmp_path / "README.md", tmp_path / "docs" / "benchmarks.md"
    docs.parent.mkdir()
    for path in (readme, docs):
        path.write_text(f"# {path.name}\n{publish.START}\nstale\n{publish.END}\n")
    publish.main([str(tmp_path), "--readme", str(readme)])  # the docs page beside it is found
    table, short = docs.read_text(), readme.read_text()
    assert "| # | kernel | shape | ratio |" in table and "NVIDIA H200" in table
    assert "| # | kernel | shape | ratio |" not in short and "targets met" in short
    assert "| # | kernel | targets met | ratios (lowest - highest) |" in short
    assert "docs/benchmarks.md#latest-run" in short and "stale" not in table + short
