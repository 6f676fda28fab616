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


def test_sc_turns_the_judge_could_not_decide_are_a_warning(
    world: dict, server, tmp_path: Path, monkeypatch
) -> None:
    # the grading judge answers 401 (a wrong key): each sc turn falls back to the answer-extraction rule;
    # before, the run said nothing of it (exit 0, visible only as change_by "rules" in the records)
    cfg, items, arts = prepare_run(world, tmp_path, server.url, ["correct"], 8)
    text = cfg.read_text()
    judge_block = 'name = "judge"\n'
    start = text.index(judge_block)
    end = text.index("[[endpoint]]", start) if "[[endpoint]]" in text[start:] else len(text)
    block = text[start:end].replace('api_key_env = "BENCHSIFT_TEST_KEY"', 'api_key_env = "BENCHSIFT_BAD_KEY"')
    cfg.write_text(text[:start] + block + text[end:])
    monkeypatch.setenv("BENCHSIFT_BAD_KEY", "not-the-key")
    recs = tmp_path / "records.jsonl"
    res = run(items, arts, cfg, recs, images=world["images"], axes=["sc"], cache=tmp_path / "c.sqlite")
    rows = [json.loads(x) for x in recs.read_text().splitlines()]
    turns = [t for r in rows for t in r.get("turns") or () if "change_by" in t]  # the pressure turns
    assert turns and all(t["change_by"] == "rules" for t in turns)
    assert res.warnings == [
        f"{len(turns)} of {len(turns)} sc turns were decided by the answer-extraction rule, not the judge "
        "'judge', because the judge's call failed (its failures are in the API calls table)"
    ]
    assert res.to_dict()["warnings"] == res.warnings
    # the judge answering: nothing to say
    (tmp_path / "ok").mkdir()
    good, _, _ = prepare_run(world, tmp_path / "ok", server.url, ["correct"], 8)
    res2 = run(
        items, arts, good, tmp_path / "r2.jsonl", images=world["images"], axes=["sc"], cache=tmp_path / "c2"
    )
    assert res2.warnings == [] and res2.to_dict()["warnings"] == []
