"""Per-item scoring rules that lmms-eval tasks apply at aggregation time, ported, and the metrics that are
not means over items.

lmms-eval's ``process_results`` of many tasks logs a dict per sample and leaves the right/wrong decision to
the task's aggregation function. Ported here (same decisions, own code):

* MMMU (``lmms_eval/tasks/mmmu/utils.py``, after MMMU's ``eval/eval_utils.py``): ``mmmu_acc`` logs
  ``{id, subdomain, question_type, answer, parsed_pred}``; ``evaluate_mmmu`` counts a sample right when
  one of its parsed predictions (one per response; older versions logged a single one) passes
  ``eval_multi_choice`` (equal to the answer, or to one of a list of answers) or, for open questions,
  ``eval_open``: the answer(s) normalised by ``normalize_str`` (a number, commas removed, rounded to two
  decimals; else lower-cased text, a one-character text padded with a space on either side), and a
  parsed candidate matches when it is text containing a normalised text answer, or a number equal to a
  normalised answer. ``mmmu_aggregate_results`` reports ``round(accuracy, 5)``. The rule is lmms-eval
  0.7.3's. lmms-eval 0.7.2's ``mmmu_process_results`` logged an open question's prediction as the string
  of each response's first candidate (``str(parsed_pred[0])``, ``["12.0"]`` where 0.7.3 logs
  ``[[12.0]]``), and its ``evaluate_mmmu`` then ran ``eval_open`` over that string character by character,
  so it counted every open question wrong (:func:`mmmu_char_rule`). Such a log is scored here by 0.7.3's
  rule: a logged string that ``float`` reads (``str`` of a number candidate; ``normalize_str`` turned every
  number-like candidate into a number) is that number again; the candidates after the first were not
  logged, so a response is judged by its first.
* SEED-Bench (``lmms_eval/tasks/seedbench/utils.py``, ``seed_aggregation_result``): ``seed_<type>`` /
  ``seed_all`` log ``{pred, answer, question_id}``; right when ``pred == answer``.

Metrics whose aggregate is not the mean of per-item scores (:data:`NOT_ITEM_MEANS`, refused: the logged
``score`` is not what the metric measures) or is a different summary of per-item correctness
(:data:`OTHER_AGGREGATES`, imported with a warning that the panel's mean is not the tool's number).
"""

from __future__ import annotations

from typing import Any

# metric -> how lmms-eval aggregates it; the per-item "score" these log is pope_accuracy's correctness
NOT_ITEM_MEANS = {
    "pope_precision": "TP / (TP + FP) over the task (pope/utils.py pope_aggregate_precision)",
    "pope_recall": "TP / (TP + FN) over the task (pope/utils.py pope_aggregate_recall)",
    "pope_f1_score": "the F1 of precision and recall over the task (pope/utils.py pope_aggregate_f1_score)",
    "pope_yes_ratio": "the share of 'yes' ground truths (pope/utils.py pope_aggregate_yes_ratio)",
}
ITEM_MEAN_ALTERNATIVE = {m: "pope_accuracy" for m in NOT_ITEM_MEANS}

# metric (or task prefix) -> what lmms-eval reports from the per-item correctness it logs
_MME = (
    "MME's score: per category, 100 x (question accuracy + image accuracy where both questions of an image "
    "are right), summed over categories (mme/utils.py mme_aggregate_results)"
)
OTHER_AGGREGATES = {
    "mme_perception_score": _MME,
    "mme_percetion_score": "MME's score: per category, 100 x (question accuracy + image accuracy where both "
    "questions of an image are right), summed over categories (mme/utils.py mme_aggregate_results)",
    "mme_cognition_score": "MME's score: per category, 100 x (question accuracy + image accuracy where both "
    "questions of an image are right), summed over categories (mme/utils.py mme_aggregate_results)",
    "ocrbench_accuracy": "OCRBench's score: the count of right answers divided by 1000, the full set's size, "
    "however many rows were evaluated (ocrbench/utils.py ocrbench_aggregate_accuracy, lmms-eval 0.7.3)",
}
OTHER_AGGREGATE_TASKS = {
    "mmstar": "MMStar's macro average: the mean over the l2 categories of each one's accuracy "
    "(mmstar/utils.py mmstar_aggregate_results)",
}


def other_aggregate(task: str, metric: str) -> str | None:
    """What lmms-eval reports for ``task`` / ``metric`` when it is not the mean of per-item scores."""
    if metric in OTHER_AGGREGATES:
        return OTHER_AGGREGATES[metric]
    return next((text for prefix, text in OTHER_AGGREGATE_TASKS.items() if task.startswith(prefix)), None)


def normalize_str(text: Any) -> list[Any]:
    """MMMU's ``normalize_str``: a number (commas removed) rounded to 2 decimals, else lower-cased text;
    a one-character text gives ``[" x", "x "]`` (to avoid trivial substring matches)."""
    s = str(text).strip()
    try:
        return [round(float(s.replace(",", "")), 2)]
    except ValueError:
        s = s.lower()
        return [" " + s, s + " "] if len(s) == 1 else [s]


def eval_open(gold: Any, candidates: list[Any]) -> bool:
    """MMMU's ``eval_open``: a text candidate containing a normalised text answer, or a number candidate
    equal to a normalised answer, is right."""
    golds = gold if isinstance(gold, list) else [gold]
    answers = [a for g in golds for a in normalize_str(g)]
    for pred in candidates:
        if isinstance(pred, str):
            if any(isinstance(a, str) and a in pred for a in answers):
                return True
        elif pred in answers:
            return True
    return False


def eval_multi_choice(gold: Any, pred: Any) -> bool:
    """MMMU's ``eval_multi_choice``: the prediction equals the answer (or one of a list of answers)."""
    return any(g == pred for g in gold) if isinstance(gold, list) else gold == pred


def _candidate(logged: Any) -> Any:
    """A logged open-question candidate: a string that ``float`` reads is the number it was logged from."""
    if isinstance(logged, str):
        try:
            return float(logged)
        except ValueError:
            return logged
    return logged


def mmmu_char_rule(value: Any) -> float | None:
    """lmms-eval 0.7.2's ``evaluate_mmmu`` on an open question's ``mmmu_acc`` dict that logs its prediction
    as strings (one per response): ``eval_open`` over each string's characters; None for other dicts."""
    if not isinstance(value, dict) or value.get("question_type") != "open" or "answer" not in value:
        return None
    pred = value.get("parsed_pred")
    if not isinstance(pred, list) or not pred or not all(isinstance(p, str) for p in pred):
        return None
    return float(any(eval_open(value["answer"], list(p)) for p in pred))


def mmmu_correct(value: dict[str, Any]) -> float:
    """1.0 when MMMU's ``evaluate_mmmu`` counts the logged ``mmmu_acc`` dict right, else 0.0."""
    gold, pred = value["answer"], value["parsed_pred"]
    qtype = value.get("question_type")
    if qtype is None:  # infer: open-question predictions are candidate lists (text and numbers)
        flat = pred if isinstance(pred, list) else [pred]
        qtype = "open" if any(isinstance(p, list | float) for p in flat) else "multiple-choice"
    if qtype == "multiple-choice":
        preds = pred if isinstance(pred, list) else [pred]
        return float(any(eval_multi_choice(gold, p) for p in preds))
    if isinstance(pred, list) and pred and all(isinstance(p, list) for p in pred):
        per_response = pred  # current lmms-eval: one candidate list per response
    elif isinstance(pred, list):
        # older lmms-eval: the candidate list of the single response; 0.7.2: the first candidate of each
        # response as a string (the same test: eval_open is right when any candidate is)
        per_response = [[_candidate(p) for p in pred]]
    else:
        per_response = [[_candidate(pred)]]
    return float(any(eval_open(gold, p) for p in per_response))


def seed_correct(value: dict[str, Any]) -> float:
    """SEED-Bench's ``seed_aggregation_result``: right when ``pred == answer``."""
    return float(value["pred"] == value["answer"])
