"""The API-calling engine commands at 80 columns: tables fit and no model name is cut.

``prism sources``, ``build``, ``run`` and ``grade`` against the scripted server, with endpoint names as long
as real ones (``correct-Qwen2.5-VL-72B-Instruct-AWQ``; the server scripts by the request's ``model`` field,
so the names can be long). Each command runs with ``--format json`` (every table cell in full) and then as
the terminal table at 80 columns: every table line is at most 80 wide, nothing is cut with an ellipsis, and
every cell that is a model name appears whole on one line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from engine_world import make_world, write_config
from fake_server import FakeServer
from typer.testing import CliRunner

from benchsift.cli.main import app

WIDTH = 80
SUFFIX = "-Qwen2.5-VL-72B-Instruct-AWQ"
MODELS = ["correct", "sycophant", "stubborn"]


def _check(text: str, tables: list[dict[str, Any]], names: set[str]) -> None:
    lines = text.splitlines()
    assert "…" not in text
    for ln in lines:
        if any(ch in ln for ch in "│┃━─┏┗└┌"):
            assert len(ln) <= WIDTH, ln
    for t in tables:
        for row in t["rows"]:
            for cell in row:
                if cell in names:
                    assert any(cell in ln for ln in lines), (t["title"], cell)


@pytest.fixture()
def chain(tmp_path: Path) -> dict[str, Any]:
    world = make_world(tmp_path / "world", n=6)
    srv = FakeServer(world["world"]).start()
    try:
        yield {"world": world, "url": srv.url, "root": tmp_path}
    finally:
        srv.stop()


def test_engine_commands_fit_80_columns(chain: dict[str, Any]) -> None:
    world, root = chain["world"], chain["root"]  # each run's consoles are made under its COLUMNS
    cfg = write_config(root / "models.toml", chain["url"], MODELS, concurrency=8, name_suffix=SUFFIX)
    img = str(world["images"])
    items, arts, recs, verd = (str(root / n) for n in ("items.jsonl", "arts.jsonl", "recs.jsonl", "v.csv"))
    src = world["root"]
    steps = [
        ["prism", "sources", "--raw", f"okvqa={src / 'okvqa.jsonl'}", "--raw", f"ai2d={src / 'ai2d.jsonl'}"]
        + ["--images", img, "--out", items],
        ["prism", "build", "--items", items, "--images", img, "--config", str(cfg), "--out", arts],
        ["prism", "run", "--items", items, "--artifacts", arts, "--images", img, "--config", str(cfg)]
        + ["--out", recs, "--axes", "q,h,sc"],
        ["prism", "grade", "--items", items, "--artifacts", arts, "--records", recs, "--config", str(cfg)]
        + ["--out", verd],
    ]
    names = {m + SUFFIX for m in MODELS}
    runner = CliRunner()
    n_named = 0
    for args in steps:
        js = runner.invoke(app, [*args, "--format", "json"], env={"COLUMNS": str(WIDTH)})
        assert js.exit_code == 0, js.output
        tables = json.loads(js.stdout)["tables"]
        assert tables, f"{' '.join(args[:2])} printed no table"
        n_named += sum(cell in names for t in tables for row in t["rows"] for cell in row)
        # the same command again prints its tables for the terminal (answered from the cache: no new calls)
        table = runner.invoke(app, args, env={"COLUMNS": str(WIDTH)})
        assert table.exit_code == 0, table.output
        _check(table.output, tables, names)
    assert n_named > 0  # the run and grade tables do name the models
