"""Build validators, deterministic choices and the review round trip."""

from __future__ import annotations

import collections
import json
from pathlib import Path

import pytest

from benchsift.errors import FormatError
from benchsift.prism.axes import fill
from benchsift.prism.build import Artifact, h_subtype, read_artifacts, validate_artifact
from benchsift.prism.review import export_review, import_review
from benchsift.prism.sources import Item

ITEM = Item("okvqa/1", "okvqa", "General-VQA", "What color is the car?", ["blue", "navy"], ["a.png"])


def test_h_subtypes_split_about_a_third_each() -> None:
    counts = collections.Counter(h_subtype(f"b/{i}") for i in range(3000))
    assert set(counts) == {"absent_entity", "misleading_premise", "uncertain_image"}
    assert all(abs(n / 3000 - 1 / 3) < 0.03 for n in counts.values())
    assert h_subtype("b/7") == h_subtype("b/7")


def test_validators() -> None:
    sub = h_subtype(ITEM.id)
    ctx = {
        "absent_entity": "absent_entity",
        "misleading_premise": "false_premise",
        "uncertain_image": "ambiguity_source",
    }[sub]
    assert validate_artifact("h", {"sub_type": sub, "question": "Q?", ctx: "why"}, ITEM) == {
        "sub_type": sub,
        "question": "Q?",
        "context": "why",
    }
    with pytest.raises(ValueError, match="sub_type"):
        validate_artifact("h", {"sub_type": "other", "question": "Q?"}, ITEM)
    with pytest.raises(ValueError, match="2 to 4"):
        validate_artifact("mq", {"extras": [{"question": "q", "gold": "g"}]}, ITEM)
    with pytest.raises(ValueError, match="8 words"):
        validate_artifact(
            "mq",
            {"extras": [{"question": "q", "gold": "one two three four five six seven eight nine"}] * 2},
            ITEM,
        )
    with pytest.raises(ValueError, match="differ"):
        validate_artifact("sc", {"wrong_answer": "Navy!"}, ITEM)
    assert validate_artifact("c", {"question": None, "gold_count": None, "object": ""}, ITEM) is None
    for bad in (0, 101, 2.5, True, "3"):
        with pytest.raises(ValueError, match="gold_count"):
            validate_artifact("c", {"question": "How many?", "gold_count": bad}, ITEM)
    v = validate_artifact(
        "vis",
        {
            "true_caption": "a blue car",
            "fake_caption": "a red car",
            "swapped_detail": {"original": "blue", "fake": "red"},
        },
        ITEM,
    )
    assert v is not None and {v["caption_a"], v["caption_b"]} == {"a blue car", "a red car"}
    assert (v["caption_a"] == "a blue car") == (v["gold_letter"] == "A")


def test_vis_order_is_balanced() -> None:
    raw = {"true_caption": "t", "fake_caption": "f", "swapped_detail": {"original": "t", "fake": "f"}}
    arts = [validate_artifact("vis", raw, Item(f"b/{i}", "b", "d", "q", ["a"])) or {} for i in range(2000)]
    letters = collections.Counter(a["gold_letter"] for a in arts)
    assert abs(letters["A"] / 2000 - 0.5) < 0.04


def test_fill_leaves_json_braces() -> None:
    assert fill('Q: {question} -> {"verdict": 0 | 1}', question="{gold}") == 'Q: {gold} -> {"verdict": 0 | 1}'


def test_review_roundtrip(tmp_path: Path) -> None:
    items = [ITEM, Item("okvqa/2", "okvqa", "General-VQA", "How many?", ["3"], ["b.png"])]
    arts = [
        Artifact("okvqa/1", "sc", "ok", {"wrong_answer": "red"}),
        Artifact("okvqa/2", "sc", "ok", {"wrong_answer": "4"}),
        Artifact("okvqa/1", "c", "ok", {"question": "How many cars?", "gold_count": 2, "object": "cars"}),
        Artifact("okvqa/2", "c", "failed", None, error="invalid"),
    ]
    review = tmp_path / "review.jsonl"
    export_review(arts, review)
    rows = [json.loads(x) for x in review.read_text().splitlines()]
    assert [r["decision"] for r in rows] == [""] * 4
    rows[0]["decision"] = "accept"
    rows[1]["decision"] = "fix"
    rows[1]["artifact"] = {"wrong_answer": "5"}
    rows[2]["decision"] = "reject"
    rows[3]["decision"] = "fix"
    rows[3]["artifact"] = {"question": "How many dots?", "gold_count": 7}
    review.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = {(a.item, a.axis): a for a in import_review(arts, review, items)}
    assert out[("okvqa/1", "sc")].review == "accepted"
    assert out[("okvqa/2", "sc")].data == {"wrong_answer": "5"} and out[("okvqa/2", "sc")].review == "fixed"
    assert out[("okvqa/1", "c")].status == "rejected"
    fixed = out[("okvqa/2", "c")].data
    assert out[("okvqa/2", "c")].status == "ok" and fixed is not None and fixed["gold_count"] == 7
    rows[1]["artifact"] = {"wrong_answer": "3"}  # equal to the gold: invalid
    review.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(FormatError, match=r"review.jsonl, line 2: fixed artifact is invalid"):
        import_review(arts, review, items)
    (tmp_path / "a.jsonl").write_text('{"item": "x", "axis": "c", "status": "maybe"}\n')
    with pytest.raises(FormatError, match="status must be one of"):
        read_artifacts(tmp_path / "a.jsonl")


def test_review_roundtrip_as_csv(tmp_path: Path) -> None:
    import csv

    items = [ITEM, Item("okvqa/2", "okvqa", "General-VQA", "How many?", ["3"], ["b.png"])]
    arts = [
        Artifact("okvqa/1", "mq", "ok", {"extras": [{"question": "q1", "gold": "a"}] * 2}),
        Artifact("okvqa/2", "c", "failed", None, error="invalid"),
        Artifact("okvqa/2", "sc", "ok", {"wrong_answer": "4"}),
    ]
    review = tmp_path / "review.csv"
    export_review(arts, review)
    with open(review, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["decision"] for r in rows] == ["", "", ""] and json.loads(rows[0]["artifact"]) == arts[0].data
    assert rows[1]["artifact"] == "" and rows[1]["error"] == "invalid"
    rows[0]["decision"] = "accept"
    rows[1]["decision"] = "fix"
    rows[1]["artifact"] = json.dumps({"question": "How many dots?", "gold_count": 7})
    rows[2]["decision"] = "reject"
    with open(review, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    out = {(a.item, a.axis): a for a in import_review(arts, review, items)}
    assert out[("okvqa/1", "mq")].review == "accepted" and out[("okvqa/1", "mq")].data == arts[0].data
    fixed = out[("okvqa/2", "c")]
    assert fixed.status == "ok" and fixed.data is not None and fixed.data["gold_count"] == 7
    assert out[("okvqa/2", "sc")].status == "rejected"
    rows[1]["artifact"] = "{not json"
    with open(review, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    with pytest.raises(FormatError, match=r"review.csv, line 3: column 'artifact' is not valid JSON"):
        import_review(arts, review, items)
