"""Every command at 80 columns: tables fit and no identifier (model, benchmark, selector, ...) is cut.

The data use long identifiers on purpose (``Glacier-m001-Qwen2.5-VL-72B-Inst:cat:[awq]``,
``bench00_MMBench_DEV:100:[v11]``). Each holds a bracketed word, which rich reads as a style tag and drops,
and an emoji code, which it replaces (``bench00_MMBench_DEV💯``): every place that shows one must show it
whole, in every format. For each
command the tables are read twice: with ``--format json`` (every cell in full) and as the terminal table at
80 columns. Every cell of an identifier column, and every cell
anywhere that is a model or benchmark name, must appear whole on one line of the terminal output; every
header must appear whole or in a ``legend:`` line; no line of a table is wider than 80; no ellipsis.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from rich.text import Text
from typer.testing import CliRunner

from benchsift.adaptive import fit_bank
from benchsift.cli.main import app
from benchsift.panel import Panel
from benchsift.report.console import ID_HEADERS
from benchsift.simulate import SimulationConfig, simulate_panel
from benchsift.simulate.verdicts import simulate_verdicts

WIDTH = 80
SUFFIX = "-Qwen2.5-VL-72B-Inst:cat:[awq]"
runner = CliRunner()


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("wide")
    sim = simulate_panel(SimulationConfig.small(items_per_benchmark=120, n_categories=3), random_state=0)
    p = sim.panel
    models = p.models.copy()
    models["model"] = models["model"] + SUFFIX
    items = p.items.copy()
    items["benchmark"] = items["benchmark"] + "_MMBench_DEV:100:[v11]"
    panel = Panel(p.scores, models, items)
    panel_path = root / "panel.parquet"
    panel.save(panel_path)
    # what `adaptive next` and `estimate` / `export` read, made here so that every command runs on its own
    # (with pytest-xdist the command that writes them may run in another worker, or after): a bank with a
    # calibrated interval (two folds, one budget: cheap) and a suite
    fit_bank(panel, misfit_folds=2, interval_budgets=(0.05,)).save(root / "given_bank.json")
    made = runner.invoke(app, ["compress", str(panel_path), "--out", str(root / "given_suite"), "--k", "2"])
    assert made.exit_code == 0, made.output
    long = panel.to_long()
    long_path = root / "long.csv"
    long[["model", "condition", "benchmark", "item", "category", "score"]].to_csv(long_path, index=False)
    v = simulate_verdicts(6, 120, unanswered_rate=0.02, random_state=0).table
    v["model"] = v["model"] + SUFFIX
    verdicts = root / "verdicts.csv"
    v.to_csv(verdicts, index=False)
    v2 = v.copy()
    rng = np.random.default_rng(1)
    flip = rng.random(len(v2)) < 0.05
    v2.loc[flip, "score"] = 1.0 - v2.loc[flip, "score"].fillna(0.0)
    verdicts2 = root / "verdicts2.csv"
    v2.to_csv(verdicts2, index=False)
    means = v[v["answered"]].groupby(["model", "axis"])["score"].mean().unstack()
    means_path = root / "means.csv"
    means.reset_index().to_csv(means_path, index=False)
    ids = set(models["model"]) | set(items["benchmark"])
    return {
        "root": root,
        "panel": str(panel_path),
        "long": str(long_path),
        "verdicts": str(verdicts),
        "verdicts2": str(verdicts2),
        "means": str(means_path),
        "bench": str(items["benchmark"].iloc[0]),
        "variant": str(models["model"].iloc[0]).split("-")[0],
        "ids": ids | set(v["model"]),
    }


def _commands(d: dict[str, Any]) -> list[list[str]]:
    P, root = d["panel"], d["root"]
    return [
        ["info", P],
        ["audit", P, "--dif-by", "none"],
        ["compare", P, "--n-boot", "100"],
        ["simulate", "-o", str(root / "sim.parquet"), "--models", "8", "--benchmarks", "3"],
        ["redundancy", "dimensions", P, "--benchmark", d["bench"], "--dimension-column", "dimension"],
        ["redundancy", "instances", P, "--benchmark", d["bench"], "--metric", "srcc,r2"],
        ["redundancy", "benchmarks", P],
        ["compress", P, "--out", str(root / "suite"), "--k", "2"],
        ["estimate", str(root / "given_suite"), P, "--n-boot", "50"],
        [
            "export",
            str(root / "given_suite"),
            "--to",
            "inspect",
            "-o",
            str(root / "exported"),
            "--ids-from",
            "inspect",
        ],
        [
            "adaptive",
            "bank",
            P,
            "-o",
            str(root / "bank.json"),
            "--interval-budgets",
            "0.05",
        ],  # one calibration
        ["adaptive", "next", str(root / "given_bank.json"), P, "--batch", "3"],
        ["adaptive", "simulate", P, "--splits", "1", "--budget", "0.1", "--no-interval"],
        ["validate", P, "--splits", "2", "--retentions", "0.05,0.5", "--selectors", "random,variance,vaw"],
        [
            "validate",
            P,
            "--protocol",
            "chronological",
            "--selectors",
            "random,variance",
            "--retentions",
            "0.5",
        ],
        [
            "validate",
            P,
            "--protocol",
            "end-to-end",
            "--splits",
            "2",
            "--selectors",
            "random",
            "--retentions",
            "0.5",
            "--k",
            "2",
        ],
        ["validate", P, "--protocol", "same-model", "--selectors", "random,variance", "--retentions", "0.5"],
        ["diagnose", "spectrum", P, "--by", "benchmark"],
        ["diagnose", "stage3", P, "--k", "2", "--n-boot", "50"],
        ["diagnose", "shelf-life", P, "--k", "2"],
        ["diagnose", "leftout", P, "--targets", d["bench"], "--sizes", "2,8", "--splits", "2"],
        ["diagnose", "checkpoints", P, "--variants", f"^{d['variant']}-", "--n-boot", "50"],
        ["diagnose", "families", P, "--min-models", "2"],
        ["prism", "score", d["verdicts"], "--bootstrap", "50"],
        ["prism", "analyze", "--axis-means", d["means"], "--bootstrap", "50"],
        ["prism", "audit", d["verdicts"], d["verdicts2"], "--items", "50"],
        ["import", "long", d["long"], "-o", str(root / "imported.parquet")],
        ["demo", "--out", str(root / "demo")],
    ]


def _tagless(name: str) -> str:
    """``name`` as rich prints markup: ``bench00_MMBench_DEV:100:[v11]`` -> ``bench00_MMBench_DEV💯``."""
    return Text.from_markup(name, emoji=True).plain


def _check(text: str, tables: list[dict[str, Any]], ids: set[str]) -> None:
    lines = text.splitlines()
    cells = [c for t in tables for c in [t["title"], *t["columns"], *(v for r in t["rows"] for v in r)]]
    for piece in [*lines, *cells]:  # no identifier printed without its bracketed word
        for name in ids:
            assert _tagless(name) not in piece.replace(name, ""), (name, piece)
    assert "…" not in text and "..." not in "".join(ln for ln in lines if "│" in ln)
    for ln in lines:
        if any(ch in ln for ch in "│┃━─┏┗└┌"):
            assert len(ln) <= WIDTH, ln
    legend = " ".join(ln for ln in lines if ln.startswith("legend:") or ln.startswith("anch"))

    def whole(s: str) -> bool:
        return any(s in ln for ln in lines)

    for t in tables:
        for j, h in enumerate(t["columns"]):
            # a header wrapped between its words, or after a - or _ ("components_" / "95")
            wrapped = all(whole(word) for word in re.findall(r"[^\s_-]*[_-]+|[^\s_-]+", h))
            assert whole(h) or wrapped or f"= {h}" in legend or f"= {h};" in text, (t["title"], h)
            is_id = j == 0 or h.strip().lower() in ID_HEADERS
            for row in t["rows"]:
                cell = row[j]
                if cell and (is_id or cell in ids):
                    assert whole(cell), (t["title"], h, cell)


@pytest.mark.parametrize("index", range(24))
def test_every_command_fits_80_columns(index: int, data: dict[str, Any]) -> None:
    args = _commands(data)[index]  # each run's consoles are made under its COLUMNS
    js = runner.invoke(app, [*args, "--format", "json"], env={"COLUMNS": str(WIDTH)})
    assert js.exit_code == 0, js.output
    obj = json.loads(js.stdout)
    assert obj["tables"], f"{args[0]} printed no table"
    table = runner.invoke(app, args, env={"COLUMNS": str(WIDTH)})
    assert table.exit_code == 0, table.output
    _check(table.output, obj["tables"], data["ids"])


def test_every_command_is_listed() -> None:
    """The list above covers every command that prints tables (all but `report` and the API-calling
    prism engine commands, which need a model endpoint: tests/prism/test_engine_80_columns.py runs those
    against the scripted server)."""
    import typer.main

    group = typer.main.get_command(app)
    names: set[str] = set()
    ctx = typer.Context(group)
    for name in group.list_commands(ctx):  # type: ignore[attr-defined]
        cmd = group.load(name)  # type: ignore[attr-defined]  # the root group imports a command on use
        if hasattr(cmd, "commands"):
            names |= {f"{name} {sub}" for sub in cmd.commands}
        else:
            names.add(name)
    listed = {
        " ".join(a[:2]) if a[0] in ("redundancy", "diagnose", "prism", "import", "adaptive") else a[0]
        for a in _commands(
            {
                "panel": "P",
                "root": Path("r"),
                "bench": "b",
                "variant": "v",
                "verdicts": "v",
                "verdicts2": "w",
                "means": "m",
                "long": "l",
            }
        )
    }
    engine = {"prism sources", "prism build", "prism run", "prism grade"}
    importers = {n for n in names if n.startswith("import ")} - {"import long"}
    assert names - listed == {"report"} | engine | importers


def test_a_real_terminal_of_80_columns(data: dict[str, Any]) -> None:
    """The installed entry point in a subprocess with COLUMNS=80 (rich reads it at start-up)."""
    env = {**os.environ, "COLUMNS": str(WIDTH)}
    args = [
        "validate",
        data["panel"],
        "--splits",
        "2",
        "--retentions",
        "0.05,0.5",
        "--selectors",
        "random,variance,vaw,pointbiserial,anchorpoints",
    ]
    cmd = [sys.executable, "-m", "benchsift"]
    out = subprocess.run([*cmd, *args], capture_output=True, text=True, env=env, check=True)
    js = subprocess.run(
        [*cmd, *args, "--format", "json"], capture_output=True, text=True, env=env, check=True
    )
    _check(out.stdout, json.loads(js.stdout)["tables"], data["ids"])
    assert "legend: " in out.stdout  # the selector headers were abbreviated, with their full names


def test_other_formats_hold_every_cell(data: dict[str, Any]) -> None:
    args = [
        "validate",
        data["panel"],
        "--splits",
        "2",
        "--retentions",
        "0.5",
        "--selectors",
        "random,variance",
    ]
    js = json.loads(runner.invoke(app, [*args, "--format", "json"]).stdout)
    first = js["tables"][0]
    csv_out = runner.invoke(app, [*args, "--format", "csv"]).stdout
    block = csv_out.split("\n\n")[0].splitlines()
    assert block[0] == f"# {first['title']}"
    frame = pd.read_csv(pd.io.common.StringIO("\n".join(block[1:])), dtype=str, keep_default_na=False)
    assert list(frame.columns) == first["columns"] and frame.to_numpy().tolist() == first["rows"]
    md = runner.invoke(app, [*args, "--format", "markdown"]).stdout
    assert "| " + " | ".join(first["columns"]) + " |" in md
    assert "| " + " | ".join(first["rows"][0]) + " |" in md
    assert js["warnings"] == [w for w in js["warnings"] if isinstance(w, str)]
