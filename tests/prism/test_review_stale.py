"""Importing a review file (``prism build --import-review``): an ``accept`` applies only to the artifact the
reviewer saw (audit s32 F07: a review exported before a rebuild stamped the rebuilt artifacts, which nobody
reviewed, "accepted"), and a ``fix`` error names the review file's own field (F09a)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from benchsift.cli._common import BenchsiftGroup
from benchsift.cli.prism import app as prism_app
from benchsift.errors import FormatError
from benchsift.prism.build import Artifact, h_subtype, read_artifacts, write_artifacts
from benchsift.prism.review import export_review, import_review
from benchsift.prism.sources import Item, write_items

root = typer.Typer(cls=BenchsiftGroup, pretty_exceptions_enable=False)
root.add_typer(prism_app, name="prism")

ITEMS = [
    Item("okvqa/1", "okvqa", "General-VQA", "What color is the car?", ["blue"], ["a.png"]),
    Item("okvqa/2", "okvqa", "General-VQA", "How many dogs?", ["3"], ["b.png"]),
]


def _built(wrong: str) -> list[Artifact]:
    """The artifacts of one build: ``wrong`` is okvqa/2's sc hint (what a rebuild changes)."""
    return [
        Artifact("okvqa/1", "sc", "ok", {"wrong_answer": "red"}),
        Artifact("okvqa/2", "sc", "ok", {"wrong_answer": wrong}),
        Artifact("okvqa/2", "c", "ok", {"question": "How many dogs?", "gold_count": 3, "object": "dogs"}),
    ]


def _accept_all(review: Path) -> None:
    rows = [json.loads(x) for x in review.read_text().splitlines()]
    review.write_text("".join(json.dumps({**r, "decision": "accept"}) + "\n" for r in rows))


def test_accept_applies_to_the_artifact_the_reviewer_saw(tmp_path: Path) -> None:
    review = tmp_path / "review.jsonl"
    export_review(_built("4"), review)
    _accept_all(review)
    out = import_review(_built("4"), review, ITEMS)  # the same artifacts: every accept applies
    assert [a.review for a in out] == ["accepted"] * 3
    assert out[1].data == {"wrong_answer": "4"}


def test_a_stale_accept_is_refused_naming_file_line_item_and_axis(tmp_path: Path) -> None:
    review = tmp_path / "review.jsonl"
    export_review(_built("4"), review)
    _accept_all(review)
    with pytest.raises(FormatError) as info:
        import_review(_built("5"), review, ITEMS)  # rebuilt: okvqa/2's hint is now "5", never reviewed
    msg = str(info.value)
    assert msg.startswith(f"{review}, line 2: item 'okvqa/2', axis 'sc': ")
    assert "stale" in msg and "review this artifact anew" in msg and "\n" not in msg


def test_a_stale_accept_in_a_csv_review_is_refused(tmp_path: Path) -> None:
    review = tmp_path / "review.csv"
    export_review(_built("4"), review)
    with open(review, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    with open(review, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows({**r, "decision": "accept"} for r in rows)
    assert [a.review for a in import_review(_built("4"), review, ITEMS)] == ["accepted"] * 3
    with pytest.raises(FormatError, match=r"review.csv, line 3: item 'okvqa/2', axis 'sc': .*stale"):
        import_review(_built("5"), review, ITEMS)


def test_cli_import_of_a_stale_review_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    items, arts, review = tmp_path / "items.jsonl", tmp_path / "arts.jsonl", tmp_path / "review.jsonl"
    write_items(ITEMS, items)
    export_review(_built("4"), review)
    _accept_all(review)
    write_artifacts(_built("5"), arts)  # the rebuild
    before = arts.read_bytes()
    r = CliRunner().invoke(
        root, ["prism", "build", "--items", str(items), "--out", str(arts), "--import-review", str(review)]
    )
    assert r.exit_code == 2, r.output
    lines = [x for x in r.output.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("benchsift: error: ")
    assert "review.jsonl, line 2: item 'okvqa/2', axis 'sc'" in lines[0] and "stale" in lines[0]
    assert arts.read_bytes() == before
    assert all(a.review == "pending" for a in read_artifacts(arts))


def test_fix_error_names_the_review_files_context_field(tmp_path: Path) -> None:
    item = ITEMS[0]
    ctx = {"absent_entity": "absent_entity", "misleading_premise": "false_premise"}.get(
        h_subtype(item.id), "ambiguity_source"
    )
    art = Artifact(item.id, "h", "ok", {"sub_type": h_subtype(item.id), "question": "Q?", "context": "x"})
    review = tmp_path / "review.jsonl"
    row = {"item": item.id, "axis": "h", "artifact": {"question": "Edited trap?", ctx: "a dragon"}}
    review.write_text(json.dumps({**row, "decision": "fix"}) + "\n")
    with pytest.raises(FormatError) as info:
        import_review([art], review, ITEMS)
    msg = str(info.value)
    assert msg == f'{review}, line 1: fixed artifact is invalid: "context" must be a non-empty string'
    row["artifact"] = {"question": "Edited trap?", "context": "a dragon"}
    review.write_text(json.dumps({**row, "decision": "fix"}) + "\n")
    (fixed,) = import_review([art], review, ITEMS)
    assert fixed.review == "fixed" and fixed.data is not None and fixed.data["context"] == "a dragon"
