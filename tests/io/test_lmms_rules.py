"""MMMU / SEED-Bench per-item rules ported from lmms-eval, on hand-worked cases (the real-tool cross-check
is in test_lmms_eval_real.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from benchsift.errors import InputError
from benchsift.io import read_lmms_eval
from benchsift.io._lmms_rules import eval_open, mmmu_correct, normalize_str


def test_normalize_str() -> None:
    assert normalize_str(" 1,234.567 ") == [1234.57]
    assert normalize_str("Paris") == ["paris"]
    assert normalize_str("B") == [" b", "b "]


@pytest.mark.parametrize(
    ("gold", "candidates", "right"),
    [
        ("12", ["the answer is 12", 12.0], True),  # number equal after rounding
        ("3.14159", [3.14], True),  # both rounded to two decimals
        ("3.14159", [3.15], False),
        ("mitochondria", ["the mitochondria of the cell"], True),  # substring of a text candidate
        ("mitochondria", ["mitochondrion"], False),
        ("a", ["a cat"], True),  # one character: " a" / "a " must occur
        ("a", ["cat"], False),
        (["24", "twenty-four"], ["twenty-four hours"], True),
    ],
)
def test_eval_open(gold: object, candidates: list[object], right: bool) -> None:
    assert eval_open(gold, candidates) is right


def test_mmmu_correct_current_and_older_layouts() -> None:
    # current lmms-eval: one candidate list per response; older: the single response's list
    assert mmmu_correct({"question_type": "open", "answer": "12", "parsed_pred": [["so 12", 12.0]]}) == 1.0
    assert mmmu_correct({"question_type": "open", "answer": "12", "parsed_pred": ["so 12", 12.0]}) == 1.0
    assert mmmu_correct({"question_type": "open", "answer": "7", "parsed_pred": [["8"], [7.0]]}) == 1.0
    assert mmmu_correct({"question_type": "multiple-choice", "answer": "B", "parsed_pred": ["B"]}) == 1.0
    assert mmmu_correct({"question_type": "multiple-choice", "answer": ["A", "C"], "parsed_pred": "B"}) == 0.0


def _write(path: Path, records: list[dict]) -> Path:  # type: ignore[type-arg]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_seed_pred_answer_and_refused_pope_precision(tmp_path: Path) -> None:
    seed = [
        {"doc_id": i, "filtered_resps": p, "seed_all": {"pred": p, "answer": a, "question_id": str(i)}}
        for i, (p, a) in enumerate([("A", "A"), ("B", "C"), ("D", "D")])
    ]
    p = read_lmms_eval(_write(tmp_path / "20250101_samples_seedbench.jsonl", seed), model="m")
    np.testing.assert_array_equal(p.scores, [[1.0, 0.0, 1.0]])
    pope = [
        {
            "doc_id": 0,
            "pope_precision": {"question_id": "0", "score": 1.0, "prediction": "yes", "ground_truth": "yes"},
            "pope_accuracy": {"question_id": "0", "score": 1.0, "prediction": "yes", "ground_truth": "yes"},
        }
    ]
    f = _write(tmp_path / "20250101_samples_pope.jsonl", pope)
    with pytest.raises(
        InputError, match=r"metric 'pope_precision' is not a mean over items.*`metric` pope_accuracy"
    ):
        read_lmms_eval(f, model="m", metric="pope_precision")
    assert read_lmms_eval(f, model="m", metric="pope_accuracy").scores.tolist() == [[1.0]]
