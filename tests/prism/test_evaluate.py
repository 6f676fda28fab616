"""``benchsift.prism.evaluate`` (build -> run -> grade from Python) against the scripted server: the verdicts
the scripts imply, the same table as the four CLI commands, and a rerun answered from the cache."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from engine_world import invoke, run_args, write_config
from test_chain import MODELS, check

from benchsift.prism import collect_sources, evaluate


def test_evaluate_matches_the_cli_chain(world: dict, server, tmp_path: Path) -> None:
    root, img = world["root"], world["images"]
    cfg = write_config(tmp_path / "models.toml", server.url, MODELS)
    items = tmp_path / "items.jsonl"
    src = collect_sources(
        items, raw=[("okvqa", root / "okvqa.jsonl"), ("ai2d", root / "ai2d.jsonl")], images=img
    )
    assert src.counts["items"] == len(world["facts"])
    assert (
        src.to_dict()["counts"]
        == invoke(
            "sources",
            "--raw",
            f"okvqa={root / 'okvqa.jsonl'}",
            "--raw",
            f"ai2d={root / 'ai2d.jsonl'}",
            "--images",
            str(img),
            "--out",
            str(tmp_path / "items_cli.jsonl"),
        )["counts"]
    )

    seen: list[tuple[str, int, int]] = []
    stage = [""]
    cache = tmp_path / "cache.sqlite"
    ev = evaluate(
        cfg,
        items,
        tmp_path / "eval",
        images=img,
        cache=cache,
        progress=lambda d, t: seen.append((stage[0], d, t)),
        on_stage=lambda name: stage.__setitem__(0, name),
    )
    # one ProgressFn, each stage from (0, total) to (total, total), one report per artifact / record
    n_records = ev.stages["run"].counts["records"]
    totals = {"build": ev.stages["build"].counts["artifacts"], "run": n_records, "grade": n_records}
    assert [s for s, _, _ in seen] == [s for s in totals for _ in range(totals[s] + 1)]
    for s, total in totals.items():
        assert [(d, t) for x, d, t in seen if x == s] == [(d, total) for d in range(total + 1)]
    arts = [json.loads(x) for x in (tmp_path / "eval" / "artifacts.jsonl").read_text().splitlines()]
    constraints = {a["item"]: a["data"]["constraints"] for a in arts if a["axis"] == "if"}
    check(ev.to_frame(), world["facts"], constraints)
    # the broken model (HTTP 400 on every request) loses a fifth of the run
    run = ev.stages["run"]
    assert run.lost == run.counts["unanswered"] > 0 and run.incomplete(0.25) is None
    assert run.incomplete(0.1) is not None and "got no answer" in (run.incomplete(0.1) or "")

    # the CLI chain on the same items, with its own cache: the same verdicts and the same axis means
    cli = tmp_path / "cli"
    cli.mkdir()
    invoke(
        "build",
        "--items",
        str(items),
        "--images",
        str(img),
        "--config",
        str(cfg),
        "--out",
        str(cli / "artifacts.jsonl"),
    )
    invoke(*run_args(items, cli / "artifacts.jsonl", img, cfg, cli / "records.jsonl", "--max-lost", "0.25"))
    g = invoke(
        "grade",
        "--items",
        str(items),
        "--artifacts",
        str(cli / "artifacts.jsonl"),
        "--records",
        str(cli / "records.jsonl"),
        "--config",
        str(cfg),
        "--out",
        str(cli / "verdicts.csv"),
    )
    pd.testing.assert_frame_equal(
        pd.read_csv(cli / "verdicts.csv"), pd.read_csv(tmp_path / "eval" / "verdicts.csv")
    )
    assert g["axis_means"] == ev.stages["grade"].to_dict()["axis_means"]
    # the grade summary's axis means by hand: answered rows, sc over the items right at turn 0 (sc_B)
    df = ev.to_frame()
    keep = df["answered"] & ((df["axis"] != "sc") | df["sc_turn0_correct"].fillna(False).astype(bool))
    by_hand = df[keep].groupby(["model", "axis"])["score"].mean().unstack()
    assert sorted(g["axis_means"]) == sorted(by_hand.index)
    for model, row in g["axis_means"].items():
        assert sorted(row) == sorted(by_hand.columns)
        for axis, value in row.items():
            hand = by_hand.loc[model, axis]
            if pd.isna(hand):
                assert value is None  # this model has no such item (NaN, written as null)
            else:
                assert value == pytest.approx(hand, abs=1e-10)  # to_json: 10 digits

    # a second evaluate answers from the shared cache: only the broken model's requests reach the server
    before = len(server.requests())
    again = evaluate(cfg, items, tmp_path / "eval2", images=img, cache=cache)
    assert {x["model"] for x in server.requests()[before:]} == {"broken"}
    pd.testing.assert_frame_equal(again.to_frame(), ev.to_frame())
    assert "Evaluation(" in repr(ev) and len(repr(ev)) < 600
