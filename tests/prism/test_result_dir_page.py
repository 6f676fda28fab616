"""The page a ``prism`` command writes into its ``--out`` folder (``prism score``, ``analyze``, ``audit``,
through :func:`benchsift.workflows.outputs.write_result_dir`) shows the same tables as ``benchsift report``
on that folder (audit s32 F02: the page was built inside the temporary folder before the folder's
manifest listed the CSV files, so it held the figures and none of the tables)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
from typer.testing import CliRunner

from benchsift.cli.main import app
from benchsift.simulate.verdicts import simulate_verdicts


def _tables(page: Path) -> list[str]:
    """The tables of the page, as HTML."""
    html = page.read_text(encoding="utf-8")
    return re.findall(r"<table\b.*?</table>", html, flags=re.S)


def _check_same_page(out: Path, tmp_path: Path, csvs: set[str]) -> None:
    """``out/index.html`` (written by the command) equals the page ``benchsift report`` writes on a copy of
    the folder under the same name, and shows a table of each CSV file."""
    copy = tmp_path / "again" / out.name
    shutil.copytree(out, copy)
    r = CliRunner().invoke(app, ["report", str(copy)])
    assert r.exit_code == 0, r.output
    assert {p.name for p in out.glob("*.csv")} == csvs
    page, again = out / "index.html", copy / "index.html"
    assert len(_tables(page)) == len(_tables(again)) >= len(csvs)
    html = page.read_text(encoding="utf-8")
    for name in csvs:
        assert name in html, name
    assert "other files left out" not in html
    assert html == again.read_text(encoding="utf-8")


def test_score_page_lists_the_tables(tmp_path: Path) -> None:
    v = tmp_path / "v.csv"
    simulate_verdicts(3, 40, random_state=0).table.to_csv(v, index=False)
    out = tmp_path / "out"
    r = CliRunner().invoke(app, ["prism", "score", str(v), "--bootstrap", "50", "--out", str(out)])
    assert r.exit_code == 0, r.output
    _check_same_page(out, tmp_path, {"leaderboard.csv", "pairs.csv", "domain_pscore.csv", "sc_variants.csv"})


def test_analyze_page_lists_the_table(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    axes = ["q", "if", "h", "mq", "sc", "c", "vis"]
    means = pd.DataFrame(rng.uniform(0.3, 0.9, (5, 7)), columns=axes)
    means.insert(0, "model", [f"m{i}" for i in range(5)])
    path = tmp_path / "means.csv"
    means.to_csv(path, index=False)
    out = tmp_path / "out"
    r = CliRunner().invoke(
        app, ["prism", "analyze", "--axis-means", str(path), "--n-boot", "50", "--out", str(out)]
    )
    assert r.exit_code == 0, r.output
    _check_same_page(out, tmp_path, {"axis_means.csv"})


def test_audit_page_lists_the_tables(tmp_path: Path) -> None:
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    simulate_verdicts(4, 60, random_state=0).table.to_csv(a, index=False)
    simulate_verdicts(4, 60, random_state=1).table.to_csv(b, index=False)
    out = tmp_path / "out"
    r = CliRunner().invoke(app, ["prism", "audit", str(a), str(b), "--items", "30", "--out", str(out)])
    assert r.exit_code == 0, r.output
    _check_same_page(out, tmp_path, {"cross_judge.csv"})


def test_foreign_page_refused_before_anything_is_written(tmp_path: Path) -> None:
    v = tmp_path / "v.csv"
    simulate_verdicts(3, 40, random_state=0).table.to_csv(v, index=False)
    out = tmp_path / "out"
    out.mkdir()
    (out / "index.html").write_text("<html>mine</html>")
    r = CliRunner().invoke(app, ["prism", "score", str(v), "--bootstrap", "50", "--out", str(out)])
    assert r.exit_code == 2, r.output
    assert "index.html" in r.output and "not written by benchsift" in r.output
    assert sorted(p.name for p in out.iterdir()) == ["index.html"]
