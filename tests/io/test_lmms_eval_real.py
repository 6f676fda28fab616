"""Importer ``lmms-eval`` on logs written by lmms-eval itself (``tests/fixtures/io/lmms_eval/real``).

``generate.py`` there ran lmms-eval's own command line (version in ``logs/VERSION``) with a scripted model
on local copies of its ``mmmu``, ``seedbench``, ``mme``, ``pope``, ``mmstar`` and ``ocrbench`` task folders
(only the dataset changed) and a two-filter
generation task; each ``<date>_results.json`` holds lmms-eval's own aggregate per task, metric and filter.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from warned import warned

from benchsift.errors import InputError
from benchsift.io import read_lmms_eval
from benchsift.panel import Panel

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "io" / "lmms_eval" / "real" / "logs"


def _mean(panel: Panel, model: str, task: str) -> float:
    row = panel.model_ids.index(model)
    cols = [j for j, k in enumerate(panel.item_keys) if k[0] == task]
    return float(np.nanmean(panel.scores[row, cols]))


def _reported() -> dict[tuple[str, str, str], float]:
    out = {}
    for path in sorted(REAL.glob("*/*_results.json")):
        data = json.loads(path.read_text())
        for task, metrics in data["results"].items():
            for key, value in metrics.items():
                if "," in key and "stderr" not in key and isinstance(value, float | int):
                    out[(data["model_name"], task, key)] = float(value)
    return out


def test_fixture_layout() -> None:
    assert REAL.joinpath("VERSION").read_text().startswith("lmms-eval 0.7")
    line = json.loads(
        next(REAL.glob("org__alpha/*_samples_twofilter_local.jsonl")).read_text().splitlines()[0]
    )
    assert "filter" not in line and isinstance(line["filtered_resps"], str)
    mmmu = json.loads(
        next(REAL.glob("org__alpha/*_samples_mmmu_val_local.jsonl")).read_text().splitlines()[0]
    )
    assert isinstance(mmmu["mmmu_acc"]["parsed_pred"][0], list)  # one candidate list per response


@pytest.mark.parametrize("filt", ["strict-match", "flexible-extract"])
def test_means_equal_lmms_eval(filt: str) -> None:
    reported = _reported()
    panel = warned(read_lmms_eval, REAL, filter=filt, expect=["not the number lmms-eval reports"])
    assert panel.model_ids == ["org/alpha", "org/beta"]
    for model in panel.model_ids:
        # MMMU: eval_open / eval_multi_choice per item; lmms-eval reports round(accuracy, 5)
        mmmu = _mean(panel, model, "mmmu_val_local")
        assert round(mmmu, 5) == reported[(model, "mmmu_val_local", "mmmu_acc,none")]
        # SEED-Bench pred == answer
        seed = _mean(panel, model, "seedbench_local")
        assert abs(seed - reported[(model, "seedbench_local", "seed_image,none")]) < 1e-9
        # two filters, one line per filter and no filter key
        two = _mean(panel, model, "twofilter_local")
        assert abs(two - reported[(model, "twofilter_local", f"exact_match,{filt}")]) < 1e-9


def test_mmmu_open_substring_and_rounding() -> None:
    """alpha's open answers 'It is the mitochondria of the cell' and '3.1415' are right under MMMU's
    eval_open (substring, two decimals): 4 of 6, as lmms-eval reports (0.66667), not 2 of 6."""
    panel = warned(read_lmms_eval, REAL, filter="strict-match", expect=["not the number lmms-eval reports"])
    row = panel.scores[panel.model_ids.index("org/alpha")]
    by_item = {k[1]: row[j] for j, k in enumerate(panel.item_keys) if k[0] == "mmmu_val_local"}
    assert by_item == {"0": 1.0, "1": 1.0, "2": 1.0, "3": 1.0, "4": 0.0, "5": 0.0}


def test_logged_answers_from_string_filtered_resps() -> None:
    answers: list = []  # type: ignore[type-arg]
    warned(
        read_lmms_eval,
        REAL,
        filter="flexible-extract",
        answers=answers,
        expect=["not the number lmms-eval reports"],
    )
    table = answers[0]
    two = table[(table["benchmark"] == "twofilter_local") & (table["model"] == "org/alpha")]
    assert two["answer"].tolist() == ["2", "7", "9", "9"]


def test_two_filters_need_a_choice() -> None:
    with pytest.raises(InputError, match=r"several filters \['strict-match', 'flexible-extract'\]"):
        read_lmms_eval(REAL)


def test_pope_precision_refused_accuracy_equals_lmms_eval() -> None:
    reported = _reported()
    pope = sorted(REAL.glob("*/*_samples_pope_local.jsonl"))
    with pytest.raises(InputError, match=r"metric 'pope_precision' is not a mean over items"):
        read_lmms_eval(pope, metric="pope_precision")
    panel = read_lmms_eval(pope)  # the task's first metric, pope_accuracy
    for model in panel.model_ids:
        assert (
            abs(_mean(panel, model, "pope_local") - reported[(model, "pope_local", "pope_accuracy,none")])
            < 1e-9
        )


def test_mme_imported_as_correctness_with_a_warning() -> None:
    """MME logs per-question correctness; lmms-eval reports 100 x (acc + acc_plus) summed over categories,
    which a mean over items is not: the import says so."""
    notes: list[str] = []
    mme = sorted(REAL.glob("*/*_samples_mme_local.jsonl"))
    panel = read_lmms_eval(mme, notes=notes)
    assert any(
        n.startswith("warning: ") and "mme_local" in n and "not the number lmms-eval reports" in n
        for n in notes
    )
    reported = _reported()
    row = panel.scores[panel.model_ids.index("org/beta")]
    perception = row[:4]  # the four existence questions (doc_id 0-3), two per image
    acc = perception.mean()
    acc_plus = np.mean([perception[0] * perception[1], perception[2] * perception[3]])
    assert 100 * (acc + acc_plus) == pytest.approx(
        reported[("org/beta", "mme_local", "mme_perception_score,none")]
    )


def test_mmstar_macro_average_over_l2_categories() -> None:
    """lmms-eval's MMStar ``average`` is the mean over l2 categories of their accuracies
    (mmstar_aggregate_results); the import keeps per-item correctness, takes ``average`` (the metric every
    sample logs), the l2 category as the item's category, and warns that the mean is not the tool's."""
    notes: list[str] = []
    files = sorted(REAL.glob("*/*_samples_mmstar_local.jsonl"))
    panel = read_lmms_eval(files, notes=notes)
    assert sum("mmstar_local" in n and "macro average" in n and n.startswith("warning: ") for n in notes) == 2
    assert any("metric 'average'" in n for n in notes)
    reported = _reported()
    cats = panel.items["category"].to_numpy()
    assert set(cats) == {
        "image scene and topic",
        "image style & quality",
        "object counting",
        "numeric commonsense and calculation",
    }
    # the l2 categories of each top category, as the samples log them (key = top category)
    top_of: dict[str, str] = {}
    for line in files[0].read_text().splitlines():
        rec = json.loads(line)
        (top,) = [k for k in ("coarse perception", "fine-grained perception", "math") if k in rec]
        top_of[rec[top]["l2_category"]] = top
    for model in panel.model_ids:
        row = panel.scores[panel.model_ids.index(model)]
        per_l2 = {c: float(row[cats == c].mean()) for c in set(cats)}
        macro = float(np.mean(list(per_l2.values())))
        assert abs(macro - reported[(model, "mmstar_local", "average,none")]) < 1e-9
        assert abs(macro - float(row.mean())) > 0.05  # the plain item mean is another number
        for top in set(top_of.values()):
            sub = [v for c, v in per_l2.items() if top_of[c] == top]
            assert abs(float(np.mean(sub)) - reported[(model, "mmstar_local", f"{top},none")]) < 1e-9


def test_ocrbench_count_over_1000() -> None:
    """lmms-eval 0.7.3 reports OCRBench as right answers / 1000 whatever the number of rows (5 here)."""
    notes: list[str] = []
    panel = read_lmms_eval(sorted(REAL.glob("*/*_samples_ocrbench_local.jsonl")), notes=notes)
    assert sum("ocrbench_local" in n and "divided by 1000" in n for n in notes) == 2
    reported = _reported()
    for model in panel.model_ids:
        row = panel.scores[panel.model_ids.index(model)]
        assert panel.n_items == 5
        assert (
            abs(float(row.sum()) / 1000 - reported[(model, "ocrbench_local", "ocrbench_accuracy,none")])
            < 1e-9
        )
    # alpha: 'It says hello' contains 'hello', 'wor1d' misses, 'annual report 2020' contains the title
    # (lower-cased), 'ACME', HME100k 'x^2 + 1' without blanks contains 'x^2+1'
    np.testing.assert_array_equal(panel.scores[panel.model_ids.index("org/alpha")], [1, 0, 1, 1, 1])
