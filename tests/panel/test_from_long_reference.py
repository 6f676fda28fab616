"""Panel.from_long against an independent pandas reading of seeded random long tables (issue 37).

``Panel.from_long`` runs the one long-table builder of the importers (:mod:`benchsift.panel.long._columns`,
:mod:`benchsift.panel.long._coded`). Here the same table is read with plain pandas, written from the
documented rules and nothing of benchsift: ids stripped (padded and unicode ids), a missing condition
``image``, identical duplicates collapsed to their first row, runs and items in order of first appearance, a
column constant within every item kept as item metadata (each item's first row), one constant within every run
as model metadata, side tables joined with their value winning. A conflicting duplicate names the later row
and the first one by ``rows``.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from benchsift.errors import InputError
from benchsift.panel import Panel

MODELS = ["gpt-4o", " llava-1.5 ", "Qwen2-VL\u00e9", "\u6a21\u578b-7b", "m5"]
BENCHMARKS = ["MMStar", " MMMU", "\u00e9val "]


def _random_long(seed: int) -> pd.DataFrame:
    """A long table: random runs x items cells (some left out), NaN scores, identical duplicate rows,
    padded and unicode ids, a text-only condition for some runs, an item column and a run column."""
    rng = np.random.default_rng(seed)
    n_items = int(rng.integers(3, 9))
    items = [
        (BENCHMARKS[int(rng.integers(len(BENCHMARKS)))], f" q{k}" if k % 3 == 0 else f"q{k}")
        for k in range(n_items)
    ]
    runs = [(m, c) for m in MODELS[: int(rng.integers(2, len(MODELS) + 1))] for c in (None, "text-only")]
    runs = [r for r in runs if r[1] is None or rng.random() < 0.4]
    rows = []
    for model, cond in runs:
        for bench, item in items:
            if rng.random() < 0.2:
                continue  # a missing cell
            score = float(rng.integers(0, 2)) if rng.random() < 0.5 else float(rng.random())
            rows.append(
                {
                    "model": model,
                    "condition": cond,
                    "benchmark": bench,
                    "item": item,
                    "score": np.nan if rng.random() < 0.15 else score,
                    "question": f"what is {item.strip()}\u2753",  # constant per item (the stripped id)
                    "org": f"org-{model.strip()[:2]}",  # constant per run
                }
            )
    df = pd.DataFrame(rows)
    dups = df.iloc[rng.integers(0, len(df), size=int(rng.integers(1, 5)))]  # identical duplicates
    df = pd.concat([df, dups], ignore_index=True)
    return df.iloc[rng.permutation(len(df))].reset_index(drop=True)


def _reference(df: pd.DataFrame, models: pd.DataFrame, items: pd.DataFrame) -> dict[str, object]:
    """The panel read with plain pandas (module docstring)."""
    t = df.copy()
    for c in ("model", "benchmark", "item"):
        t[c] = t[c].str.strip()
    t["condition"] = t["condition"].fillna("image")
    t = t.drop_duplicates(["model", "condition", "benchmark", "item"], keep="first")
    runs = list(dict.fromkeys(zip(t["model"], t["condition"], strict=True)))
    keys = list(dict.fromkeys(zip(t["benchmark"], t["item"], strict=True)))
    matrix = np.full((len(runs), len(keys)), np.nan)
    r_of = {r: k for k, r in enumerate(runs)}
    i_of = {q: k for k, q in enumerate(keys)}
    for m, c, b, q, s in t[["model", "condition", "benchmark", "item", "score"]].itertuples(index=False):
        matrix[r_of[(m, c)], i_of[(b, q)]] = s
    question = t.groupby(["benchmark", "item"], sort=False)["question"].first()
    org = t.groupby(["model", "condition"], sort=False)["org"].first()
    family = dict(zip(models["model"], models["family"], strict=True))
    category = dict(zip(zip(items["benchmark"], items["item"], strict=True), items["category"], strict=True))
    return {
        "scores": matrix,
        "runs": runs,
        "keys": keys,
        "question": [question[k] for k in keys],
        "org": [org[r] for r in runs],
        "family": [family.get(m) for m, _ in runs],
        "category": [category.get(k) for k in keys],
    }


@pytest.mark.parametrize("seed", range(12))
def test_from_long_equals_an_independent_pandas_reading(seed: int) -> None:
    df = _random_long(seed)
    names = sorted({m.strip() for m in df["model"]})
    models = pd.DataFrame({"model": names[::2], "family": [f"F{k}" for k in range(len(names[::2]))]})
    item_keys = sorted({(b.strip(), q.strip()) for b, q in zip(df["benchmark"], df["item"], strict=True)})
    items = pd.DataFrame(
        {
            "benchmark": [b for b, _ in item_keys[::2]],
            "item": [q for _, q in item_keys[::2]],
            "category": [f"cat\u00b7{k}" for k in range(len(item_keys[::2]))],
        }
    )
    ref = _reference(df, models, items)
    panel = Panel.from_long(df, models=models, items=items)

    np.testing.assert_array_equal(panel.scores, ref["scores"])
    assert list(zip(panel.models["model"], panel.models["condition"], strict=True)) == ref["runs"]
    assert panel.item_keys == ref["keys"]
    assert panel.items["question"].tolist() == ref["question"]
    assert panel.models["org"].tolist() == ref["org"]
    assert panel.models["family"].tolist() == ref["family"]
    assert panel.items["category"].tolist() == ref["category"]


@pytest.mark.parametrize("seed", range(6))
def test_a_conflicting_duplicate_names_the_later_row_and_the_first(seed: int) -> None:
    df = _random_long(100 + seed)
    scored = np.flatnonzero(df["score"].notna().to_numpy())
    rng = np.random.default_rng(seed)
    j = int(rng.choice(scored))
    bad = df.iloc[[j]].assign(score=1.0 - float(df["score"].iloc[j]) / 2 - 0.25)  # never equal
    # a copy with padded ids is the same cell
    bad = bad.assign(model=bad["model"] + "  ")
    table = pd.concat([df, bad], ignore_index=True)
    labels = [f"line {k + 2}" for k in range(len(table))]

    # the reference: row by row, the first row whose (stripped) cell was seen with another score
    seen: dict[tuple[str, str, str, str], int] = {}
    later = earlier = -1
    for k, (m, c, b, q, x) in enumerate(
        table[["model", "condition", "benchmark", "item", "score"]].itertuples(index=False)
    ):
        cell = (m.strip(), c if isinstance(c, str) else "image", b.strip(), q.strip())
        if cell not in seen:
            seen[cell] = k
            continue
        y = float(table["score"].iloc[seen[cell]])
        if not (x == y or (np.isnan(x) and np.isnan(y))):
            later, earlier = k, seen[cell]
            break
    row = {"model": cell[0], "benchmark": cell[2], "item": cell[3]}
    expected = (
        f"runs.csv, {labels[later]}: conflicting duplicate scores for model {row['model']!r}, benchmark "
        f"{row['benchmark']!r}, item {row['item']!r}: {float(table['score'].iloc[later])!r} here and "
        f"{float(table['score'].iloc[earlier])!r} at runs.csv, {labels[earlier]}"
    )
    with pytest.raises(InputError, match=f"^{re.escape(expected)}$"):
        Panel.from_long(table, source="runs.csv", rows=labels)


def test_ids_categories_and_scores_read_as_the_long_importer_reads_them() -> None:
    df = pd.DataFrame(
        {
            "model": [" a ", "a", 7, 7.0],
            "benchmark": ["B", "B ", "B", "B"],
            "item": [1.0, "1", 2, "3"],
            "score": ["1", " TRUE ", "", "0.25"],
            "category": [3.0, 3.0, "x", "x"],
        }
    )
    panel = Panel.from_long(df)
    assert panel.model_ids == ["a", "7"]
    assert panel.item_keys == [("B", "1"), ("B", "2"), ("B", "3")]
    np.testing.assert_array_equal(panel.scores, [[1.0, np.nan, np.nan], [np.nan, np.nan, 0.25]])
    assert panel.items["category"].tolist() == ["3", "x", "x"]
    for bad, message in (
        (df.assign(model=["a", "  ", "b", "b"]), r"^long table, row 1: empty model$"),
        (df.assign(score=[0, 1, float("inf"), 0]), r"^long table, row 2: score is infinite$"),
        (df.assign(score=[0, "yes", 1, 0]), r"^long table, row 1: score 'yes' is not a number$"),
        (
            df.assign(condition=["image", "audio", None, None]),
            r"^long table, row 1: condition 'audio' is not one of \['image', 'text-only'\]$",
        ),
    ):
        with pytest.raises(InputError, match=message):
            Panel.from_long(bad)


def test_metadata_keeps_its_dtype_and_a_varying_prediction_column_is_left_out() -> None:
    df = pd.DataFrame(
        {
            "model": ["a", "a", "b", "b"],
            "benchmark": "B",
            "item": ["1", "2", "1", "2"],
            "score": [1.0, 0.0, 0.5, 1.0],
            "n_options": pd.array([4, 5, 4, 5], dtype="Int64"),
            "kind": pd.Categorical(["mc", "open", "mc", "open"], categories=["open", "mc", "other"]),
            "release_date": pd.to_datetime(["2024-01-02"] * 2 + ["2023-05-06"] * 2),
            "prediction": ["A", "A", "B", "B"],  # constant per run: the from_long rule keeps it as model data
        }
    )
    panel = Panel.from_long(df)
    assert panel.items["n_options"].dtype == "Int64" and panel.items["n_options"].tolist() == [4, 5]
    kind = panel.items["kind"]
    assert isinstance(kind.dtype, pd.CategoricalDtype) and list(kind.cat.categories) == [
        "open",
        "mc",
        "other",
    ]
    assert kind.tolist() == ["mc", "open"]
    assert panel.models["release_date"].tolist() == [pd.Timestamp("2024-01-02"), pd.Timestamp("2023-05-06")]
    assert panel.models["prediction"].tolist() == ["A", "B"]
