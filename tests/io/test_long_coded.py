"""The long importer's lean path (integer codes, :mod:`benchsift.io._coded`) against the general path
(pandas long DataFrame, ``assemble_panel`` + ``Panel.from_long``) and against a plain pandas reference
written here: the same panel file bytes, notes and error messages, on seeded random inputs with unicode and
blank-padded ids, missing scores, identical and conflicting duplicates, empty conditions and categories,
several files, TSV and parquet."""

from __future__ import annotations

import csv
from datetime import date
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchsift.errors import BenchsiftError
from benchsift.io import long as long_mod
from benchsift.io._coded import ANSWER_PRESENT, CodedLong, read_coded

MODELS = ["m1", " m1", "m2 ", "模型-α", "llava 1.5", "NA-model"]
BENCHES = ["A", "B", "Ü bench"]
ITEMS = ["1", "007", "7", "q é", " 8", "x\ny"]
SCORES = ["0", "1", "0.5", "0.25", "", "NA", "nan", "1.0"]
CONDITIONS = ["image", "text-only", "", " image"]
CATEGORIES = ["x", "", "y, z", "ü"]


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
    if path.suffix == ".parquet":
        frame = pd.DataFrame([[r[c] for c in columns] for r in rows], columns=columns, dtype=object)
        missing = {"", "NA", "nan"}
        for c in columns:
            frame[c] = frame[c].map(lambda v: None if v in missing else v)
        frame["score"] = pd.to_numeric(frame["score"])
        frame.to_parquet(path)
        return
    sep = "\t" if path.suffix == ".tsv" else ","
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, delimiter=sep)
        w.writerow(columns)
        w.writerows([[r[c] for c in columns] for r in rows])


def _outcome(paths: list[Path], lean: bool, tmp: Path, **kw: object) -> tuple[str, list[str], bytes | str]:
    notes: list[str] = []
    args = {"models": None, "items": None, "condition": None, "rescale": "auto", "scales": None} | kw
    try:
        panel = long_mod._read_long(paths, notes=notes, answers=None, lean=lean, **args)  # type: ignore[arg-type]
    except BenchsiftError as exc:
        return type(exc).__name__, notes, str(exc)
    out = tmp / f"panel-{lean}.parquet"
    panel.save(out)
    return "ok", notes, out.read_bytes()


def _reference(paths: list[Path]) -> tuple[np.ndarray, list[tuple[str, str]], list[tuple[str, str]], list]:
    """The panel by hand: read as text with pandas, strip, first row of each cell, first appearance order."""
    frames = []
    for p in paths:
        if p.suffix == ".parquet":
            frames.append(pd.read_parquet(p))
        else:
            frames.append(pd.read_csv(p, sep="\t" if p.suffix == ".tsv" else ",", dtype=str))
    df = pd.concat(frames, ignore_index=True)
    if "condition" not in df.columns:
        df["condition"] = "image"
    if "category" not in df.columns:
        df["category"] = None
    for c in ("model", "benchmark", "item"):
        df[c] = df[c].astype(str).str.strip()
    df["condition"] = df["condition"].fillna("image").astype(str).str.strip()
    df["score"] = pd.to_numeric(df["score"])
    df = df.drop_duplicates(["model", "condition", "benchmark", "item"])
    runs = list(dict.fromkeys(zip(df["model"], df["condition"], strict=True)))
    items = list(dict.fromkeys(zip(df["benchmark"], df["item"], strict=True)))
    r_at = {k: i for i, k in enumerate(runs)}
    i_at = {k: i for i, k in enumerate(items)}
    matrix = np.full((len(runs), len(items)), np.nan)
    category: dict[tuple[str, str], object] = {}
    for row in df.itertuples(index=False):
        matrix[r_at[(row.model, row.condition)], i_at[(row.benchmark, row.item)]] = row.score
        category.setdefault((row.benchmark, row.item), None if pd.isna(row.category) else row.category)
    return matrix, runs, items, [category[k] for k in items]


CASES = [(seed, suffix) for seed in range(12) for suffix in (".csv", ".tsv", ".parquet")]


@pytest.mark.parametrize(("seed", "suffix"), CASES)
def test_lean_equals_general_and_reference(tmp_path: Path, seed: int, suffix: str) -> None:
    rng = np.random.default_rng(seed)
    with_cond, with_cat = bool(seed % 2), bool(seed % 3)
    columns = ["model", "benchmark", "item", "score"] + ["condition"] * with_cond + ["category"] * with_cat
    rng.shuffle(columns)
    rows = _unique_cells(_rows(rng, 60, with_cond, with_cat), rng, n_dup=int(rng.integers(0, 6)))
    n_files = 1 + seed % 3
    cut = np.sort(rng.integers(0, len(rows), n_files - 1))
    paths = []
    for k, part in enumerate(np.split(np.arange(len(rows)), cut)):
        if len(part) == 0:
            continue
        p = tmp_path / f"part{k}{suffix}"
        _write(p, [rows[i] for i in part], columns)
        assert read_coded(p, None) is not None  # plain files: the lean path reads them
        paths.append(p)
    lean = _outcome(paths, True, tmp_path)
    general = _outcome(paths, False, tmp_path)
    assert lean == general
    assert lean[0] == "ok", lean
    panel = long_mod.read_long(paths)
    matrix, runs, items, category = _reference(paths)
    np.testing.assert_array_equal(panel.scores, matrix)
    assert list(zip(panel.models["model"], panel.models["condition"], strict=True)) == runs
    assert panel.item_keys == items
    assert panel.items["category"].tolist() == category


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_conflicting_duplicate_same_message(tmp_path: Path, suffix: str) -> None:
    rng = np.random.default_rng(5)
    rows = _unique_cells(_rows(rng, 40, True, True), rng, n_dup=0)
    rows = [r for r in rows if r["score"] in ("0", "1")]
    bad = dict(rows[3])
    bad["score"] = "1" if bad["score"] == "0" else "0"
    rows.insert(10, bad)
    rows.insert(12, dict(rows[3]))  # an identical repeat of the same cell too
    p = tmp_path / f"c{suffix}"
    _write(p, rows, ["model", "benchmark", "item", "score", "condition", "category"])
    lean, general = _outcome([p], True, tmp_path), _outcome([p], False, tmp_path)
    assert lean == general
    assert lean[0] == "InputError"
    assert f"{p}, " in str(lean[2]) and "conflicting duplicate scores" in str(lean[2])


def test_rescale_side_files_and_condition_fill(tmp_path: Path) -> None:
    p = tmp_path / "s.csv"
    p.write_text(
        "model,benchmark,item,score,condition\n"
        "m1,MMStar,1,50,\nm1,MMStar,2,100,text-only\nm2,MMStar,1,25,\nm1,OCRBench,1,800,\n"
        "m2,OCRBench,1,1000,\nm1,Z,1,1,\nm1,MMStar,1,50,\n"
    )
    models = tmp_path / "models.csv"
    models.write_text("model,family,params\nm1,fam,7\nm3,other,1\n")
    items = tmp_path / "items.csv"
    items.write_text("benchmark,item,category,question\nMMStar,1,perception,what?\nZ,1,,q\n")
    side = {"models": models, "items": items}
    for kw in ({}, side, {"condition": "text-only"}, {"rescale": "none"}, {"scales": {"Z": 2.0}}):
        lean, general = _outcome([p], True, tmp_path, **kw), _outcome([p], False, tmp_path, **kw)
        assert lean == general, kw
    assert any("rescaled 'MMStar'" in n for n in _outcome([p], True, tmp_path)[1])
    assert _outcome([p], True, tmp_path, rescale="none")[0] == "InputError"


def test_bad_condition_negative_score_and_fallbacks(tmp_path: Path) -> None:
    p = tmp_path / "b.csv"
    cases = [
        "model,benchmark,item,score,condition\nm1,A,1,1,image\nm1,A,2,0,blind\n",
        "model,benchmark,item,score\nm1,A,1,1\nm1,A,2,-0.5\n",
        "model,benchmark,item,score\nm1,A,1,1\nm1,A,2,inf\n",
        "model,benchmark,item,score\nm1,A,1,1\n , A,2,0\n",
        "model,benchmark,item,score\nm1,A,1,1\nm1,A,2\n",
        "model,benchmark,item,score,org\nm1,A,1,1,x\nm2,A,2,0,y\n",
        "model,benchmark,item,score\nm1,A,1,-0.0\nm1,A,1,0.0\nm2,A,1,0\n",
    ]
    for text in cases:
        p.write_text(text)
        assert _outcome([p], True, tmp_path) == _outcome([p], False, tmp_path), text
        assert _outcome([p], True, tmp_path, condition="blind") == _outcome(
            [p], False, tmp_path, condition="blind"
        )


def test_mixed_lean_and_general_files(tmp_path: Path) -> None:
    """Files whose metadata columns differ are concatenated as DataFrames (the codes of each file turned
    back into the general reader's frame); a file the lean reader refuses mixes in the same way."""
    a, b, c = tmp_path / "a.csv", tmp_path / "b.csv", tmp_path / "c.csv"
    a.write_text("model,benchmark,item,score,category\nm1,A,1,1,x\nm1,A,2,0,\n")
    b.write_text("model,benchmark,item,score,question\nm2,A,1,0,what\nm2,A,3,1,why\n")
    c.write_text("model,benchmark,item,score,question\nm3,A,1,0,what\n  ,A,3,1,why\n")
    assert read_coded(a, None) is not None and read_coded(b, None) is not None
    assert read_coded(c, None) is None  # an empty model id: the general reader names it
    assert _outcome([a, b], True, tmp_path) == _outcome([a, b], False, tmp_path)
    assert _outcome([a, b], True, tmp_path)[0] == "ok"
    assert _outcome([a, c], True, tmp_path) == _outcome([a, c], False, tmp_path)
    assert "empty model" in str(_outcome([a, c], True, tmp_path)[2])


def test_parquet_column_types(tmp_path: Path) -> None:
    """Integer item ids, int64 scores, pandas categoricals and a stored index: the lean reader gives what
    pandas.read_parquet + the general path give; a bool score or nullable ints take the general path."""
    base = pd.DataFrame(
        {
            "model": pd.Categorical(["m1", "m1", " m2", "m2", "m1"]),
            "benchmark": ["A", "A", "A", "B", "A"],
            "item": np.array([7, 8, 7, 7, 7], dtype=np.int64),
            "score": np.array([1, 0, 1, 0, 1], dtype=np.int64),
            "category": pd.Categorical(["x", None, "x", "ü", "x"]),
        },
        index=pd.Index([10, 11, 12, 13, 14], name="row_id"),
    )
    p = tmp_path / "t.parquet"
    base.to_parquet(p)
    assert read_coded(p, None) is not None
    assert _outcome([p], True, tmp_path) == _outcome([p], False, tmp_path)
    assert long_mod.read_long(p).item_keys == [("A", "7"), ("A", "8"), ("B", "7")]
    for score in (np.array([True, False, True, False, True]), pd.array([1, None, 1, 0, 1], dtype="Int64")):
        base.assign(score=score).to_parquet(p)
        assert read_coded(p, None) is None
        assert _outcome([p], True, tmp_path) == _outcome([p], False, tmp_path)


def test_many_blocks_and_a_short_row_guess(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Small reader blocks (many batches, each with its own dictionary) and a first block of long rows,
    so the row-count guess is short and the buffers grow: the same outcome as the general path."""
    from benchsift.io import _coded

    monkeypatch.setattr(_coded, "BLOCK", 1 << 12)
    rng = np.random.default_rng(3)
    lines = ["model,benchmark,item,score,category"]
    lines += [f"{'long-model-name-' * 4}{i % 7},A,{i},{i % 2},c{i % 3}" for i in range(300)]
    lines += [
        f"m{i % 11},{'AB'[i % 2]},{i},{rng.choice(['0', '1', ''])},{'' if i % 5 else 'z'}"
        for i in range(6000)
    ]
    p = tmp_path / "blocks.csv"
    p.write_text("\n".join(lines) + "\n")
    coded = read_coded(p, None)
    assert coded is not None and len(coded) == 6300
    lean = _outcome([p], True, tmp_path)
    assert lean[0] == "ok" and lean == _outcome([p], False, tmp_path)


# ---------------------------------------------------------------- metadata columns (lean path since issue 17)

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


def _full(paths: list[Path], lean: bool, tmp: Path, **kw: object) -> tuple[object, ...]:
    """Outcome (status, notes, panel bytes / message), the panel's tables and the answers tables."""
    notes: list[str] = []
    answers: list[pd.DataFrame] = []
    args = {"models": None, "items": None, "condition": None, "rescale": "auto", "scales": None} | kw
    try:
        panel = long_mod._read_long(paths, notes=notes, answers=answers, lean=lean, **args)  # type: ignore[arg-type]
    except BenchsiftError as exc:
        return type(exc).__name__, notes, str(exc), None, None, answers
    out = tmp / f"panel-{lean}.parquet"
    panel.save(out)
    return "ok", notes, out.read_bytes(), panel.models, panel.items, answers


def _assert_same(paths: list[Path], tmp: Path, **kw: object) -> tuple[object, ...]:
    lean, general = _full(paths, True, tmp, **kw), _full(paths, False, tmp, **kw)
    assert lean[:3] == general[:3]
    for a, b in zip(lean[3:5], general[3:5], strict=True):
        if a is None or b is None:
            assert a is b
        else:
            pd.testing.assert_frame_equal(a, b)
    assert len(lean[5]) == len(general[5])
    for a, b in zip(lean[5], general[5], strict=True):
        pd.testing.assert_frame_equal(a, b)
    # without an answers list: the same note of answers not kept
    assert _outcome(paths, True, tmp, **kw) == _outcome(paths, False, tmp, **kw)
    return lean


META_CASES = [(seed, suffix) for seed in range(10) for suffix in (".csv", ".tsv", ".parquet")]


@pytest.mark.parametrize(("seed", "suffix"), META_CASES)
def test_metadata_columns_lean_equals_general(tmp_path: Path, seed: int, suffix: str) -> None:
    """Seeded long tables with a random subset of metadata columns (missing cells, an item whose question
    conflicts, per-row columns), one to three files: the lean path reads them and gives the general path's
    panel bytes, models and items tables (dtypes included), notes and answers table."""
    rng = np.random.default_rng(100 + seed)
    rows = _meta_rows(rng, 50, conflict=seed % 3 == 0)
    base = ["model", "benchmark", "item", "score", "category"] + ["condition"] * ("condition" in rows[0])
    chosen = (
        [c for c in META_COLUMNS if rng.random() < 0.6]
        + ["prediction"] * (seed % 2)
        + ["note"] * (seed % 4 == 1)
    )
    columns = base + chosen
    rng.shuffle(columns)
    n_files = 1 + seed % 3
    cut = np.sort(rng.integers(1, len(rows), n_files - 1))
    paths = []
    for k, part in enumerate(np.split(np.arange(len(rows)), cut)):
        p = tmp_path / f"part{k}{suffix}"
        _write_meta(p, [rows[i] for i in part], columns)
        paths.append(p)
    parts = [read_coded(p, None) for p in paths]
    assert all(part is not None for part in parts)
    assert CodedLong.concat([part for part in parts if part is not None]) is not None  # all codes, no frame
    lean = _assert_same(paths, tmp_path)
    assert lean[0] == "ok", lean[2]


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
    assert read_coded(p, None) is not None
    status, notes, _, models, items, answers = _assert_same([p], tmp_path)
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
    lean_notes = _outcome([p], True, tmp_path)[1]
    assert "3 logged model answers not kept" in lean_notes[-1]


def test_metadata_conflicts_and_rules(tmp_path: Path) -> None:
    """By hand: a question that differs within an item but is constant per model run goes to the models
    table; one that varies both ways is dropped with the note; ``family`` constant per item but not per
    model stays a model column (each run's first row); a models side file outer-joins the file's
    metadata (both ``family`` columns kept, as the general path's merge does)."""
    p = tmp_path / "c.csv"
    p.write_text(
        "model,benchmark,item,score,q_run,q_row,family\n"
        "m1,A,1,1,x,a,f1\nm1,A,2,0,x,b,f2\nm2,A,1,0,y,b,f1\nm2,A,2,1,y,a,f2\n"
    )
    side = tmp_path / "models.csv"
    side.write_text("model,family,params\nm1,fam,7\nm3,other,1\n")
    status, notes, _, models, items, _ = _assert_same([p], tmp_path)
    assert status == "ok"
    assert notes == ["dropped per-score column(s) ['q_row'] (a panel keeps item and model metadata only)"]
    assert isinstance(models, pd.DataFrame) and isinstance(items, pd.DataFrame)
    assert models["q_run"].tolist() == ["x", "y"] and "q_row" not in items and "q_row" not in models
    assert models["family"].tolist() == ["f1", "f1"]
    assert _assert_same([p], tmp_path, models=side)[0] == "ok"
    # a bad condition is refused after the note, on both paths
    p.write_text(
        "model,benchmark,item,score,condition,q_row\n"
        "m1,A,1,1,image,a\nm1,A,2,0,blind,b\nm2,A,1,0,,b\nm1,A,3,1,image,c\n"
    )
    status, notes, message, *_ = _assert_same([p], tmp_path)
    assert status == "InputError" and "condition 'blind'" in str(message) and f"{p}, line 3" in str(message)
    assert notes == ["dropped per-score column(s) ['q_row'] (a panel keeps item and model metadata only)"]


def test_metadata_parquet_types_and_fallbacks(tmp_path: Path) -> None:
    """Parquet metadata of text, int64, float64 (NaN), timestamps (naive, with a time zone, NaT), dates and
    categoricals (unused categories, ordered, several row groups, integer categories) lean; -0.0 and a
    numeric or categorical prediction take the general reader; every case gives the general path's
    outcome."""
    base = pd.DataFrame(
        {
            "model": ["m1", "m1", "m2", "m2"],
            "benchmark": "A",
            "item": ["1", "2", "1", "2"],
            "score": [1.0, 0.0, np.nan, 1.0],
            "question": ["q1", None, "q1", None],
            "params": [7.0, 7.0, np.nan, np.nan],
            "year": np.array([2024, 2024, 2023, 2023], dtype=np.int64),
            "prediction": ["A", "B", None, " "],
        },
        index=pd.Index([3, 4, 5, 6], name="rid"),
    )
    p = tmp_path / "t.parquet"
    day = pd.to_datetime(["2024-01-01 10:00", "2024-01-02 00:00"] * 2)
    lean_cases = [
        base,
        base.assign(params=[1.5, 1.5, 2.0, 2.0]),
        base.assign(release=pd.to_datetime(["2024-01-01"] * 2 + ["2023-01-01"] * 2)),
        base.assign(release_date=pd.to_datetime(["2024-01-01", "2024-01-01", None, None])),
        base.assign(seen=day.tz_localize("Europe/Paris"), at=day.astype("datetime64[us]")),
        base.assign(release_date=[date(2024, 1, 1)] * 2 + [date(2023, 5, 2), None], d=[date(2024, 1, 1)] * 4),
        base.assign(question=pd.Categorical(["q1", "q2", "q1", "q2"])),
        base.assign(question=pd.Categorical(["q1", "q2", "q1", "q2"], categories=["z", "q2", "q1", "u"])),
        base.assign(family=pd.Categorical(["f", "f", None, None], categories=["g", "f"], ordered=True)),
        base.assign(x=pd.Categorical(["a", "b", "c", "a"])),
        base.assign(level=pd.Categorical([1, 2, 1, 2])),  # pyarrow stores integer categories as int64
    ]
    general_cases = [
        base.assign(params=[-0.0, -0.0, 1.0, 1.0]),
        base.assign(prediction=[1, 2, 3, 4]),
        base.assign(prediction=pd.Categorical(["A", "B", "A", None])),
    ]
    for frame, lean in [(f, True) for f in lean_cases] + [(f, False) for f in general_cases]:
        for groups in (None, 2):  # one row group, or two (a dictionary per row group)
            frame.to_parquet(p, row_group_size=groups)
            assert (read_coded(p, None) is not None) == lean
            assert _assert_same([p], tmp_path)[0] == "ok"
    base.to_parquet(p)
    _, _, _, models, items, _ = _full([p], True, tmp_path)
    assert isinstance(models, pd.DataFrame) and isinstance(items, pd.DataFrame)
    assert models["year"].tolist() == [2024, 2023] and models["year"].dtype == np.int64
    assert models["params"].tolist()[0] == 7.0 and np.isnan(models["params"].tolist()[1])
    assert items["question"].tolist()[0] == "q1" and pd.isna(items["question"].tolist()[1])


def test_metadata_text_cells(tmp_path: Path) -> None:
    """Text cells as pandas reads them: CRLF line ends (a quoted CRLF kept), quoted and bare NA texts
    missing, blanks kept, an all-empty column, a byte-order mark; a ``prediction`` in one of two files (the
    frames are concatenated, the missing answers of the other file NaN)."""
    p = tmp_path / "crlf.csv"
    p.write_bytes(
        b"model,benchmark,item,score,question,empty,family\r\n"
        b'm1,A,1,1,"q\r\n1",,"NA"\r\nm1,A,2,0,q2 ,,n/a\r\nm2,A,1,1,"q\r\n1",, x\r\n'
    )
    assert read_coded(p, None) is not None
    status, _, _, models, items, _ = _assert_same([p], tmp_path)
    assert status == "ok" and isinstance(items, pd.DataFrame) and isinstance(models, pd.DataFrame)
    assert items["question"].tolist() == ["q\r\n1", "q2 "]
    assert items["empty"].isna().all()
    assert models["family"].tolist() == [None, " x"]
    b = tmp_path / "bom.csv"
    b.write_bytes("\ufeffmodel,benchmark,item,score,prediction\nm1,A,1,1, x\n".encode())
    c = tmp_path / "c.csv"
    c.write_text("model,benchmark,item,score\nm2,A,1,1\n")
    status, notes, _, _, _, answers = _assert_same([b, c], tmp_path)
    assert status == "ok" and notes == []
    assert answers[0]["answer"].tolist()[0] == "x" and pd.isna(answers[0]["answer"].tolist()[1])


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_answers_counted_not_kept_hold_no_text(tmp_path: Path, suffix: str) -> None:
    """Without an answers list the ``prediction`` column is only counted: the lean reader keeps one
    placeholder value, not each row's text, and the note's count equals the general reader's (blanks, NA
    texts and whitespace that ``str.strip`` removes, ``\\x1c`` and an ideographic space included, count as
    no answer); with an answers list the texts are kept as before."""
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
    counted = read_coded(path, None, keep_answers=False)
    kept = read_coded(path, None)
    assert counted is not None and kept is not None
    assert counted.prediction is not None and counted.prediction.values == [ANSWER_PRESENT]
    assert kept.prediction is not None and len(kept.prediction.values) > 30
    lean, general = _outcome([path], True, tmp_path), _outcome([path], False, tmp_path)
    assert lean == general
    n_answers = sum(1 for r in rows if r["prediction"].strip() not in ("", "NA"))
    assert any(f"{n_answers} logged model answers not kept" in n for n in lean[1])
    _assert_same([path], tmp_path)  # the answers table, when asked for, as before
