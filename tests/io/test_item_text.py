"""Importers keep the question, choices and answer key the harness logged as item metadata (issue 34):
lm-eval (``doc`` and ``target``), lmms-eval (``input`` and ``target``), inspect (``input`` and ``target``),
read from the tool-written fixtures; the report's item view shows them."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from benchsift.io import read_inspect, read_lm_eval, read_lmms_eval
from benchsift.report.items import item_views

F = Path(__file__).resolve().parents[1] / "fixtures" / "io"


def _row(items: pd.DataFrame, benchmark: str, item: str) -> pd.Series:
    return items[(items["benchmark"] == benchmark) & (items["item"] == item)].iloc[0]


def test_lm_eval_keeps_doc_question_choices_and_target() -> None:
    panel = read_lm_eval(F / "lm_eval/real/logs/tree", filter="strict-match")
    items = panel.items
    gen, mc = _row(items, "arith_gen", "0"), _row(items, "arith_mc", "2")
    # samples_arith_gen line 1: doc.question "What is 2+2?", target "4"
    assert (gen["question"], gen["answer"]) == ("What is 2+2?", "4")
    assert json.loads(gen["choices"]) == ["3", "4", "5", "6"]
    # samples_arith_mc line 3: doc.question "What is 7-1?", target "0" (the index of choice "6")
    assert (mc["question"], mc["answer"]) == ("What is 7-1?", "0")
    assert json.loads(mc["choices"]) == ["6", "5", "8", "1"]
    view = item_views(panel, [("arith_mc", "2")])[("arith_mc", "2")]
    assert (view.question, view.key, view.choices) == ("What is 7-1?", "0", ["6", "5", "8", "1"])


def test_lmms_eval_keeps_input_and_target() -> None:
    logs = F / "lmms_eval/real/logs"
    panel = read_lmms_eval(
        [
            logs / "org__alpha/20261201_225730_samples_mmmu_val_local.jsonl",
            logs / "org__beta/20261201_225750_samples_mmmu_val_local.jsonl",
        ]
    )
    row = _row(panel.items, "mmmu_val_local", "1")
    assert (
        row["question"] == "Which organelle makes ATP?\n\nAnswer the question using a single word or phrase."
    )
    assert row["answer"] == "mitochondria"
    assert "choices" not in panel.items.columns  # lmms-eval logged none


def test_inspect_keeps_input_and_target() -> None:
    panel = read_inspect(F / "inspect/real/logs/ordinary")
    row = _row(panel.items, "arith", "q3")
    assert (row["question"], row["answer"]) == ("[q3] What is 7-1? Answer with a number.", "6")


def test_logged_text_is_bounded_and_chat_input_keeps_user_text() -> None:
    from benchsift.io._harness import ITEM_TEXT_CHARS, logged_item_text

    rec = {
        "input": [
            {"role": "system", "content": "be brief"},
            {
                "role": "user",
                "content": [
                    {"type": "image", "image": "data:image/png;base64,AAAA"},
                    {"type": "text", "text": "Q?"},
                ],
            },
        ],
        "choices": ["x", "y"],
        "target": ["B", "b"],
    }
    assert logged_item_text(rec) == ("Q?", '["x", "y"]', "B, b")
    question, choices, answer = logged_item_text({"doc": {"question": "w" * 5000}, "target": 3})
    assert question is not None and len(question) == ITEM_TEXT_CHARS and question.endswith("...")
    assert (choices, answer) == (None, "3")
    assert logged_item_text({"doc_id": 0}) == (None, None, None)
