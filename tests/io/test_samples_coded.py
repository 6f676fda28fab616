"""The sample importers' long tables (each file's long frame coded as it is read, ``io._coded_frames``, and
assembled by the one builder, ``panel.long``): on the real fixtures of the formats (written by the tools
themselves) against an independent pandas reading of the importers' per-file frames (concatenated, first
row of each cell, first-appearance order, pivoted here); the answers table against the panel;
hand-checked edge cases (duplicates, conflicting scores, NaN scores, a model without any kept score,
unicode ids, a rescale rejection naming its line, ids and categories that are not text)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from benchsift.errors import BenchsiftError, InputError
from benchsift.io import (
    read_eee,
    read_inspect,
    read_lighteval,
    read_lm_eval,
    read_lmms_eval,
    read_vlmevalkit,
)
from benchsift.io import vlmevalkit as vlm_mod
from benchsift.io._coded_frames import FrameCoder
from benchsift.io._common import KEY
from benchsift.io._harness import read_harness_file
from benchsift.io.lm_eval import LAYOUT as LM_LAYOUT
from benchsift.io.lmms_eval import LAYOUT as LMMS_LAYOUT

F = Path(__file__).resolve().parents[1] / "fixtures" / "io"
INSPECT = F / "inspect" / "real" / "logs"
STRICT = {"filter": "strict-match"}

# (id, reader, inputs, options): every real fixture layout of the six formats
CASES: list[tuple[str, Callable[..., Any], list[Path], dict[str, Any]]] = [
    ("lm-eval tree", read_lm_eval, [F / "lm_eval/real/logs/tree"], STRICT),
    ("lm-eval single", read_lm_eval, [F / "lm_eval/real/logs/single"], STRICT),
    ("lm-eval legacy", read_lm_eval, [F / "lm_eval/real/logs/legacy"], STRICT),
    ("lm-eval details parquet", read_lm_eval, [F / "lm_eval/real/details"], STRICT),
    ("lm-eval pythia", read_lm_eval, [F / "lm_eval/EleutherAI__pythia-160m"], STRICT),
    ("lmms-eval", read_lmms_eval, [F / "lmms_eval/real/logs"], STRICT),
    ("lmms-eval llava", read_lmms_eval, [F / "lmms_eval/llava-hf__llava-1.5-7b-hf"], {}),
    (
        "inspect ordinary+errored+unfinished+json",
        read_inspect,
        [INSPECT / d for d in ("ordinary", "all_errored", "unfinished", "json_format")],
        {},
    ),  # noqa: E501
    ("inspect epochs", read_inspect, [INSPECT / "epochs_mode"], {}),
    ("inspect conflict", read_inspect, [INSPECT / "ordinary", INSPECT / "epochs_max"], {}),
    (
        "inspect hand json",
        read_inspect,
        [F / "inspect/2024-09-01T10-00-00+00-00_mmmu-multiple-choice_Hc9xk2.json"],
        {},
    ),  # noqa: E501
    ("vlmevalkit", read_vlmevalkit, [F / "vlmevalkit/real"], {}),
    ("vlmevalkit csv/tsv", read_vlmevalkit, [F / "vlmevalkit"], {}),
    ("lighteval", read_lighteval, [F / "lighteval/real/out/details"], {}),
    ("eee", read_eee, [F / "eee/real/data"], {}),
]


def _outcome(
    reader: Callable[..., Any], paths: list[Path], tmp: Path, keep: bool, **kw: Any
) -> dict[str, Any]:
    notes: list[str] = []
    answers: list[pd.DataFrame] | None = [] if keep else None
    try:
        panel = reader(paths, notes=notes, answers=answers, **kw)
    except BenchsiftError as exc:
        return {"error": f"{type(exc).__name__}: {exc}", "notes": notes}
    out = tmp / "panel.parquet"
    panel.save(out)
    return {"bytes": out.read_bytes(), "panel": panel, "notes": notes, "answers": answers}


def _same(reader: Callable[..., Any], paths: list[Path], tmp: Path, keep: bool, **kw: Any) -> dict[str, Any]:
    """The outcome; a panel's answers table (when kept) holds only cells of the panel, in its order."""
    out = _outcome(reader, paths, tmp, keep, **kw)
    if "error" not in out and keep and out["answers"]:
        (table,) = out["answers"]
        panel = out["panel"]
        runs = list(zip(panel.models["model"], panel.models["condition"], strict=True))
        cells = set(zip(table["model"], table["condition"], table["benchmark"], table["item"], strict=True))
        assert len(cells) == len(table)
        assert {(m, c) for m, c, _, _ in cells} <= set(runs)
        assert {(b, i) for _, _, b, i in cells} <= set(panel.item_keys)
    return out


def _pandas_panel(
    frames: list[pd.DataFrame],
) -> tuple[np.ndarray, list[tuple[str, str]], list[tuple[str, str]]]:
    """The scores, runs and items of the concatenated frames, by pandas: the first row of each cell, runs
    and items in order of first appearance."""
    df = pd.concat(frames, ignore_index=True).drop_duplicates(KEY)
    for c in KEY:
        df[c] = df[c].astype(str)
    runs = list(dict.fromkeys(zip(df["model"], df["condition"], strict=True)))
    items = list(dict.fromkeys(zip(df["benchmark"], df["item"], strict=True)))
    matrix = df.pivot_table(
        index=["model", "condition"], columns=["benchmark", "item"], values="score", dropna=False
    )
    matrix = matrix.reindex(index=pd.MultiIndex.from_tuples(runs), columns=pd.MultiIndex.from_tuples(items))
    return matrix.to_numpy(dtype=float), runs, items


LM_FILES = [
    (F / "lm_eval/real/logs/tree", "samples_*.jsonl", LM_LAYOUT),
    (F / "lm_eval/real/details", "*.parquet", LM_LAYOUT),
    (F / "lmms_eval/real/logs", "*_samples_*.jsonl", LMMS_LAYOUT),
]


@pytest.mark.parametrize(
    ("folder", "glob", "layout"), LM_FILES, ids=["lm-eval", "lm-eval details", "lmms-eval"]
)
def test_harness_panel_equals_a_pandas_pivot_of_its_frames(folder: Path, glob: str, layout: Any) -> None:
    """lm-eval / lmms-eval: the panel of a folder equals the pandas pivot of the per-file frames
    (``read_harness_file``, read here file by file, in the importer's order)."""
    reader = read_lm_eval if layout is LM_LAYOUT else read_lmms_eval
    panel = reader([folder], **STRICT, notes=[])  # (the numbers are compared here, not the warnings)
    opts = dict(model=None, metric=None, filter_name="strict-match", benchmark=None, condition=None)
    frames = [read_harness_file(p, layout, notes=None, **opts) for p in sorted(folder.rglob(glob))]  # type: ignore[arg-type]
    matrix, runs, items = _pandas_panel([f for f in frames if f is not None])
    assert sorted(zip(panel.models["model"], panel.models["condition"], strict=True)) == sorted(runs)
    assert sorted(panel.item_keys) == sorted(items)
    r = [runs.index(k) for k in zip(panel.models["model"], panel.models["condition"], strict=True)]
    i = [items.index(k) for k in panel.item_keys]
    np.testing.assert_array_equal(panel.scores, matrix[np.ix_(r, i)])


def test_vlmevalkit_panel_equals_a_pandas_pivot_of_its_frames() -> None:
    folder = F / "vlmevalkit" / "GPT4o"
    files = sorted(p for p in folder.iterdir() if p.suffix in (".csv", ".tsv", ".xlsx"))
    panel = read_vlmevalkit(files)
    opts = dict(model=None, benchmark=None, score_column=None, circular=None, condition=None, notes=None)
    matrix, runs, items = _pandas_panel([vlm_mod._read_one(p, **opts) for p in files])  # type: ignore[arg-type]
    assert list(zip(panel.models["model"], panel.models["condition"], strict=True)) == runs
    assert panel.item_keys == items
    np.testing.assert_array_equal(panel.scores, matrix)


@pytest.mark.parametrize("keep", [False, True], ids=["answers-counted", "answers-kept"])
@pytest.mark.parametrize(("reader", "paths", "kw"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_real_fixtures(
    reader: Callable[..., Any], paths: list[Path], kw: dict[str, Any], keep: bool, tmp_path: Path
) -> None:
    out = _same(reader, paths, tmp_path, keep, **kw)
    if "error" not in out:
        assert out["panel"].n_models >= 1 and out["panel"].n_items >= 3


def test_inspect_conflict_names_both_members(tmp_path: Path) -> None:
    """A real conflict between two inspect logs: the message names both samples by their archive members
    (labels the lean path keeps per file, not a line number)."""
    out = _same(read_inspect, [INSPECT / "ordinary", INSPECT / "epochs_max"], tmp_path, False)
    max_log = INSPECT / "epochs_max" / "2026-12-01T11-54-11-00-00_arith_3HdyN33SHEJBRbAg2RT3y4.eval"
    ordinary = INSPECT / "ordinary" / "2026-12-01T11-54-09-00-00_arith_anZnhfwmyi3LtgKEBhvsED.eval"
    assert out["error"].startswith(
        f"InputError: {max_log}, member samples/q4_epoch_1.json: conflicting duplicate scores for model "
        f"'mockllm/alpha', benchmark 'arith', item 'q4': 1.0 here and 0.0 at {ordinary}, "
        "member samples/q4_epoch_1.json; model 'mockllm/alpha' ran 'arith' in 2 separate runs here "
    )
    assert out["error"].endswith(
        "--keep-all-runs (keep_all_runs=True) keeps each run as its own model run; "
        "to keep one run, import only its file(s) or folder"
    )


def _sample(doc_id: object, score: object, answer: str = "A") -> dict[str, Any]:
    return {"doc_id": doc_id, "filtered_resps": [answer], "filter": "none", "metrics": ["acc"], "acc": score}


def _write_lm(folder: Path, task: str, lines: list[dict[str, Any] | str]) -> Path:
    """One lm-eval sample file (no results json: the model is the folder name, ``__`` read as ``/``)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"samples_{task}_2026-01-01T00-00-00.000001.jsonl"
    path.write_text(
        "".join((x if isinstance(x, str) else json.dumps(x, ensure_ascii=False)) + "\n" for x in lines)
    )
    return path


def test_duplicates_nan_unicode_by_hand(tmp_path: Path) -> None:
    """Unicode ids, blank lines, null (NaN) scores, a model without any score, identical duplicates across
    files (collapsed, the first row kept) and a NaN-against-1 conflict; values checked by hand."""
    a = _write_lm(
        tmp_path / "org__模型-α", "täsk", [_sample("ü-1", 1), "", _sample(2, None), _sample(3, 0.5)]
    )
    b = _write_lm(tmp_path / "org__模型-α" / "copy", "täsk", [_sample(3, 0.5, "B"), _sample(2, None)])
    c = _write_lm(tmp_path / "org__empty", "täsk", [_sample("ü-1", None), _sample(2, None)])
    panel = _same(read_lm_eval, [a, b, c], tmp_path, True, benchmark="Bénch")["panel"]
    assert panel.model_ids == ["org/模型-α", "copy", "org/empty"]
    assert panel.item_keys == [("Bénch", "ü-1"), ("Bénch", "2"), ("Bénch", "3")]
    nan = np.nan
    np.testing.assert_array_equal(panel.scores, [[1.0, nan, 0.5], [nan, nan, 0.5], [nan, nan, nan]])
    out = _same(read_lm_eval, [a, b], tmp_path, True, model="模型")
    np.testing.assert_array_equal(out["panel"].scores, [[1.0, nan, 0.5]])
    assert "collapsed 2 identical duplicate row(s)" in out["notes"]
    assert out["answers"][0]["answer"].tolist() == ["A", "A", "A"]  # the first row of each cell: file a's
    out = _same(read_lm_eval, [a, c], tmp_path, False, model="模型")
    assert out["error"] == (
        f"InputError: {c}, line 1: conflicting duplicate scores for model '模型', benchmark 'täsk', "
        f"item 'ü-1': nan here and 1.0 at {a}, line 1"
    )


def test_conflict_and_rescale_messages_name_lines(tmp_path: Path) -> None:
    a = _write_lm(tmp_path / "org__m", "t", [_sample(0, 1), "", _sample(1, 0)])
    b = _write_lm(tmp_path / "org__m2", "t", [_sample(1, 1)])
    out = _same(read_lm_eval, [a, b], tmp_path, False, model="m")
    assert out["error"] == (
        f"InputError: {b}, line 1: conflicting duplicate scores for model 'm', benchmark 't', item '1': "
        f"1.0 here and 0.0 at {a}, line 3"
    )
    lines: list[dict[str, Any] | str] = [_sample(0, 1), _sample(1, 1), "", _sample(2, 0), "", _sample(3, 2)]
    c = _write_lm(tmp_path / "org__m3", "t", lines)
    out = _same(read_lm_eval, [c], tmp_path, False)
    assert out["error"].startswith(f"InputError: {c}, line 6: benchmark 't': score 2.0 above 1, but only 33%")


def test_frames_with_ids_and_categories_that_are_not_text(tmp_path: Path) -> None:
    """An Excel result file whose ``category`` cells are numbers (read as integers, not text): coded as
    their text, like the ids; a harness frame's rows are named by their lines; a frame without a model id
    in a row is refused naming it."""
    src = pd.read_csv(F / "vlmevalkit/GPT4o/GPT4o_MMStar_openai_result.csv")
    folder = tmp_path / "GPT4o"
    folder.mkdir()
    numeric = src.assign(category=np.arange(len(src)) % 2)
    numeric.to_excel(folder / "GPT4o_MMStar_openai_result.xlsx", index=False)
    shutil.copy(F / "vlmevalkit/GPT4o/GPT4o_MMBench_DEV_EN_openai_result.tsv", folder)
    for keep in (False, True):
        out = _same(read_vlmevalkit, [folder], tmp_path, keep)
        items = out["panel"].items
        assert set(items.loc[items["benchmark"] == "MMStar", "category"]) == {"0", "1"}
    lm = F / "lm_eval/real/logs/tree/org__beta/samples_arith_gen_2026-12-01T12-09-01.322052.jsonl"
    coder = FrameCoder(keep_answers=False)
    opts = dict(model=None, metric=None, filter_name="strict-match", benchmark=None, condition=None)
    frame = read_harness_file(lm, LM_LAYOUT, notes=None, **opts)  # type: ignore[arg-type]
    coder.add(frame)
    coded = coder.result()
    assert coded.place(0) == f"{lm}, line 1" and coded.row_formats == ["line "]
    frame.loc[frame.index[2], "model"] = None
    with pytest.raises(InputError, match=rf"{lm.name}, {frame['_row'].iloc[2]}: empty model$"):
        FrameCoder(keep_answers=False).add(frame)


def test_condition_option_and_bad_condition_row(tmp_path: Path) -> None:
    a = _write_lm(tmp_path / "org__m", "t", [_sample(0, 1), _sample(1, 0)])
    out = _same(read_lm_eval, [a], tmp_path, True, condition="text-only")
    assert out["panel"].models["condition"].tolist() == ["text-only"]
    with pytest.raises(InputError, match=r"line 1: condition 'blind' is not one of"):
        read_lm_eval([a], condition="blind")


def test_vlmevalkit_rows_named_by_line(tmp_path: Path) -> None:
    """A VLMEvalKit CSV row is named by its line (the data-row index the frame keeps, after the circular
    regrouping's reordering too): a score the rescale rules reject, the same message on both paths."""
    folder = tmp_path / "GPT4o"
    folder.mkdir()
    src = pd.read_csv(F / "vlmevalkit/GPT4o/GPT4o_MMStar_openai_result.csv", dtype=str)
    src.loc[2, "hit"] = "150"
    src.to_csv(folder / "GPT4o_MMStar_openai_result.csv", index=False)
    shutil.copy(F / "vlmevalkit/GPT4o/GPT4o_MMBench_DEV_EN_openai_result.tsv", folder)
    out = _same(read_vlmevalkit, [folder], tmp_path, False)
    bad = folder / "GPT4o_MMStar_openai_result.csv"
    expected = f"InputError: {bad}, line 4: benchmark 'MMStar': score 150.0 outside [0, 1]"
    assert out["error"].startswith(expected)
