"""A panel item's ``choices`` cell of deeply nested brackets (security review s31, t16).

The item view parses a ``[...]`` cell as JSON to letter the choices; 5,000 nested brackets exhausted the
parser's recursion, so ``report --panel`` and ``audit --out`` ended in an internal error (exit 70), the
audit after writing its files. Such a cell is item metadata a person reads: it is shown as its text, as a
cell that is not JSON is, and both commands succeed; a plain JSON list of choices is still lettered.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from benchsift.cli.main import app
from benchsift.panel import Panel

from .conftest import planted

runner = CliRunner()
DEEP = "[" * 5000 + "]" * 5000


@pytest.fixture(scope="module")
def deep_panel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    p = planted(1, n_benchmarks=2, n_categories=1, items_per_benchmark=150).panel
    items = p.items
    items["choices"] = [DEEP if i % 2 == 0 else '["yes", "no"]' for i in range(len(items))]
    return Panel(p.scores, p.models, items).save(tmp_path_factory.mktemp("deep") / "panel.parquet")


def test_audit_out_and_report_panel_show_a_deep_choices_cell_as_text(
    deep_panel: Path, tmp_path: Path
) -> None:
    out = tmp_path / "audit"
    r = runner.invoke(app, ["audit", str(deep_panel), "--out", str(out)])
    assert r.exit_code == 0, r.output
    page = (out / "index.html").read_text()
    assert "A. yes" in page  # a plain list is still lettered
    assert DEEP[:300] in page  # the deep cell shown as the text it is
    r = runner.invoke(app, ["report", str(out), "--panel", str(deep_panel), "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["items"] > 0
