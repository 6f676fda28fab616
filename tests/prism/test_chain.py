"""sources -> build -> run -> grade against the scripted server gives exactly the scripted verdicts."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from engine_world import GEN_BROKEN, GEN_GLITCH, UNCOUNTABLE, invoke, run_args, write_config
from fake_server import API_KEY

MODELS = ["correct", "sycophant", "adopter", "stubborn", "broken"]
AXES = ["q", "if", "h", "mq", "sc", "c", "vis"]
# what "The answer is X." (the stubborn model's reply to every if prompt) satisfies, by hand:
STUBBORN_IF = {
    "length.max_words": 1,
    "length.min_words": 0,
    "casing.lowercase": 0,
    "casing.uppercase": 0,
    "keyword.include": 0,
    "keyword.forbid": 1,
    "format.json": 0,
    "format.code_block": 0,
    "format.bullets": 0,
    "shape.start": 0,
    "shape.end": 0,
}


def expected(model: str, item: str, axis: str, facts: dict, constraints: dict) -> dict:
    """The verdict the scripts imply for one (model, item, axis)."""
    if model == "broken":
        return {"answered": False}
    right = model != "stubborn"
    if axis == "sc":
        flip = {"sycophant": 1, "adopter": 3}.get(model)
        adopted = {"sycophant": None, "adopter": "yes"}.get(model, "no")
        return {
            "answered": True,
            "score": float(flip is None),
            "sc_turn0_correct": right,
            "sc_flip_turn": flip,
            "sc_adopted": adopted,
        }
    if axis == "if":
        score = 1.0 if right else sum(STUBBORN_IF[c] for c in constraints[item]) / len(constraints[item])
        return {"answered": True, "score": score}
    out = {"answered": True, "score": float(right)}
    if axis == "mq":
        out["partial"] = float(right)
    return out


def check(df: pd.DataFrame, facts: dict, constraints: dict) -> None:
    n_items = len(facts)
    mq_items = n_items - len(GEN_BROKEN)
    c_items = n_items - len(UNCOUNTABLE)
    per_model = 5 * n_items + mq_items + c_items
    assert len(df) == per_model * len(MODELS)
    assert not df.duplicated(["model", "item", "axis"]).any()
    for row in df.itertuples(index=False):
        exp = expected(row.model, row.item, row.axis, facts, constraints)
        assert bool(row.answered) == exp["answered"], row
        if not exp["answered"]:
            assert math.isnan(row.score)
            continue
        assert row.score == exp["score"], row
        if "partial" in exp:
            assert row.partial == exp["partial"], row
        if row.axis == "sc":
            assert bool(row.sc_turn0_correct) == exp["sc_turn0_correct"], row
            flip = None if pd.isna(row.sc_flip_turn) else int(row.sc_flip_turn)
            assert flip == exp["sc_flip_turn"], row
            adopted = None if pd.isna(row.sc_adopted) else row.sc_adopted
            assert adopted == exp["sc_adopted"], row
        else:
            assert pd.isna(row.sc_flip_turn) and pd.isna(row.sc_adopted)


def test_chain_judge_and_rules(world: dict, server, tmp_path: Path) -> None:
    root, img = world["root"], world["images"]
    cfg = write_config(tmp_path / "models.toml", server.url, MODELS)
    items = tmp_path / "items.jsonl"
    s = invoke(
        "sources",
        "--raw",
        f"okvqa={root / 'okvqa.jsonl'}",
        "--raw",
        f"ai2d={root / 'ai2d.jsonl'}",
        "--images",
        str(img),
        "--out",
        str(items),
    )
    assert s["items"] == len(world["facts"])  # K = 100 > pool: the union of the five draws is the whole pool
    arts = tmp_path / "artifacts.jsonl"
    b = invoke(
        "build",
        "--items",
        str(items),
        "--images",
        str(img),
        "--config",
        str(cfg),
        "--out",
        str(arts),
        "--review",
        str(tmp_path / "review.jsonl"),
        "--log",
        str(tmp_path / "build_log.jsonl"),
    )
    assert b["failed"] == len(GEN_BROKEN) and b["dropped"] == len(UNCOUNTABLE)
    art_rows = [json.loads(x) for x in arts.read_text().splitlines()]
    attempts = {(a["item"], a["axis"]): a["attempts"] for a in art_rows}
    okvqa_id = {i: k for k, f in world["facts"].items() for i in [f["index"]]}
    for i in GEN_GLITCH:
        assert attempts[(okvqa_id[i], "h")] == 2  # one re-ask after a non-JSON reply
    for i in GEN_BROKEN:
        assert attempts[(okvqa_id[i], "mq")] == 3  # two re-asks, then a recorded failure
    constraints = {a["item"]: a["data"]["constraints"] for a in art_rows if a["axis"] == "if"}

    # the review round trip through the CLI, on a copy: reject the first vis caption pair
    reviewed = tmp_path / "artifacts_reviewed.jsonl"
    reviewed.write_text(arts.read_text())
    review = [json.loads(x) for x in (tmp_path / "review.jsonl").read_text().splitlines()]
    first_vis = next(r for r in review if r["axis"] == "vis")
    first_vis["decision"] = "reject"
    (tmp_path / "review.jsonl").write_text("".join(json.dumps(r) + "\n" for r in review))
    rv = invoke(
        "build",
        "--items",
        str(items),
        "--out",
        str(reviewed),
        "--import-review",
        str(tmp_path / "review.jsonl"),
        "--force",  # the copy was made by hand, not by benchsift: overwriting it needs --force
    )
    assert rv["rejected"] == 1 and rv["calls"] == {} and rv["ok"] == b["ok"] - 1
    after = {(a["item"], a["axis"]): a for a in map(json.loads, reviewed.read_text().splitlines())}
    assert after[(first_vis["item"], "vis")]["status"] == "rejected"

    recs = tmp_path / "records.jsonl"
    # the 'broken' model (HTTP 400 on every request) loses a fifth of the records: allowed here
    r = invoke(*run_args(items, arts, img, cfg, recs, "--max-lost", "0.25"))
    assert r["unanswered"] == sum(
        1 for x in recs.read_text().splitlines() if json.loads(x)["model"] == "broken"
    )
    verdicts = tmp_path / "verdicts.csv"
    grade = ["grade", "--items", str(items), "--artifacts", str(arts), "--records", str(recs)]
    g = invoke(
        *grade,
        "--config",
        str(cfg),
        "--out",
        str(verdicts),
        "--log",
        str(tmp_path / "grade_log.jsonl"),
        "--audit-out",
        str(tmp_path / "audit.parquet"),
        "--audit-per-axis",
        "10",
    )
    assert g["grade failures"] == 0
    df = pd.read_csv(verdicts)
    check(df, world["facts"], constraints)

    score_chain(verdicts, constraints)
    worked_samples(tmp_path / "grade_log.jsonl", recs, constraints)

    # the same records graded without any judge give the same table
    rules = tmp_path / "verdicts_rules.parquet"
    invoke(
        *grade,
        "--grader",
        "rules",
        "--out",
        str(rules),
    )
    check(pd.read_parquet(rules), world["facts"], constraints)

    # the audit re-grade: 10 items per axis, every model, same verdicts as the main judge here
    audit = pd.read_parquet(tmp_path / "audit.parquet")
    assert (audit.groupby("axis")["item"].nunique() == 10).all()
    merged = audit.merge(df, on=["model", "item", "axis"], suffixes=("", "_main"))
    assert len(merged) == len(audit)
    assert ((merged["score"] == merged["score_main"]) | merged["score"].isna()).all()

    # a rerun is answered from the cache: the only requests that reach the server are the broken
    # model's (errors are never cached, so failed items are asked again), one per failed record
    before = len(server.requests())
    r2 = invoke(*run_args(items, arts, img, cfg, tmp_path / "records2.jsonl", "--max-lost", "0.25"))
    new = server.requests()[before:]
    assert {x["model"] for x in new} == {"broken"}
    n_sc = sum(1 for x in recs.read_text().splitlines() if '"model": "broken"' in x and '"axis": "sc"' in x)
    # its q and sc turn-0 requests are the same request, asked once (single flight)
    assert len(new) == r["unanswered"] - n_sc and r["unanswered"] == r2["unanswered"]
    assert r2["calls"]["requests"] == len(new) and r2["calls"]["cache_hits"] > 0
    assert (tmp_path / "records2.jsonl").read_text() == recs.read_text()
    before = len(server.requests())
    r3 = invoke(
        *run_args(
            items,
            arts,
            img,
            cfg,
            tmp_path / "records3.jsonl",
            "--models",
            "correct,sycophant,adopter,stubborn",
        )
    )
    assert len(server.requests()) == before and r3["calls"]["requests"] == 0

    # the API key is in no file written (cache, WAL, logs, tables)
    for f in tmp_path.rglob("*"):
        if f.is_file():
            assert API_KEY.encode() not in f.read_bytes(), f


def score_chain(path: Path, constraints: dict) -> None:
    """-> issue 5's scorer: the axis means and sc variants the scripts imply."""
    from benchsift.io import verdicts  # the package's own modules: an import error must fail
    from benchsift.prism import scores

    arrays = verdicts.build_arrays(verdicts.load_verdicts(path))
    means = scores.axis_means_frame(arrays)
    sc = scores.sc_scores(arrays)
    stub_if = float(np.mean([sum(STUBBORN_IF[c] for c in v) / len(v) for v in constraints.values()]))
    assert (
        (means.loc[["correct", "sycophant", "adopter"], ["q", "if", "h", "mq", "c", "vis"]] == 1.0)
        .all()
        .all()
    )
    assert (
        means.loc["correct", "sc"] == 1.0
        and means.loc["sycophant", "sc"] == 0.0
        and means.loc["adopter", "sc"] == 0.0
    )
    stub = means.loc["stubborn"]
    assert (stub[["q", "h", "mq", "c", "vis"]] == 0.0).all() and math.isnan(stub["sc"])
    assert stub["if"] == pytest.approx(stub_if)
    assert means.loc["broken"].isna().all()
    assert sc.loc["stubborn", "sc_A"] == 1.0
    assert sc.loc["sycophant", "sc_corr"] == 1.0 and sc.loc["sycophant", "instability"] == 1.0
    assert math.isnan(sc.loc["sycophant", "sc_reach"])
    assert sc.loc["adopter", "sc_corr"] == 0.0 and sc.loc["adopter", "sc_reach"] == 0.0
    assert sc.loc["adopter", "instability"] == 0.0 and sc.loc["correct", "sc_corr"] == 1.0


def worked_samples(grade_log: Path, records: Path, constraints: dict) -> None:
    """Each graded (model, item, axis) carries what decided it (App. G): judge replies, bits, choices."""
    log = [json.loads(x) for x in grade_log.read_text().splitlines()]
    main = {(r["model"], r["item"], r["axis"]): r for r in log if not r.get("audit")}
    assert {r["status"] for r in main.values()} == {"graded", "unanswered"}
    for (model, item, axis), r in main.items():
        if r["status"] != "graded":
            assert model == "broken"
            continue
        kinds = [e["kind"] for e in r.get("judge", [])]
        if axis in ("q", "h", "mq"):  # open-ended: the judge's reply is logged with the verdict
            assert kinds and kinds[-1] == axis and json.loads(r["judge"][-1]["reply"]), r
        if axis == "if":
            assert list(r["compliance"]) == constraints[item] and r["grader"] == "rules"
        elif axis == "h":
            assert r["hallucinated"] == int(model == "stubborn") and r["sub_type"]
        elif axis == "mq":
            assert len(r["verdicts"]) >= 3 and all(v == int(model != "stubborn") for v in r["verdicts"])
        elif axis == "c":
            assert isinstance(r["extracted"], int) and (r["extracted"] == r["gold"]) == (model != "stubborn")
        elif axis == "vis":
            assert r["choice"] in ("A", "B") and (r["choice"] == r["gold"]) == (model != "stubborn")
    assert any(a.get("audit") and a.get("judge") for a in log)  # the audit judge's replies too
    # run records: the sc turns judged by Fig. 15 carry that judge's reply
    turns = [t for x in records.read_text().splitlines() for t in (json.loads(x).get("turns") or [])[1:]]
    assert turns and all(t["change_by"] == "judge" and t["judge"][-1]["kind"] == "sc" for t in turns)
