"""The ``long`` importer's one reader (pyarrow record batches coded by :mod:`benchsift.io._long_sources`,
assembled by :mod:`benchsift.panel.long._coded`) against an independent pandas reading written here
(:func:`_reference`: ``read_csv(dtype=str)`` / ``read_parquet`` / ``read_excel``, ids stripped, first row
of each cell, first-appearance order, metadata sorted with ``groupby(...).nunique``): the same scores,
order, categories, metadata and notes on seeded random long tables with unicode and blank-padded ids,
missing scores, identical duplicates, empty conditions and categories, several files, CSV, TSV, parquet
(integer, float, categorical ids; bool and nullable scores) and Excel; and by hand: the messages that name a
bad cell, metadata rules, answers."""

from __future__ import annotations

import csv
import json
from datetime import date
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchsift.errors import FormatError, InputError
from benchsift.io import read_long
from benchsift.io._long_sources import read_long_file
from benchsift.panel import Panel

MODELS = ["m1", " m1", "m2 ", "模型-α", "llava 1.5", "NA-model"]
BENCHES = ["A", "B", "Ü bench"]
ITEMS = ["1", "007", "7", "q é", " 8", "x\ny"]
SCORES = ["0", "1", "0.5", "0.25", "", "NA", "nan", "1.0", "true", "FALSE"]
CONDITIONS = ["image", "text-only", "", " image"]
CATEGORIES = ["x", "", "y, z", "ü"]
MODEL_META = ("family", "release_date", "params")
ITEM_META = ("category", "question", "answer", "answers", "image")


def _rows(rng: np.random.Generator, n: int, with_cond: bool, with_cat: bool) -> list[dict[str, str]]:
    rows = []
    for _ in range(n):
        row = {
            "model": str(rng.choice(MODELS)),
            "benchmark": str(rng.choice(BENCHES)),
            "item": str(rng.choice(ITEMS)),
            "score": str(rng.choice(SCORES)),
        }
        if with_cond:
            row["condition"] = str(rng.choice(CONDITIONS))
        if with_cat:
            row["category"] = str(rng.choice(CATEGORIES))
        rows.append(row)
    return rows


def _key(row: dict[str, str]) -> tuple[str, ...]:
    cond = row.get("condition", "").strip() or "image"
    return (row["model"].strip(), cond, row["benchmark"].strip(), row["item"].strip())


def _unique_cells(rows: list[dict[str, str]], rng: np.random.Generator, n_dup: int) -> list[dict[str, str]]:
    """Keep the first row of each cell, then repeat ``n_dup`` of them identically (same score text or an
    equivalent one) at random places: a table without conflicts."""
    seen: dict[tuple[str, ...], dict[str, str]] = {}
    for r in rows:
        seen.setdefault(_key(r), r)
    out = list(seen.values())
    for _ in range(n_dup):
        r = dict(out[int(rng.integers(len(out)))])
        r["score"] = {"": "NA", "NA": "", "nan": "", "1": "1.0", "1.0": "1"}.get(r["score"], r["score"])
        out.insert(int(rng.integers(len(out) + 1)), r)
    return out


def _write(path: Path, rows: list[dict[str, str]], columns: list[str]) -> None:
    if path.suffix in (".parquet", ".xlsx"):
        frame = pd.DataFrame([[r[c] for c in columns] for r in rows], columns=columns, dtype=object)
        missing = {"", "NA", "nan"}
        for c in columns:
            frame[c] = frame[c].map(lambda v: None if v in missing else v)
        frame["score"] = pd.to_numeric(frame["score"].map(lambda v: {"true": 1, "FALSE": 0}.get(v, v)))
        if path.suffix == ".parquet":
            frame.to_parquet(path)
        else:
            frame.to_excel(path, index=False)
        return
    sep = "\t" if path.suffix == ".tsv" else ","
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, delimiter=sep)
        w.writerow(columns)
        w.writerows([[r[c] for c in columns] for r in rows])


def _id(v: object) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v).strip()


def _none(v: object) -> object:
    return None if pd.api.types.is_scalar(v) and pd.isna(v) else v


def _score(v: object) -> float:
    if isinstance(v, str):
        t = v.strip().lower()
        v = {"true": 1.0, "false": 0.0}.get(t, np.nan if t in ("", "nan", "na", "n/a", "none", "null") else t)
    return float(pd.to_numeric(v))


def _read_by_pandas(p: Path) -> pd.DataFrame:
    if p.suffix == ".parquet":
        return pd.read_parquet(p)
    if p.suffix == ".xlsx":
        return pd.read_excel(p)
    return pd.read_csv(p, sep="\t" if p.suffix == ".tsv" else ",", dtype=str)


def _reference(paths: list[Path], fill: str = "image") -> dict[str, object]:
    """The panel by hand: each file read by pandas, ids stripped, the first row of each cell, runs and
    items in order of first appearance; metadata columns: ``family``/``release_date``/``params`` constant
    per run, or any column constant per run but not per item, to the models (each model's first row);
    constant per item: item metadata (each item's first row); else dropped."""
    df = pd.concat([_read_by_pandas(p) for p in paths], ignore_index=True)
    df.columns = [str(c).strip() for c in df.columns]
    if "condition" not in df.columns:
        df["condition"] = None
    if "category" not in df.columns:
        df["category"] = None
    for c in ("model", "benchmark", "item"):
        df[c] = df[c].map(_id)
    df["condition"] = [fill if _none(v) is None else str(v).strip() for v in df["condition"]]
    df["score"] = [_score(v) for v in df["score"]]
    extras = [
        c for c in df.columns if c not in ("model", "benchmark", "item", "score", "condition", "category")
    ]
    extras = [c for c in extras if c != "prediction"]
    items_of = df.groupby(["benchmark", "item"], sort=False)
    runs_of = df.groupby(["model", "condition"], sort=False)
    item_cols, run_cols, model_cols, dropped = [], [], [], []
    for c in extras:
        per_item = bool((items_of[c].nunique(dropna=False) <= 1).all())
        per_run = bool((runs_of[c].nunique(dropna=False) <= 1).all())
        if c in MODEL_META and per_run:
            model_cols.append(c)
        elif per_item:
            (run_cols if c in MODEL_META else item_cols).append(c)
        elif per_run:
            model_cols.append(c)
        else:
            dropped.append(c)
    first = df.drop_duplicates(["model", "condition", "benchmark", "item"])
    runs = list(dict.fromkeys(zip(first["model"], first["condition"], strict=True)))
    items = list(dict.fromkeys(zip(first["benchmark"], first["item"], strict=True)))
    r_at = {k: i for i, k in enumerate(runs)}
    i_at = {k: i for i, k in enumerate(items)}
    matrix = np.full((len(runs), len(items)), np.nan)
    for m, cond, b, i, s in zip(
        first["model"], first["condition"], first["benchmark"], first["item"], first["score"], strict=True
    ):
        matrix[r_at[(m, cond)], i_at[(b, i)]] = s
    by_item = first.drop_duplicates(["benchmark", "item"])
    by_run = first.drop_duplicates(["model", "condition"])
    by_model = df.drop_duplicates("model").set_index("model")
    return {
        "scores": matrix,
        "runs": runs,
        "items": items,
        "category": [_none(v) for v in by_item["category"]],
        "item_meta": {c: [_none(v) for v in by_item[c]] for c in item_cols},
        "run_meta": {c: [_none(v) for v in by_run[c]] for c in run_cols},
        "model_meta": {c: [_none(by_model.loc[m, c]) for m, _ in runs] for c in model_cols},
        "dropped": dropped,
    }


def _same_as_reference(paths: list[Path], panel: Panel, notes: list[str]) -> None:
    ref = _reference(paths)
    np.testing.assert_array_equal(panel.scores, ref["scores"])
    assert list(zip(panel.models["model"], panel.models["condition"], strict=True)) == ref["runs"]
    assert panel.item_keys == ref["items"]
    assert [_none(v) for v in panel.items["category"]] == ref["category"]
    for key, table in (("item_meta", panel.items), ("run_meta", panel.models), ("model_meta", panel.models)):
        for c, values in ref[key].items():  # type: ignore[attr-defined]
            got = [_none(v) for v in table[c]]
            if c == "release_date":  # parsed into dates by the reader
                got = [None if v is None else str(v)[:10] for v in got]
                values = [None if v is None else str(v)[:10] for v in values]
            if c == "params":  # numbers, in billions
                got = [None if v is None else float(v) for v in got]
                values = [None if v is None else float(v) for v in values]
            assert got == values, c
    dropped = ref["dropped"]
    assert any(str(dropped) in n for n in notes) == bool(dropped)


CASES = [(seed, suffix) for seed in range(12) for suffix in (".csv", ".tsv", ".parquet", ".xlsx")]


@pytest.mark.parametrize(("seed", "suffix"), CASES)
def test_random_tables_equal_a_pandas_reading(tmp_path: Path, seed: int, suffix: str) -> None:
    """Seeded random long tables (unicode and blank-padded ids, NaN and NA-text scores, ``true``/``FALSE``,
    identical duplicates with an equivalent score text, empty conditions and categories), in one to three
    files: the reader's panel equals the pandas reading's."""
    rng = np.random.default_rng(seed)
    with_cond, with_cat = bool(seed % 2), bool(seed % 3)
    columns = ["model", "benchmark", "item", "score"] + ["condition"] * with_cond + ["category"] * with_cat
    rng.shuffle(columns)
    rows = _unique_cells(_rows(rng, 60, with_cond, with_cat), rng, n_dup=int(rng.integers(0, 6)))
    if suffix == ".xlsx":  # openpyxl writes no line break nor padding pandas reads back alike
        rows = [{k: v.replace("\n", " ").strip() for k, v in r.items()} for r in rows]
    n_files = 1 + seed % 3
    cut = np.sort(rng.integers(0, len(rows), n_files - 1))
    paths = []
    for k, part in enumerate(np.split(np.arange(len(rows)), cut)):
        if len(part) == 0:
            continue
        p = tmp_path / f"part{k}{suffix}"
        _write(p, [rows[i] for i in part], columns)
        paths.append(p)
    notes: list[str] = []
    panel = read_long(paths, notes=notes)
    _same_as_reference(paths, panel, notes)
    n_dup = len(rows) - len({_key(r) for r in rows})
    assert any(f"collapsed {n_dup} identical" in n for n in notes) == (n_dup > 0)


# ---------------------------------------------------------------- metadata columns

QUESTIONS = ["what?", "wie viel?", " padded ", "NA", "", "a, b", "x\ny"]
FAMILIES = ["llava", "qwen", "", "NaN", "intern vl"]
DATES = ["2024-01-01", "2023-06-30", ""]
PREDICTIONS = ["A", " B", "", "C ", "NA", "long answer, with comma", "  "]


def _meta_rows(rng: np.random.Generator, n: int, conflict: bool) -> list[dict[str, str]]:
    """Long rows with per-item ``question``/``answer``/``level``, per-model ``family``/``release_date``/
    ``params``/``org``, per-row ``prediction``/``note``, a ``family2`` that is per item (not per model) and,
    with ``conflict``, one item whose question differs between two rows."""
    rows = _unique_cells(_rows(rng, n, with_cond=bool(rng.integers(2)), with_cat=True), rng, n_dup=3)
    q_of: dict[str, str] = {}
    fam_of: dict[str, tuple[str, str, str]] = {}
    for r in rows:
        key = r["benchmark"].strip() + "|" + r["item"].strip()
        q_of.setdefault(key, str(rng.choice(QUESTIONS)))
        m = r["model"].strip()
        fam_of.setdefault(
            m, (str(rng.choice(FAMILIES)), str(rng.choice(DATES)), str(rng.choice(["7", "", "13.5"])))
        )
        r["question"] = q_of[key]
        r["answer"] = q_of[key].upper()
        r["level"] = str(len(q_of[key]) % 3)
        r["family"], r["release_date"], r["params"] = fam_of[m]
        r["org"] = fam_of[m][0] + "-org"
        r["family2"] = q_of[key][:2]
        r["prediction"] = str(rng.choice(PREDICTIONS))
        r["note"] = str(rng.integers(100))
    if conflict:
        rows[1] = dict(rows[1], question=rows[1]["question"] + "!")
        rows.insert(5, dict(rows[0], model=rows[0]["model"] + "-x", question="other"))
    return rows


META_COLUMNS = ["question", "answer", "level", "family", "release_date", "params", "org", "family2"]


def _write_meta(path: Path, rows: list[dict[str, str]], columns: list[str]) -> None:
    _write(path, rows, columns)
    if path.suffix == ".parquet":  # numbers as numbers: params float (with NaN), level int64
        frame = pd.read_parquet(path)
        if "params" in frame:
            frame["params"] = pd.to_numeric(frame["params"])
        if "level" in frame:
            frame["level"] = frame["level"].astype(np.int64)
        frame.to_parquet(path)


META_CASES = [(seed, suffix) for seed in range(10) for suffix in (".csv", ".tsv", ".parquet")]


@pytest.mark.parametrize(("seed", "suffix"), META_CASES)
def test_metadata_columns_equal_a_pandas_reading(tmp_path: Path, seed: int, suffix: str) -> None:
    """Seeded long tables with a random subset of metadata columns (missing cells, an item whose question
    conflicts, per-row columns), one to three files whose columns may differ: the reader sorts them into
    item and model metadata (or drops them, with the note) as the pandas reading does, with its values."""
    rng = np.random.default_rng(100 + seed)
    rows = _meta_rows(rng, 50, conflict=seed % 3 == 0)
    base = ["model", "benchmark", "item", "score", "category"] + ["condition"] * ("condition" in rows[0])
    chosen = [c for c in META_COLUMNS if rng.random() < 0.6] + ["note"] * (seed % 4 == 1)
    n_files = 1 + seed % 3
    cut = np.sort(rng.integers(1, len(rows), n_files - 1))
    paths = []
    for k, part in enumerate(np.split(np.arange(len(rows)), cut)):
        columns = base + chosen + ["prediction"] * (seed % 2)
        rng.shuffle(columns)
        p = tmp_path / f"part{k}{suffix}"
        _write_meta(p, [rows[i] for i in part], columns)
        paths.append(p)
    notes: list[str] = []
    panel = read_long(paths, notes=notes)
    _same_as_reference(paths, panel, notes)
    if seed % 2:
        n_answers = sum(1 for r in _unique_cells(rows, rng, 0) if r["prediction"].strip() not in ("", "NA"))
        assert any("logged model answers not kept" in n for n in notes)
        assert n_answers > 0


def _full(paths: list[Path], keep: bool = True, **kw: object) -> tuple[object, ...]:
    """Outcome (status, notes, message), the panel's tables and the answers tables (``keep``: asked for)."""
    notes: list[str] = []
    answers: list[pd.DataFrame] = []
    try:
        panel = read_long(paths, notes=notes, answers=answers if keep else None, **kw)  # type: ignore[arg-type]
    except (InputError, FormatError) as exc:
        return type(exc).__name__, notes, str(exc), None, None, answers
    return "ok", notes, None, panel.models, panel.items, answers


def test_metadata_by_hand(tmp_path: Path) -> None:
    """A small file checked by hand: question per item, family / release_date per model, a per-row column
    dropped with the note, prediction handed out as answers (stripped, empty -> None), a duplicate row."""
    p = tmp_path / "h.csv"
    p.write_text(
        "model,benchmark,item,score,question,family,release_date,prediction,seed\n"
        "m1,A,1,1,what?,llava,2024-01-01, B ,1\n"
        "m1,A,2,0,why?,llava,2024-01-01,,2\n"
        "m2,A,1,0,what?,,2023-05-02,C,3\n"
        "m2,A,2,1,why?,,2023-05-02,A,4\n"
        "m1,A,1,1,what?,llava,2024-01-01, B ,1\n"
    )
    status, notes, _, models, items, answers = _full([p])
    assert status == "ok"
    assert notes == [
        "dropped per-score column(s) ['seed'] (a panel keeps item and model metadata only)",
        "collapsed 1 identical duplicate row(s)",
    ]
    assert isinstance(items, pd.DataFrame) and isinstance(models, pd.DataFrame)
    assert items["question"].tolist() == ["what?", "why?"]
    assert models["family"].tolist() == ["llava", None]
    assert models["release_date"].dt.strftime("%Y-%m-%d").tolist() == ["2024-01-01", "2023-05-02"]
    (table,) = answers
    assert table.columns.tolist() == ["model", "condition", "benchmark", "item", "answer"]
    assert table["model"].tolist() == ["m1", "m1", "m2", "m2"]
    assert [None if pd.isna(a) else a for a in table["answer"]] == ["B", None, "C", "A"]
    lean_notes = _full([p], keep=False)[1]
    assert "3 logged model answers not kept" in lean_notes[-1]


def test_metadata_conflicts_and_rules(tmp_path: Path) -> None:
    """By hand: a question that differs within an item but is constant per model run goes to the models
    table; one that varies both ways is dropped with the note; ``family`` constant per item but not per
    model stays a model column (each run's first row); a models side file outer-joins the file's
    metadata."""
    p = tmp_path / "c.csv"
    p.write_text(
        "model,benchmark,item,score,q_run,q_row,family\n"
        "m1,A,1,1,x,a,f1\nm1,A,2,0,x,b,f2\nm2,A,1,0,y,b,f1\nm2,A,2,1,y,a,f2\n"
    )
    side = tmp_path / "models.csv"
    side.write_text("model,family,params\nm1,fam,7\nm3,other,1\n")
    status, notes, _, models, items, _ = _full([p])
    assert status == "ok"
    assert notes == ["dropped per-score column(s) ['q_row'] (a panel keeps item and model metadata only)"]
    assert isinstance(models, pd.DataFrame) and isinstance(items, pd.DataFrame)
    assert models["q_run"].tolist() == ["x", "y"] and "q_row" not in items and "q_row" not in models
    assert models["family"].tolist() == ["f1", "f1"]
    assert _full([p], models=side)[0] == "ok"
    # a bad condition is refused after the note
    p.write_text(
        "model,benchmark,item,score,condition,q_row\n"
        "m1,A,1,1,image,a\nm1,A,2,0,blind,b\nm2,A,1,0,,b\nm1,A,3,1,image,c\n"
    )
    status, notes, message, *_ = _full([p])
    assert status == "InputError" and "condition 'blind'" in str(message) and f"{p}, line 3" in str(message)
    assert notes == ["dropped per-score column(s) ['q_row'] (a panel keeps item and model metadata only)"]


def test_metadata_text_cells(tmp_path: Path) -> None:
    """Text cells as pandas reads them: CRLF line ends (a quoted CRLF kept), quoted and bare NA texts
    missing, blanks kept, an all-empty column, a byte-order mark; a ``prediction`` in one of two files (the
    frames are concatenated, the missing answers of the other file NaN)."""
    p = tmp_path / "crlf.csv"
    p.write_bytes(
        b"model,benchmark,item,score,question,empty,family\r\n"
        b'm1,A,1,1,"q\r\n1",,"NA"\r\nm1,A,2,0,q2 ,,n/a\r\nm2,A,1,1,"q\r\n1",, x\r\n'
    )
    status, _, _, models, items, _ = _full([p])
    assert status == "ok" and isinstance(items, pd.DataFrame) and isinstance(models, pd.DataFrame)
    assert items["question"].tolist() == ["q\r\n1", "q2 "]
    assert items["empty"].isna().all()
    assert models["family"].tolist() == [None, " x"]
    b = tmp_path / "bom.csv"
    b.write_bytes("\ufeffmodel,benchmark,item,score,prediction\nm1,A,1,1, x\n".encode())
    c = tmp_path / "c.csv"
    c.write_text("model,benchmark,item,score\nm2,A,1,1\n")
    status, notes, _, _, _, answers = _full([b, c])
    assert status == "ok" and notes == []
    assert answers[0]["answer"].tolist()[0] == "x" and pd.isna(answers[0]["answer"].tolist()[1])


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_answers_counted_not_kept_hold_no_text(tmp_path: Path, suffix: str) -> None:
    """Without an answers list the ``prediction`` column is only counted: the reader keeps one placeholder
    value, not each row's text, and the note counts the rows with an answer (blanks, NA texts and
    whitespace that ``str.strip`` removes, ``\\x1c`` and an ideographic space included, count as no
    answer); with an answers list the texts are kept, stripped."""
    texts = ["the answer is 1", " B ", "", "NA", "   ", "\x1c", "\u3000", "free text, with a comma", "x"]

    def text(m: int, i: int) -> str:  # a few rows get a text of their own
        return texts[(m * 3 + i) % 9] + (f" #{m}.{i}" if (m + i) % 4 == 0 else "")

    rows = [
        {
            "model": f"m{m}",
            "benchmark": "A",
            "item": str(i),
            "score": str((m + i) % 2),
            "prediction": text(m, i),
        }
        for m in range(6)
        for i in range(30)
    ]
    path = tmp_path / f"pred{suffix}"
    _write(path, rows, ["model", "benchmark", "item", "score", "prediction"])
    counted = read_long_file(path, None, keep_answers=False).prediction
    kept = read_long_file(path, None).prediction
    assert counted is not None and counted.values == ["<answer>"]
    assert kept is not None and len(kept.values) > 30
    lean = _full([path], keep=False)
    n_answers = sum(1 for r in rows if r["prediction"].strip() not in ("", "NA"))
    assert any(f"{n_answers} logged model answers not kept" in n for n in lean[1])
    (table,) = _full([path])[5]  # type: ignore[misc]
    labels = [None if (a := r["prediction"].strip()) in ("", "NA") else a for r in rows]
    assert [None if pd.isna(a) else a for a in table["answer"]] == labels


# ---------------------------------------------------------------- cells the reader refuses, by hand

BAD = [
    ("model,benchmark,item,score\nm1,A,1,1\n , A,2,0\n", InputError, r"b.csv, line 3: empty model$"),
    ("model,benchmark,item,score\nm1,A,1,1\nm1,,2,0\n", InputError, r"b.csv, line 3: empty benchmark$"),
    (
        "model,benchmark,item,score\nm1,A,1,abc\nm1,A,2,xyz\n",
        InputError,
        r"line 2: score 'abc' is not a number",
    ),
    ("model,benchmark,item,score\nm1,A,1,abc\n,A,2,0\n", InputError, r"line 3: empty model"),  # ids first
    ("model,benchmark,item,score\nm1,A,1,1\nm1,A,2,inf\n", InputError, r"line 3: score is infinite"),
    ("model,benchmark,item,score\nm1,A,1,1\nm1,A,2,-0.5\n", InputError, r"line 3: .*score -0.5"),
    ("model,benchmark,item,score\nm1,A,1,1\nm1,A,1,0\n", InputError, r"line 3: conflicting duplicate scores"),
    (
        "model,benchmark,item,score,condition\nm1,A,1,1,\nm1,A,2,0,blind\n",
        InputError,
        r"line 3: condition 'blind'",
    ),
    ("model,benchmark,item,score\nm1,A,1,1\nm1,A,2\n", FormatError, r"line 3: 3 fields, the header has 4"),
    ("model;benchmark;item;score\nm1;A;1;1\n", FormatError, r"split by semicolons"),
    ("model,benchmark,item,score\n", FormatError, r"no data rows \(only a header\)"),
    ("model,benchmark,item\nm1,A,1\n", FormatError, r"missing column 'score' for the long format"),
    ("model,benchmark,item,score,x, x\nm1,A,1,1,a,b\n", FormatError, r"\['x'\] appear more than once"),
]


@pytest.mark.parametrize(("text", "error", "match"), BAD)
def test_bad_cells_are_named(tmp_path: Path, text: str, error: type[Exception], match: str) -> None:
    p = tmp_path / "b.csv"
    p.write_text(text)
    with pytest.raises(error, match=match):
        read_long(p)


def test_score_texts_and_float_ids(tmp_path: Path) -> None:
    """Score texts pandas' reading would take (padded, ``FALSE``, ``n/a``) and float ids in parquet
    (``1.0`` is item ``1``), by hand."""
    p = tmp_path / "s.csv"
    p.write_text("model,benchmark,item,score\nm1,A,1, 1 \nm1,A,2,FALSE\nm1,A,3,n/a\nm1,A,4,1e-1\n")
    np.testing.assert_array_equal(read_long(p).scores, [[1.0, 0.0, np.nan, 0.1]])
    q = tmp_path / "f.parquet"
    pd.DataFrame({"model": "m", "benchmark": "A", "item": [1.0, 2.5], "score": [True, False]}).to_parquet(q)
    panel = read_long(q)
    assert panel.item_keys == [("A", "1"), ("A", "2.5")]
    np.testing.assert_array_equal(panel.scores, [[1.0, 0.0]])


def test_parquet_column_types(tmp_path: Path) -> None:
    """Categorical and integer ids, int64 / bool / nullable scores, a stored index (left out), metadata of
    int64, float64 with NaN, timestamps with a time zone, dates, categoricals, booleans and nullable ints:
    the values and dtypes ``pandas.read_parquet`` gives them, by hand."""
    base = pd.DataFrame(
        {
            "model": pd.Categorical(["m1", "m1", " m2", "m2"]),
            "benchmark": ["A", "A", "A", "B"],
            "item": np.array([7, 8, 7, 7], dtype=np.int64),
            "score": pd.array([1, None, 1, 0], dtype="Int64"),
            "category": pd.Categorical(["x", None, "x", "ü"]),
            "year": np.array([2024, 2024, 2023, 2023], dtype=np.int64),
            "params": [7.0, 7.0, np.nan, np.nan],
            "seen": pd.to_datetime(["2024-01-01 10:00"] * 2 + ["2024-01-02 00:00"] * 2).tz_localize(
                "Europe/Paris"
            ),
            "day": [date(2024, 1, 1)] * 2 + [None, None],
            "level": pd.Categorical(["a", "b", "a", "b"], categories=["z", "b", "a"]),
            "flag": [True, True, False, False],
            "n": pd.array([1, 1, None, None], dtype="Int64"),
        },
        index=pd.Index([10, 11, 12, 13], name="row_id"),
    )
    p = tmp_path / "t.parquet"
    for groups in (None, 2):  # one row group, or two (a dictionary per row group)
        base.to_parquet(p, row_group_size=groups)
        panel = read_long(p)
        assert panel.item_keys == [("A", "7"), ("A", "8"), ("B", "7")]
        assert panel.models["model"].tolist() == ["m1", "m2"]
        np.testing.assert_array_equal(panel.scores, [[1.0, np.nan, np.nan], [1.0, np.nan, 0.0]])
        assert [_none(v) for v in panel.items["category"]] == ["x", None, "ü"]
        models, items = panel.models, panel.items
        assert models["year"].tolist() == [2024, 2023] and models["year"].dtype == np.int64
        assert models["params"].tolist()[0] == 7.0 and np.isnan(models["params"].tolist()[1])
        assert models["seen"].tolist() == list(base["seen"].iloc[[0, 2]])
        assert models["flag"].tolist() == [True, False]
        assert [_none(v) for v in models["n"]] == [1, None]
        assert [_none(v) for v in models["day"]] == [date(2024, 1, 1), None]
        assert items["level"].tolist() == ["a", "b", "b"]
        assert list(items["level"].cat.categories) == ["z", "b", "a"]


def test_excel_mixed_ids_and_errors(tmp_path: Path) -> None:
    """An Excel sheet (read by pandas, then coded like the others): a column of numbers and texts is
    text, ``1`` as ``"1"``; an empty id and a text score are named by their sheet row."""
    x = tmp_path / "x.xlsx"
    frame = pd.DataFrame(
        {"model": ["m1", "m1", "m2"], "benchmark": "A", "item": [1, "b", 1], "score": [1, 0, 1]}
    )
    frame.to_excel(x, index=False)
    panel = read_long(x)
    assert panel.item_keys == [("A", "1"), ("A", "b")]
    np.testing.assert_array_equal(panel.scores, [[1.0, 0.0], [1.0, np.nan]])
    frame.assign(model=["m1", None, "m2"]).to_excel(x, index=False)
    with pytest.raises(InputError, match=r"x.xlsx, row 3: empty model$"):
        read_long(x)
    frame.assign(score=[1, "x", 1]).to_excel(x, index=False)
    with pytest.raises(InputError, match=r"x.xlsx, row 3: score 'x' is not a number$"):
        read_long(x)


def test_files_with_different_columns_and_a_bad_file(tmp_path: Path) -> None:
    """Files whose metadata columns differ are concatenated (a column a file lacks is missing in its rows);
    an empty model id in a later file is named by its file and line."""
    a, b, c = tmp_path / "a.csv", tmp_path / "b.csv", tmp_path / "c.csv"
    a.write_text("model,benchmark,item,score,category\nm1,A,1,1,x\nm1,A,2,0,\n")
    b.write_text("model,benchmark,item,score,question\nm2,A,1,0,what\nm2,A,3,1,why\n")
    c.write_text("model,benchmark,item,score,question\nm3,A,1,0,what\n  ,A,3,1,why\n")
    notes: list[str] = []
    panel = read_long([a, b], notes=notes)
    _same_as_reference([a, b], panel, notes)
    # item A/1's question is missing in a.csv and "what" in b.csv: not constant per item nor per run
    assert notes == ["dropped per-score column(s) ['question'] (a panel keeps item and model metadata only)"]
    assert [_none(v) for v in panel.items["category"]] == ["x", None, None]
    with pytest.raises(InputError, match=r"c.csv, line 3: empty model$"):
        read_long([a, c])


def test_inputs_the_pandas_path_did_not_take(tmp_path: Path) -> None:
    """A file that is not UTF-8 is refused in one line (was a UnicodeDecodeError traceback); a parquet
    column of lists is kept as its JSON text (was a TypeError); a column named ``_file`` is metadata like
    any other (was taken for the reader's own bookkeeping and lost)."""
    p = tmp_path / "latin.csv"
    p.write_bytes("model,benchmark,item,score\nm\xe9,A,1,1\n".encode("latin-1"))
    with pytest.raises(FormatError, match=r"latin.csv: cannot be read as a csv table \('utf-8' codec"):
        read_long(p)
    q = tmp_path / "tags.parquet"
    tags = [["a", "b"], ["a", "b"], ["c"], ["c"]]
    pd.DataFrame(
        {"model": "m", "benchmark": "A", "item": ["1", "1", "2", "2"], "score": 1.0, "tags": tags}
    ).assign(model=["m1", "m2", "m1", "m2"]).to_parquet(q)
    panel = read_long(q)
    assert [json.loads(t) for t in panel.items["tags"]] == [["a", "b"], ["c"]]
    r = tmp_path / "f.csv"
    r.write_text("model,benchmark,item,score,_file\nm1,A,1,1,a.png\nm2,A,1,0,a.png\nm1,A,2,1,b.png\n")
    assert read_long(r).items["_file"].tolist() == ["a.png", "b.png"]


def test_many_blocks_and_a_short_row_guess(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Small reader blocks (many batches, each with its own dictionary) and a first block of long rows,
    so the row-count guess is short and the buffers grow: the pandas reading's panel; a score that is not a
    number in a late block is named by its line."""
    from benchsift.io import _long_sources

    monkeypatch.setattr(_long_sources, "BLOCK", 1 << 12)
    rng = np.random.default_rng(3)
    lines = ["model,benchmark,item,score,category"]
    lines += [f"{'long-model-name-' * 4}{i % 7},A,{i},{i % 2},c{i % 3}" for i in range(300)]
    lines += [
        f"m{i % 11},{'AB'[i % 2]},{i},{rng.choice(['0', '1', ''])},{'' if i % 5 else 'z'}"
        for i in range(6000)
    ]
    p = tmp_path / "blocks.csv"
    p.write_text("\n".join(lines) + "\n")
    assert len(read_long_file(p, None)) == 6300
    notes: list[str] = []
    _same_as_reference([p], read_long(p, notes=notes), notes)
    lines[301 + 5000] = "m1,A,5000,x,z"
    p.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=r"blocks.csv, line 5302: score 'x' is not a number$"):
        read_long(p)
