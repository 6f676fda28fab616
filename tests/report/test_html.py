"""``index.html``: what the page holds, read back from the demo and from small hand-made folders."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from benchsift._fileio import atomic_path
from benchsift.cli.main import app
from benchsift.report.figures import new_figure, save_figure
from benchsift.report.html import collect_report, decode_table_data, table_data, write_report

runner = CliRunner()


def _write(path: Path, text: str) -> None:
    """Write ``path`` as benchsift does (recorded in the folder's manifest)."""
    with atomic_path(path) as tmp:
        tmp.write_text(text)


def test_demo_writes_one_page_with_every_figure_and_caption(demo_dir: tuple[Path, dict[str, Any]]) -> None:
    out, summary = demo_dir
    index = out / "index.html"
    assert summary["report"] == str(index)
    text = index.read_text(encoding="utf-8")
    svgs = sorted(out.rglob("*.svg"))
    assert len(svgs) == 12
    # Every figure is on the page as an image of its file (never inlined as markup) with the caption stored
    # with it.
    assert text.count('<img src="data:image/svg+xml;base64,') == len(svgs)
    assert "<svg" not in text
    page, sections = collect_report(out)
    assert [s.key for s in sections] == [
        "panel",
        "redundancy",
        "compression",
        "loop",
        "validation",
        "prism",
        "audit",
    ]
    figures = [f for s in sections for f in s.figures]
    assert len(figures) == len(svgs)
    for f in figures:
        assert len(f.caption) > 80, f.name
        assert "Data: simulated" in f.caption, f.name
    # What was run: the library call and the input's fingerprint for every section.
    for s in sections:
        assert "fingerprint_sha256" in s.run and re.fullmatch(r"[0-9a-f]{64}", s.run["fingerprint_sha256"])
        assert s.run["input"].startswith("simulated")
    assert "benchsift demo" in page["run"]["command"]
    # No network: no http(s) URL is loaded (only links and text may name one), no external script or style.
    assert not re.search(r'(src|href)="https?:', text)
    assert "<link " not in text
    # Each raw file is linked with a relative path, led by ./
    for p in out.rglob("*"):
        hidden = any(part.startswith(".") for part in p.relative_to(out).parts)  # e.g. benchsift's manifest
        if p.is_file() and not hidden and p.name not in ("index.html", "summary.json"):
            assert f'href="./{p.relative_to(out).as_posix()}"' in text


def test_demo_does_not_write_the_long_csv_unless_asked(demo_dir: tuple[Path, dict[str, Any]]) -> None:
    out, summary = demo_dir
    assert not (out / "panel" / "long.csv").exists()
    assert (out / "panel" / "panel.parquet").is_file()
    total = sum(p.stat().st_size for p in out.rglob("*") if p.is_file() and p.name != "index.html")
    assert total < 8_000_000  # the 22.9 MB long.csv was most of the old demo folder
    # the page: every table row, and item views only for the tables computed on the panel in the folder
    # (the demo's other sections ran on panels of their own, not saved: test_page_safety.py)
    assert (out / "index.html").stat().st_size < 6_000_000


def test_ids_of_the_page_are_unique(demo_dir: tuple[Path, dict[str, Any]]) -> None:
    out, _ = demo_dir
    text = (out / "index.html").read_text(encoding="utf-8")
    ids = re.findall(r'\bid="([^"]+)"', text)
    assert len(ids) == len(set(ids))
    # Every href="#..." and aria reference points to an id of the page.
    refs = set(re.findall(r'href="#([^"]+)"', text))
    refs |= {
        r for refs in re.findall(r'aria-(?:labelledby|describedby)="([^"]+)"', text) for r in refs.split()
    }
    assert refs <= set(ids)


def test_same_folder_same_bytes(tmp_path: Path) -> None:
    fig = new_figure(3, 2)
    fig.add_subplot().plot([0, 1], [0, 1])
    save_figure(fig, tmp_path / "a", caption="a line")
    save_figure(fig, tmp_path / "b", caption="a line")
    # Fixed svg.hashsalt: the same figure gives the same bytes (clip-path ids included).
    assert (tmp_path / "a.svg").read_bytes() == (tmp_path / "b.svg").read_bytes()
    first = write_report(tmp_path).read_bytes()
    assert write_report(tmp_path).read_bytes() == first


def test_tables_hold_every_row_and_json_records(tmp_path: Path) -> None:
    n = 1005
    rows = "\n".join(f"m{i},{i / 7:.6f}," for i in range(n))
    _write(tmp_path / "scores.csv", "model,score,extra\n" + rows + "\n")
    _write(
        tmp_path / "result.json",
        json.dumps(
            {
                "n_models": 3,
                "results": [{"selector": "vaw", "rho": 0.91}, {"selector": "random", "rho": None}],
                "notes": ["a note"],
                "warnings": ["a warning"],
            }
        ),
    )
    _, sections = collect_report(tmp_path)
    (sec,) = sections
    csv_table = next(t for t in sec.tables if t.source == "scores.csv")
    assert csv_table.total_rows == n and len(csv_table.rows) == n  # every row, not the first 200
    assert csv_table.rows[1] == ["m1", "0.1429", "n/a"]  # 1/7 shortened, empty cell shown as n/a
    assert csv_table.rows[-1][0] == f"m{n - 1}"
    rec = next(t for t in sec.tables if t.source == "result.json")
    assert rec.columns == ["selector", "rho"] and rec.rows == [["vaw", "0.91"], ["random", "n/a"]]
    assert sec.notes == ["result.json: a note"] and sec.warnings == ["result.json: a warning"]
    assert ("result.json: n_models", "3") in sec.headline
    html = write_report(tmp_path).read_text()
    # every row travels in the table's JSON data (the script pages through it); the first page is HTML
    tables = [
        json.loads(m)
        for m in re.findall(r'<script type="application/json" class="tdata">(.*?)</script>', html)
    ]
    data = next(t for t in tables if t["columns"] == ["model", "score", "extra"])
    rows = decode_table_data(data)
    assert len(rows) == n and rows == csv_table.rows
    # stored column by column: the empty 'extra' column as one distinct value and an index per row
    assert data["cols"][2] == {"d": ["n/a"], "i": [0] * n} and data["cols"][0][:2] == ["m0", "m1"]
    assert "warning: result.json: a warning" in html


def test_a_long_table_is_on_the_page_whole_and_stored_compactly(tmp_path: Path) -> None:
    # 60 models x 1,000 items as a long table: 60,000 rows x 5 columns = 300,000 cells, beyond the old
    # 250,000-cell cap (which kept the first 50,000 rows).
    n_models, n_items = 60, 1000
    rng = np.random.default_rng(0)
    lines = ["model,benchmark,item,score,flag"]
    for m in range(n_models):
        for i in range(n_items):
            lines.append(f"model-{m},MMMU,item-{i},{int(rng.random() < 0.6)},{'ok' if i % 7 else 'check'}")
    _write(tmp_path / "long.csv", "\n".join(lines) + "\n")
    html = write_report(tmp_path).read_text()
    (payload,) = re.findall(r'<script type="application/json" class="tdata">(.*?)</script>', html)
    data = json.loads(payload)
    rows = decode_table_data(data)
    assert len(rows) == n_models * n_items == data["n"]
    assert rows[-1] == [f"model-{n_models - 1}", "MMMU", f"item-{n_items - 1}", rows[-1][3], "ok"]
    assert [r[0] for r in rows[::n_items]] == [f"model-{m}" for m in range(n_models)]
    # each column repeats: stored as distinct values and an index per row
    assert [len(c["d"]) for c in data["cols"]] == [n_models, 1, n_items, 2, 2]
    # smaller than the rows written out: measured on this table
    plain = len(json.dumps(rows, separators=(",", ":")))
    assert len(payload) < 0.6 * plain
    assert table_data(collect_report(tmp_path)[1][0].tables[0]) == data


def test_only_files_benchsift_wrote_are_on_the_page(tmp_path: Path) -> None:
    # A working folder: the user's own input CSV beside a command's output. Before, `report .` put the
    # user's CSV on the page (and its rows).
    (tmp_path / "my_scores.csv").write_text("model,score\nsecret-model,0.5\n")
    _write(tmp_path / "out.csv", "model,score\nm1,0.25\n")
    changed = tmp_path / "edited.csv"
    _write(changed, "a\n1\n")
    changed.write_text("a\n2\n")  # changed after benchsift wrote it: no longer benchsift's
    page, sections = collect_report(tmp_path)
    (sec,) = sections
    assert [t.source for t in sec.tables] == ["out.csv"]
    assert page["not_benchsift"] == 2
    text = write_report(tmp_path).read_text()
    assert "secret-model" not in text and "my_scores.csv" not in text
    r = runner.invoke(app, ["report", str(tmp_path)])
    assert r.exit_code == 0 and "left out 2 file(s) benchsift did not write" in r.output


def test_json_records_written_as_csv_beside_are_shown_once(tmp_path: Path) -> None:
    # The audit writes its duplicates into audit.json and duplicates.csv: the page showed both.
    dup = [{"benchmark": "b", "item_a": "1", "item_b": "2", "similarity": 0.99}]
    _write(tmp_path / "audit.json", json.dumps({"duplicates": dup, "other": dup}))
    _write(tmp_path / "duplicates.csv", "benchmark,item_a,item_b,similarity\nb,1,2,0.99\n")
    _, (sec,) = collect_report(tmp_path)
    assert sorted(t.name for t in sec.tables) == ["audit.json: other", "duplicates.csv"]


def test_never_overwrites_a_foreign_index_html(tmp_path: Path) -> None:
    _write(tmp_path / "x.csv", "a\n1\n")
    mine = tmp_path / "index.html"
    mine.write_text("<html>my own page</html>")
    result = runner.invoke(app, ["report", str(tmp_path)])
    assert result.exit_code == 2
    assert "index.html: exists and was not written by benchsift" in result.output
    assert mine.read_text() == "<html>my own page</html>"


def test_files_outside_the_folder_are_not_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret.csv"
    secret.write_text("password\nhunter2\n")
    out = tmp_path / "out"
    out.mkdir()
    _write(out / "ok.csv", "a\n1\n")
    (out / "link.csv").symlink_to(secret)
    page, sections = collect_report(out)
    assert any("link.csv: skipped (it points outside" in w for w in page["warnings"])
    text = write_report(out).read_text()
    assert "hunter2" not in text


def test_report_command_on_a_redundancy_out_folder(tmp_path: Path) -> None:
    from benchsift.simulate import SimulationConfig, simulate_panel

    panel_path = tmp_path / "p.parquet"
    simulate_panel(SimulationConfig.small(), random_state=1).panel.save(panel_path)
    out = tmp_path / "bench"
    r = runner.invoke(
        app, ["redundancy", "benchmarks", str(panel_path), "--metric", "srcc", "--out", str(out)]
    )
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["report", str(out), "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["report"] == str(out / "index.html")
    assert sum(s["figures"] for s in data["sections"]) == len(list(out.glob("*.svg"))) > 0


def test_report_of_a_missing_folder_is_an_input_error(tmp_path: Path) -> None:
    r = runner.invoke(app, ["report", str(tmp_path / "nope")])
    assert r.exit_code == 2
    assert "not a directory (expected an existing output folder" in r.output


@pytest.mark.parametrize("name", ["summary.json", "manifest.json"])
def test_unreadable_run_file_is_a_page_warning(tmp_path: Path, name: str) -> None:
    _write(tmp_path / name, "{not json")
    _write(tmp_path / "a.csv", "x\n1\n")
    page, _ = collect_report(tmp_path)
    assert any(w.startswith(f"{name}: not readable as JSON") for w in page["warnings"])


def test_demo_loop_section_estimates_the_held_out_models(demo_dir: tuple[Path, dict[str, Any]]) -> None:
    out, summary = demo_dir
    loop = summary["sections"]["loop"]
    table = pd.read_csv(out / "loop" / "estimate.csv")
    assert table["model"].nunique() == 5
    has = table["suite_mean"].notna()
    # recomputed from the table the section wrote: the numbers it reports are the table's
    assert loop["mae_estimate"] == pytest.approx((table["estimate"] - table["truth"])[has].abs().mean())
    assert loop["mae_suite_mean"] == pytest.approx((table["suite_mean"] - table["truth"])[has].abs().mean())
    assert loop["interval_coverage"] == pytest.approx(
        ((table["low"] <= table["truth"]) & (table["truth"] <= table["high"])).mean()
    )
    assert loop["mae_estimate"] < loop["mae_suite_mean"]  # the suite's hard items: its mean is biased
    for tool in ("lm-eval", "inspect"):
        assert (out / "loop" / f"export-{tool}" / "export.json").is_file()
    runs = pd.read_csv(out / "loop" / "runs.csv", dtype={"item": str})
    items = pd.read_csv(out / "loop" / "suite" / "items.csv", dtype={"item": str})
    ran = set(zip(runs["benchmark"], runs["item"], strict=True))
    assert ran == set(zip(items["benchmark"], items["item"], strict=True))
