"""``prism run`` against replies that carry no text: recorded as unanswered (NaN when graded, never a wrong
answer), with a cause that names the model and the reply's finish reason."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from engine_world import prepare_run

from benchsift.prism.engine import grade, run


def test_a_reply_without_text_is_unanswered_and_names_its_model(world: dict, server, tmp_path: Path) -> None:
    cfg, items, arts = prepare_run(world, tmp_path, server.url, ["correct", "mute"], 4)
    recs = tmp_path / "records.jsonl"
    res = run(items, arts, cfg, recs, images=world["images"], cache=tmp_path / "cache.sqlite")
    rows = [json.loads(x) for x in recs.read_text().splitlines()]
    mute = [r for r in rows if r["model"] == "mute"]
    assert mute and not any(r["answered"] for r in mute)
    assert {r["error"] for r in mute} == {"mute: reply has no text (finish_reason 'length')"}
    assert all(r["answered"] for r in rows if r["model"] == "correct")
    # half the records lost: the stage's one-line cause says which model and why
    why = res.incomplete(0.1)
    assert why == f"{len(mute)} of {len(rows)} got no answer; first cause: {mute[0]['error']}"

    verdicts = tmp_path / "verdicts.csv"
    grade(items, arts, recs, verdicts, config=cfg, cache=tmp_path / "cache.sqlite")
    df = pd.read_csv(verdicts)
    assert df.loc[df["model"] == "mute", "score"].isna().all()
    assert not df.loc[df["model"] == "mute", "answered"].any()
    assert df.loc[df["model"] == "correct", "score"].eq(1.0).all()
