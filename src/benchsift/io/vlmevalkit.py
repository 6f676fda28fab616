"""Importer ``vlmevalkit``: per-item result files of open-compass VLMEvalKit.

VLMEvalKit writes its predictions to ``outputs/<model>/<model>_<dataset>.xlsx`` (or ``.tsv`` / ``.csv``)
and, when it evaluates a multiple-choice dataset, ``<model>_<dataset>_<judge>_result.<ext>``
(``vlmeval/dataset/image_mcq.py``) with the dataset columns (``index``, ``question``, ``A``..., ``answer``,
``category``, ``l2-category``, ``split``), the ``prediction`` and the per-item ``hit`` (1/0) and ``log``
(``vlmeval/dataset/utils/multiple_choice.py``: ``mcq_vanilla_eval`` / ``mcq_circular_eval``).
Visual-question and yes/no evaluations keep a per-item ``score`` column instead. The score column is
``score_column`` if given, else ``hit``, else ``score``.

* **Failed answers.** An API model that gave no answer has the prediction ``"Failed to obtain answer via
  API."`` (VLMEvalKit's ``FAIL_MSG``). Such an item is *missing* (NaN), never wrong.
* **Circular evaluation** (MMBench series, PRIMEBench Section 4 / MMBench paper): each question is asked
  once per rotation of its options; the rotations of question ``g`` have ``index = g + k * 1_000_000``, and
  ``g_index = index % 1e6`` groups them (as ``mcq_circular_eval`` builds it). A circular item counts
  right only if all its rotations are right: the group's score is the minimum over its rotations; a
  rotation that is missing makes the group missing unless another rotation is already wrong (then it
  is 0). Files that already hold one row per group (the ``_result`` file written by
  ``mcq_circular_eval``) pass through unchanged.
  ``circular=None`` (default) groups whenever some ``g_index`` differs from ``index``.

Model and benchmark come from ``model`` / ``benchmark`` or the file name, structurally as VLMEvalKit names
them. Its ``run.py`` writes into ``outputs/<model>/<eval_id>/`` (``build_eval_id``: ``T%Y%m%d-%H%M%S``;
older ``T<date>_G<hash>``, ``vlmeval/smp/file.py`` ``NEW_EVAL_ID_PATTERN`` / ``LEGACY_EVAL_ID_PATTERN``)
and links the files into ``outputs/<model>/``: the model is the folder name, or the folder above an eval id,
when the file name starts with it. Every evaluation file is ``get_intermediate_file_path(eval_file,
suffix)``, the prediction file ``<model>_<dataset>.<ext>`` with ``suffix`` inserted before the extension
(``_<judge>_result`` for multiple choice, with ``judge = judge_kwargs['model']`` or ``exact_matching``,
``_results`` for VQA, ``_<judge>_score``, ``_auxmatch``, ...). So the dataset is read off the prediction
file lying beside the result file: the longest sibling ``<model>_<dataset>.<ext>`` whose stem starts the
result's stem. Without it, the suffix is stripped and the rest is read as ``<dataset>_<judge>`` with the
longest dataset name of VLMEvalKit's own list (``SUPPORTED_DATASETS``, read from its source into
:mod:`benchsift.io._vlmevalkit_names`), whatever the judge; a dataset VLMEvalKit does not list loses a
judge name from :data:`KNOWN_JUDGES`, with a warning that the name could not be confirmed. The file's path
is resolved first, so a bare file name given from inside ``outputs/<model>/`` names its model.
The score column is ``score_column`` if given, else the
first of :data:`SCORE_COLUMNS` present (``hit``, ``score``, VQA's ``eval_score``).

* **VQA scores** (``vlmeval/dataset/image_vqa.py`` ``ImageVQADataset.evaluate_heuristic``): the
  ``_results`` file keeps per item the list ``eval_match`` (one value per accepted answer, from
  ``utils/vqa_eval.py`` ``process_line``) and ``eval_score = mean(eval_match)``, but the number VLMEvalKit
  reports, ``Overall = 100 * mean(hit)``, takes ``hit`` from ``hit_calculate``, which depends on the
  dataset: TextVQA and others the mean of the matches; ChartQA and OCRVQA the best match; DocVQA and
  InfoVQA ``1 - min(match)`` (``match`` is an ANLS *distance* there), 0 when below 0.5. The per-item score
  is that ``hit`` (:func:`vqa_hit`), computed from ``eval_match``; a DocVQA/InfoVQA/ChartQA/OCRVQA file
  without ``eval_match`` is refused, because its ``eval_score`` is not the reported score.
* **Aggregate-only files.** OCRBench's ``evaluate`` keeps no per-item file, only ``_score.json`` (the count
  of right answers, ``Final Score``, out of 1,000 questions); such files, and score tables without an
  ``index`` column (``_acc``, MME's ``_score.csv``), are skipped in a folder walk with a note saying why
  and refused when named.
* **Judge-scored MathVista** (``image_vqa.py`` ``MathVista.evaluate``): the judge file
  ``<model>_<dataset>_<judge>.xlsx`` holds the judge's extracted answer ``res`` and no score; the per-item
  score is VLMEvalKit's own ``post_check`` on it (:mod:`benchsift.io._vlmevalkit_judged`), whose mean is
  the ``acc`` of its ``_score.csv``. Other judge-scored datasets whose file holds no score column are
  refused with the missing column named (and warned of in a folder import).
* **MME** (``image_yorn.py``, ``utils/yorn.py`` ``MME_rating``): the ``_auxmatch`` file's ``score`` is
  per-question correctness; VLMEvalKit reports per category ``100 * (accuracy + accuracy+)`` (accuracy+:
  both questions of an image right), summed over the perception and the reasoning categories. Imported as
  correctness with a warning that the panel's mean is not that number.

Folders are walked for the per-item files (:data:`RESULT_PATTERNS`). A prediction file
``<model>_<dataset>.<ext>`` found there whose dataset got no imported score (OCRBench; a judge-scored
dataset such as MathVista, whose per-item judge file holds no score column) is named in a warning
(:func:`dropped_benchmarks`), so a folder import never leaves a benchmark out silently.

Re-runs: of the result files of one dataset in one model folder only those of the newest
``<model>/<eval_id>/`` run are read, as ``run.py`` links them into ``<model>/`` (a warning names the run
folders skipped; ``keep_all_runs`` keeps each run as its own model run), and a dataset that the newest run
listing it in its ``status.json`` left unfinished or failed is named in a warning
(:mod:`benchsift.io._vlmevalkit_runs`). The per-item mean is checked against the ``Overall`` of the
``_acc.csv`` (or, with ``EVAL_FORMAT=json``, ``_acc.json``) beside the result file.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchsift._jsonutil import loads_bounded
from benchsift.errors import FormatError, InputError, listed
from benchsift.io._coded_frames import read_sample_panel
from benchsift.io._common import (
    ANSWER_COL,
    FILE_COL,
    ROW_COL,
    Paths,
    answer_labels,
    as_paths,
    id_strings,
    numeric_scores,
    read_table,
    require_columns,
)
from benchsift.io._harness import check_reported
from benchsift.io._rows import RowNames
from benchsift.io._runs import choose_runs, explain_conflicts, rooted_candidates
from benchsift.io._vlmevalkit_judged import mathvista_correct
from benchsift.io._vlmevalkit_names import DATASETS as VLMEVALKIT_DATASETS
from benchsift.io._vlmevalkit_runs import EVAL_ID_RE, result_runs, shown_path, unfinished_datasets
from benchsift.io._walk import NotThisFormat, side_file
from benchsift.io.notes import raises_uncollected
from benchsift.io.rescale import RescaleMode, ScaleMap
from benchsift.panel import Panel

FAIL_MARK = "Failed to obtain answer"
SCORE_COLUMNS = ("hit", "score", "eval_score")
CIRCULAR_OFFSET = 1_000_000
KNOWN_JUDGES = (
    "exact_matching",
    "openai",
    "gpt4",
    "chatgpt-0125",
    "chatgpt-0613",
    "chatgpt-1106",
    "gpt-4-0125",
    "gpt-4-turbo",
    "gpt-4o",
    "gpt-4o-mini",
)
ITEM_META = ("question", "answer", "l2-category", "split", "image_path")  # image_path: item clusters
_SUFFIX_RE = re.compile(r"_(result|results|detailed_results|score|auxmatch|acc)$")
PRED_SUFFIXES = (".xlsx", ".tsv", ".csv", ".json", ".pkl", ".parquet")
_KINDS = ("result", "results", "score", "auxmatch")
RESULT_PATTERNS = (
    *(f"*_{k}{ext}" for k in _KINDS for ext in (".xlsx", ".csv", ".tsv")),
    "*_score.json",
    *(f"*_MathVista*{ext}" for ext in (".xlsx", ".csv", ".tsv")),  # the judge file <model>_<dataset>_<judge>
)
JUDGED = "MathVista"  # judge-scored datasets whose post-check benchsift ports (_vlmevalkit_judged)
# hit_calculate (vlmeval/dataset/utils/vqa_eval.py): dataset-name substrings -> per-item hit from eval_match
ANLS_DATASETS = ("DocVQA", "InfoVQA")
MAX_MATCH_DATASETS = ("ChartQA", "OCRVQA")
ANLS_THRESHOLD = 0.5


def vqa_hit(match: list[float], dataset: str) -> float:
    """VLMEvalKit's ``hit_calculate`` for one item (``vlmeval/dataset/utils/vqa_eval.py``).

    ``match`` holds one value per accepted answer: VQA scores (TextVQA, the default), ANLS distances
    (DocVQA, InfoVQA: the hit is ``1 - min(match)``, 0 below :data:`ANLS_THRESHOLD`) or 0/1 relaxed or
    exact matches (ChartQA, OCRVQA: the best one). As there, the test is a case-sensitive substring of
    the dataset name, TextVQA first.
    """
    values = np.asarray(match, dtype=np.float64)
    if "TextVQA" in dataset:
        return float(np.mean(values))
    if any(d in dataset for d in ANLS_DATASETS):
        best = 1.0 - float(np.min(values))
        return 0.0 if best < ANLS_THRESHOLD else best
    if any(d in dataset for d in MAX_MATCH_DATASETS):
        return float(np.max(values))
    return float(np.mean(values))


def _vqa_scores(df: pd.DataFrame, path: Path, bench: str, rows: RowNames) -> np.ndarray:
    """Per-item ``hit`` of a VQA ``_results`` file from its ``eval_match`` lists (module doc)."""
    out = np.empty(len(df), dtype=np.float64)
    for k, cell in enumerate(df["eval_match"].tolist()):
        value = cell
        if isinstance(cell, str):
            try:
                value = ast.literal_eval(cell.strip())
            except (ValueError, SyntaxError):
                value = None
        if not isinstance(value, list | tuple) or not value:
            raise FormatError(
                f"{path}, {rows[k]}: eval_match {str(cell)[:40]!r} is not a list of match values"
            )
        try:
            out[k] = vqa_hit([float(v) for v in value], bench)
        except (TypeError, ValueError):
            raise FormatError(
                f"{path}, {rows[k]}: eval_match {str(cell)[:40]!r} holds a value that is not a number"
            ) from None
    return out


def _mathvista_scores(df: pd.DataFrame, path: Path, rows: RowNames) -> np.ndarray:
    needed = ["res", "answer", "question_type", "answer_type", "choices", "answer_option"]
    missing = [c for c in needed if c not in df.columns]
    if missing:
        raise FormatError(
            f"{path}: a MathVista judge file without {missing}: VLMEvalKit's post_check needs {needed}"
        )
    out = np.empty(len(df), dtype=np.float64)
    for k, row in enumerate(df[needed].to_dict("records")):
        try:
            out[k] = mathvista_correct(row)
        except ValueError as exc:
            raise FormatError(f"{path}, {rows[k]}: {exc}") from None
    return out


def _aggregate_json(path: Path) -> NotThisFormat:
    try:
        data = loads_bounded(path.read_bytes(), str(path))
    except (OSError, UnicodeDecodeError, ValueError):
        data = None
    has_total = isinstance(data, dict) and "Final Score" in data
    total = f" (Final Score {data['Final Score']!r})" if has_total else ""
    return NotThisFormat(
        f"{path}: an aggregate VLMEvalKit score file{total}, not per-item scores (OCRBench's evaluate() "
        "keeps only these totals; import per-item scores from a result file with an 'index' column)"
    )


def parse_result_name(path: Path, notes: list[str] | None = None) -> tuple[str | None, str]:
    """``(model or None, benchmark)`` of a result file ``<model>_<dataset><suffix>.<ext>`` (module doc).

    The path is resolved first, so a bare file name given from inside ``outputs/<model>/`` names its model.
    """
    path = path.resolve()
    stem = path.stem
    folder = path.parent.name
    if EVAL_ID_RE.match(folder) and path.parent.parent.name:
        folder = path.parent.parent.name
    model = folder if folder and stem.startswith(folder + "_") else None
    prefix = f"{model}_" if model else ""
    siblings = (
        [
            p.stem
            for p in path.parent.iterdir()
            if p.suffix.lower() in PRED_SUFFIXES and p.stem != stem and stem.startswith(p.stem + "_")
        ]
        if path.parent.is_dir()
        else []
    )
    siblings = [s for s in siblings if s.startswith(prefix) and len(s) > len(prefix)]
    if siblings:
        return model, max(siblings, key=len)[len(prefix) :]
    rest = _SUFFIX_RE.sub("", stem[len(prefix) :])
    if rest in VLMEVALKIT_DATASETS:
        return model, rest
    known = [d for d in VLMEVALKIT_DATASETS if rest.startswith(d + "_")]
    if known:  # <dataset>_<judge>: the longest dataset name VLMEvalKit knows, whatever the judge
        return model, max(known, key=len)
    for judge in sorted(KNOWN_JUDGES, key=len, reverse=True):
        if rest.endswith("_" + judge):
            return model, rest[: -len(judge) - 1]
    if notes is not None and rest != stem[len(prefix) :]:
        notes.append(
            f"warning: {path.name}: no prediction file {prefix}<dataset>.<ext> beside it to confirm the "
            f"dataset; named it {rest!r} (pass `benchmark` if a judge name is part of it)"
        )
    return model, rest


def circular_scores(scores: np.ndarray, groups: np.ndarray) -> pd.Series:
    """Score per circular group: min over rotations; missing unless a known rotation is already 0."""
    s = pd.Series(scores)
    grouped = s.groupby(groups, sort=False)
    low = grouped.min()
    complete = grouped.count() == grouped.size()
    return low.where(complete | (low == 0.0))


def _read_one(
    path: Path,
    *,
    model: str | None,
    benchmark: str | None,
    score_column: str | None,
    circular: bool | None,
    condition: str | None,
    notes: list[str] | None,
) -> pd.DataFrame:
    if path.suffix.lower() == ".json":
        raise _aggregate_json(path)
    df = read_table(path, numeric=lambda header: [*SCORE_COLUMNS, *([score_column] if score_column else [])])
    rows = RowNames(path, len(df))
    file_model, file_bench = parse_result_name(path, notes) if benchmark is None else (None, benchmark)
    if model is None and file_model is None:
        file_model = parse_result_name(path)[0]
    name = model or file_model
    if name is None:
        raise InputError(f"{path}: cannot tell the model from the file name; give it (`model` NAME)")
    bench = benchmark or file_bench
    if "index" not in df.columns:
        raise NotThisFormat(
            f"{path}: no 'index' column: not a per-item VLMEvalKit file (an aggregate table?)"
        )
    auto_column = score_column is None
    judged = auto_column and bench.startswith(JUDGED) and not any(c in df.columns for c in SCORE_COLUMNS)
    if judged and "res" not in df.columns:
        raise NotThisFormat(
            f"{path}: a {bench} file without the judge's extracted answer 'res' (a prediction file?); "
            f"its per-item correctness is computed from the judge file {path.stem}_<judge>{path.suffix}"
        )
    if judged:
        df = df.assign(hit=_mathvista_scores(df, path, rows))
        if notes is not None:
            notes.append(
                f"{path.name}: per-item score = VLMEvalKit's MathVista post_check on the judge's 'res' "
                "(utils/mathvista.py), the rule behind its _score.csv acc"
            )
    if score_column is None:
        score_column = next((c for c in SCORE_COLUMNS if c in df.columns), None)
        if score_column is None:
            raise FormatError(
                f"{path}: missing a per-item score column ('hit' for multiple choice or 'score'); "
                f"columns are {listed(df.columns)}"
            )
    require_columns(df, ["index", score_column], path, "a VLMEvalKit result file")
    if auto_column and score_column == "eval_score" and "eval_match" in df.columns:
        scores = _vqa_scores(df, path, bench, rows)
        if notes is not None:
            notes.append(
                f"{path.name}: per-item score = VLMEvalKit's hit_calculate on eval_match for {bench!r} "
                "(vqa_eval.py), the rule behind its reported Overall"
            )
    elif (
        auto_column
        and score_column == "eval_score"
        and any(d in bench for d in (*ANLS_DATASETS, *MAX_MATCH_DATASETS))
    ):
        raise FormatError(
            f"{path}: no 'eval_match' column: for {bench!r} VLMEvalKit's reported score is not eval_score "
            "(hit_calculate in vqa_eval.py needs eval_match; pass `score_column` to use another column)"
        )
    else:
        scores = numeric_scores(df[score_column], path, score_column, rows)
    if "MME" in bench and path.stem.endswith("_auxmatch") and notes is not None:
        notes.append(
            f"warning: {path.name}: imported per-question correctness; VLMEvalKit reports MME as per "
            "category 100 x (accuracy + accuracy+ of both questions of an image) summed "
            "(yorn.py MME_rating), not the panel's mean"
        )
    if "prediction" in df.columns:
        failed = df["prediction"].astype(str).str.contains(FAIL_MARK, regex=False).to_numpy()
        if failed.any():
            scores = np.where(failed, np.nan, scores)
            if notes is not None:
                notes.append(f"{path.name}: {int(failed.sum())} failed answer(s) counted as missing")
    ids = id_strings(df["index"], path, "index", rows)
    index_num = pd.to_numeric(ids, errors="coerce")
    if "g_index" in df.columns:
        g_num = pd.to_numeric(df["g_index"].reset_index(drop=True), errors="coerce")
    else:
        g_num = index_num % CIRCULAR_OFFSET
    numeric = bool(index_num.notna().all() and g_num.notna().all())
    is_circular = numeric and bool((g_num != index_num).any()) if circular is None else circular
    table = pd.DataFrame({"score": scores, "item": ids, ROW_COL: np.arange(len(df))})
    if "prediction" in df.columns:  # the logged answer (DISCO); a failed one is no answer
        pred = df["prediction"].reset_index(drop=True).astype(object)
        table[ANSWER_COL] = pred.where(~pd.Series(failed), None).to_numpy()
    table["category"] = df["category"].to_numpy() if "category" in df.columns else pd.NA
    for c in ITEM_META:
        if c in df.columns:
            table[c] = df[c].to_numpy()
    if is_circular:
        if not numeric:
            raise InputError(f"{path}: circular grouping needs integer 'index' (and 'g_index') values")
        g = g_num.to_numpy().astype(np.int64)
        order = np.argsort(index_num.to_numpy(), kind="stable")
        table = table.iloc[order].reset_index(drop=True)
        g = g[order]
        group_score = circular_scores(table["score"].to_numpy(), g)
        first = ~pd.Series(g).duplicated().to_numpy()
        if ANSWER_COL in table.columns:
            # a circular item's answer: its rotations' answers in index order ("A|C|B|D"); none if one failed
            labels = answer_labels(table[ANSWER_COL])
            by_group = labels.groupby(g, sort=False)
            joined = by_group.agg(lambda x: "|".join(x) if x.notna().all() else None)
            table[ANSWER_COL] = joined.loc[g].to_numpy()
        table = table.loc[first].reset_index(drop=True)
        table["item"] = [str(x) for x in g[first]]
        table["score"] = group_score.loc[g[first]].to_numpy()
        if notes is not None:
            notes.append(f"{path.name}: {len(order)} rows grouped into {len(table)} circular items")
    table["model"] = name
    table["condition"] = condition or "image"
    table["benchmark"] = bench
    table[FILE_COL] = str(path)
    return table


#: largest ``_acc.csv`` / ``_acc.json`` read for the check (VLMEvalKit writes one row of a few dozen columns)
MAX_ACC_BYTES = 1 << 20


def _acc_overall(acc: Path) -> float | None:
    """``Overall`` of VLMEvalKit's one-row ``_acc`` table: ``.csv``, or ``.json`` as its ``dump`` writes a
    frame with ``EVAL_FORMAT=json`` (a list of one record, ``[{"Overall": 50.0}]``); None if unreadable."""
    if acc.stat().st_size > MAX_ACC_BYTES:
        return None
    try:
        if acc.suffix == ".json":
            data = loads_bounded(acc.read_bytes(), str(acc))
            rows = data if isinstance(data, list) else [data]
            if len(rows) != 1 or not isinstance(rows[0], dict) or "Overall" not in rows[0]:
                return None
            own = pd.DataFrame({"Overall": [rows[0]["Overall"]]})
        else:
            own = pd.read_csv(acc)
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    if len(own) != 1 or "Overall" not in own.columns:
        return None
    value = pd.to_numeric(own["Overall"], errors="coerce").iloc[0]
    return float(value) if np.isfinite(value) else None


def _check_acc(path: Path, table: pd.DataFrame, root: Path, notes: list[str]) -> list[str]:
    """Compare the per-item mean with the ``Overall`` of VLMEvalKit's ``<model>_<dataset>_acc.csv`` (or
    ``_acc.json``, written with ``EVAL_FORMAT=json``) beside the result file (one row; a fraction for
    multiple choice, ``report_acc``; percent for VQA's ``_results``), counting failed answers (missing
    here) as VLMEvalKit does, wrong; a warning names both numbers when they differ (``table``: the file's
    long frame, one model and benchmark). The file is read only inside ``root``
    (:func:`~benchsift.io._walk.side_file`) and up to :data:`MAX_ACC_BYTES`; one that cannot be read is
    named in a note saying the check was skipped."""
    if not len(table):
        return []
    model, bench = str(table["model"].iloc[0]), str(table["benchmark"].iloc[0])
    acc = None
    for ext in (".csv", ".json"):
        acc = side_file(path.resolve().parent / f"{model}_{bench}_acc{ext}", root, notes)
        if acc is not None:
            break
    if acc is None:
        return []
    reported = _acc_overall(acc)
    if reported is None:
        return [
            f"{path.name}: not checked against {acc.name}: no single 'Overall' number in it (or over "
            f"{MAX_ACC_BYTES} bytes)"
        ]
    reported /= 100.0 if path.stem.endswith("_results") else 1.0
    scores = np.nan_to_num(table["score"].to_numpy(dtype=np.float64), nan=0.0)
    return check_reported(scores, reported, f"{path.name} ({acc.name})", model)


@raises_uncollected
def read_vlmevalkit(
    paths: Paths,
    *,
    model: str | None = None,
    benchmark: str | None = None,
    score_column: str | None = None,
    circular: bool | None = None,
    condition: str | None = None,
    rescale: RescaleMode = "auto",
    scales: ScaleMap | None = None,
    notes: list[str] | None = None,
    answers: list[pd.DataFrame] | None = None,
    keep_all_runs: bool = False,
) -> Panel:
    """Read VLMEvalKit per-item result files (``.xlsx``, ``.csv``, ``.tsv``), one model x dataset each.

    ``answers``: a list that receives the long table of logged answers (the ``prediction`` column; a
    circular item's answer joins its rotations' answers, ``"A|C|B|D"``, and is missing when one of them
    is), see :mod:`benchsift.io.answers`.
    Re-runs: of the result files of one dataset in one model folder only those of the newest run folder
    ``<eval_id>`` are read, as VLMEvalKit's ``run.py`` links them; a warning names the others and their
    run folder. ``keep_all_runs`` reads them all, each run of such a model as its own model run
    ``<model> (run <eval_id>)`` (:mod:`benchsift.io._vlmevalkit_runs`); so are runs of one model and
    dataset in different folders given, whose differing scores are otherwise an error naming them.
    The ``status.json`` files in the folders given name the datasets a run left unfinished or failed.
    """
    options: dict[str, Any] = dict(model=model, benchmark=benchmark, score_column=score_column)
    options.update(circular=circular, condition=condition)

    def one(path: Path, notes: list[str] | None, root: Path) -> pd.DataFrame:
        table = _read_one(path, notes=notes, **options)
        if notes is not None and score_column is None:  # the score column VLMEvalKit's own acc is of
            notes.extend(_check_acc(path, table, root, notes))
        if path.is_symlink():  # a link run.py made in <model>/: name the file in its run folder
            table[FILE_COL] = str(shown_path(path, root))
        return table

    given = as_paths(paths)
    runs = result_runs(
        rooted_candidates(given, RESULT_PATTERNS), parse_result_name, model=model, benchmark=benchmark
    )
    read = choose_runs(
        runs, one, keep_all_runs=keep_all_runs, tool="VLMEvalKit (run.py links its newest run)"
    )
    try:
        with explain_conflicts(runs, keep_all_runs=keep_all_runs):
            panel = read_sample_panel(
                given,
                RESULT_PATTERNS,
                read,
                what="VLMEvalKit result",
                rescale=rescale,
                scales=scales,
                notes=notes,
                answers=answers,
            )
    except InputError as exc:
        failed = unfinished_datasets(given, set())
        if not failed or "no readable" not in str(exc):
            raise
        first = failed[0].removeprefix("warning: ")
        raise InputError(f"{exc}; {len(failed)} dataset(s) unfinished or failed, first {first}") from None
    if notes is not None and model is None and benchmark is None:
        notes.extend(dropped_benchmarks(given, panel))
    if notes is not None:
        notes.extend(unfinished_datasets(given, _imported(panel)))
    return panel


def _imported(panel: Panel) -> set[tuple[str, str]]:
    """``(model, benchmark)`` pairs with at least one score in ``panel``; a model run kept by
    ``keep_all_runs`` counts under its model's name too."""
    imported: set[tuple[str, str]] = set()
    bench = panel.items["benchmark"].astype(str).to_numpy()
    for i, name in enumerate(panel.model_ids):
        base = str(name).split(" (run ", 1)[0]
        for b in set(bench[~np.isnan(panel.scores[i])]):
            imported.update({(str(name), str(b)), (base, str(b))})
    return imported


def dropped_benchmarks(given: list[Path], panel: Panel) -> list[str]:
    """Warnings for the prediction files ``<model>_<dataset>.<ext>`` (``<dataset>`` one VLMEvalKit lists)
    found in the folders given whose model has no imported score on that dataset: a folder import never
    leaves a benchmark out without a word (OCRBench keeps only ``_score.json``; a judge-scored dataset
    such as MathVista keeps its per-item judge file ``<model>_<dataset>_<judge>.xlsx`` without a score)."""
    imported = _imported(panel)
    out: list[str] = []
    seen: set[Path] = set()
    for root in given:
        if not root.is_dir():
            continue
        for p in sorted(root.rglob("*")):
            real = p.resolve()
            if real in seen or p.suffix.lower() not in PRED_SUFFIXES or not p.is_file():
                continue
            seen.add(real)
            if not real.is_relative_to(root.resolve()):
                continue
            folder = real.parent.parent.name if EVAL_ID_RE.match(real.parent.name) else real.parent.name
            dataset = p.stem[len(folder) + 1 :] if p.stem.startswith(folder + "_") else None
            if dataset not in VLMEVALKIT_DATASETS or (folder, dataset) in imported:
                continue
            beside = sorted(q.name for q in real.parent.glob(f"{p.stem}_*") if q.suffix.lower() != ".pkl")
            out.append(
                f"warning: {p}: predictions of model {folder!r} on {dataset!r}, but no per-item score of "
                f"them was imported, so {dataset!r} is left out for this model (files beside it: "
                f"{beside or 'none'}; a per-item file with 'index' and 'hit' / 'score' is needed)"
            )
    return out
