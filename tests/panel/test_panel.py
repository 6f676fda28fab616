"""The score panel: validation, subsetting, NaN-aware group means, long tables, parquet storage."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchsift import InputError, Panel
from benchsift.errors import FormatError

NAN = np.nan


def small_panel() -> Panel:
    scores = np.array(
        [
            [1.0, 0.0, NAN, 0.5, 1.0],
            [0.0, 0.0, 1.0, NAN, NAN],
            [1.0, 1.0, 1.0, 1.0, 0.0],
        ]
    )
    models = pd.DataFrame(
        {
            "model": ["m1", "m2", "m1"],
            "condition": ["image", "image", "text-only"],
            "family": ["A", "B", "A"],
            "release_date": ["2024-01-01", None, "2024-01-01"],
            "params": [7, None, 7],
        }
    )
    items = pd.DataFrame(
        {
            "benchmark": ["B1", "B1", "B1", "B2", "B2"],
            "item": ["1", "2", "3", "1", "2"],
            "category": ["perc", "perc", "reas", "reas", None],
            "question": ["q1", "q2", "q3", "q4", "q5"],
        }
    )
    return Panel(scores, models, items)


def test_basic_properties() -> None:
    p = small_panel()
    assert p.shape == (3, 5)
    assert p.benchmarks == ["B1", "B2"]
    assert p.categories == ["perc", "reas"]
    assert p.item_keys[3] == ("B2", "1")
    assert p.model_labels == ["m1", "m2", "m1 [text-only]"]
    assert p.coverage == pytest.approx(12 / 15)
    obs = [1, 0, 0.5, 1, 0, 0, 1, 1, 1, 1, 1, 0]
    assert p.mean_score == pytest.approx(np.mean(obs))
    assert p.models["release_date"].dtype == "datetime64[ns]"
    assert np.isnan(p.models["params"].iloc[1])
    assert not p.scores.flags.writeable


def test_group_means_hand_computed() -> None:
    p = small_panel()
    g = p.benchmark_means()
    assert g.groups == ["B1", "B2"]
    # m1: B1 = mean(1, 0) (item 3 missing); B2 = mean(0.5, 1)
    np.testing.assert_allclose(g.means[0], [0.5, 0.75])
    # m2: B1 = mean(0, 0, 1); B2 all missing -> NaN
    np.testing.assert_allclose(g.means[1], [1 / 3, NAN])
    np.testing.assert_allclose(g.coverage[:2], [[2 / 3, 1.0], [1.0, 0.0]])
    np.testing.assert_array_equal(g.n_items, [3, 2])
    c = p.category_means()
    assert c.groups == ["perc", "reas"]  # the item without a category is left out
    np.testing.assert_allclose(c.means[0], [0.5, 0.5])
    np.testing.assert_allclose(c.means[2], [1.0, 1.0])
    frame = c.to_frame()
    assert list(frame.index) == p.model_labels
    np.testing.assert_allclose(p.model_means(), [2.5 / 4, 1 / 3, 4 / 5])


def test_model_means_of_complete_and_incomplete_panels_match_numpy() -> None:
    """The one-pass path (no missing cell) against numpy and against the NaN-aware formula, bit for bit;
    a panel with holes: the rows without one unchanged, the others NaN-aware (an empty row NaN)."""
    rng = np.random.default_rng(11)
    ids = [f"m{i}" for i in range(7)], [f"i{j}" for j in range(300)]
    panel = Panel.from_matrix(rng.random((7, 300)), *ids)
    complete = panel.model_means()
    np.testing.assert_array_equal(complete, panel.scores.mean(axis=1))
    np.testing.assert_array_equal(complete, np.where(panel.observed, panel.scores, 0.0).sum(axis=1) / 300)
    holed = panel.scores.copy()
    holed[0, 5] = NAN
    holed[3] = NAN
    means = Panel.from_matrix(holed, *ids).model_means()
    np.testing.assert_array_equal(means[[1, 2, 4, 5, 6]], complete[[1, 2, 4, 5, 6]])
    np.testing.assert_allclose(means[0], np.nanmean(holed[0]), rtol=1e-15)
    assert np.isnan(means[3])
    assert Panel.from_matrix(np.empty((2, 0)), ["a", "b"], []).model_means().shape == (2,)


def test_group_means_matches_pandas_groupby() -> None:
    rng = np.random.default_rng(3)
    scores = rng.random((6, 40))
    scores[rng.random(scores.shape) < 0.3] = NAN
    items = pd.DataFrame({"benchmark": rng.choice(["a", "b", "c"], 40), "item": [str(i) for i in range(40)]})
    p = Panel(scores, [f"m{i}" for i in range(6)], items)
    g = p.benchmark_means()
    expected = pd.DataFrame(scores.T).groupby(items["benchmark"].to_numpy(), sort=False).mean().T
    np.testing.assert_allclose(g.means, expected[g.groups].to_numpy())


def test_condition_masks() -> None:
    p = small_panel()  # rows: m1 image, m2 image, m1 text-only
    assert p.image_rows.dtype == bool and p.text_only_rows.dtype == bool
    assert p.image_rows.tolist() == [True, True, False]
    assert p.text_only_rows.tolist() == [False, False, True]
    np.testing.assert_array_equal(p.scores[p.image_rows], p.image_panel().scores)
    np.testing.assert_array_equal(p.scores[p.text_only_rows], p.text_only_panel().scores)
    shuffled = p.subset(models=[2, 0, 1])  # the masks follow the row order
    assert shuffled.image_rows.tolist() == [False, True, True]
    assert shuffled.text_only_rows.tolist() == [True, False, False]
    # no condition column: every run is an image run
    plain = Panel(np.zeros((2, 1)), ["a", "b"], pd.DataFrame({"benchmark": ["B"], "item": ["i"]}))
    assert plain.image_rows.tolist() == [True, True] and plain.text_only_rows.tolist() == [False, False]


def test_subset_and_selects() -> None:
    p = small_panel()
    sub = p.subset(models=["m1"])
    assert sub.n_models == 2 and set(sub.models["condition"]) == {"image", "text-only"}
    assert p.image_panel().model_labels == ["m1", "m2"]
    assert p.text_only_panel().model_labels == ["m1 [text-only]"]
    b2 = p.select_benchmarks("B2")
    assert b2.item_keys == [("B2", "1"), ("B2", "2")]
    np.testing.assert_array_equal(b2.scores, p.scores[:, 3:])
    assert p.select_categories(["reas"]).n_items == 2
    mask = np.array([True, False, True, False, False])
    assert p.subset(items=mask).item_keys == [("B1", "1"), ("B1", "3")]
    assert p.subset(items=[4, 0]).item_keys == [("B2", "2"), ("B1", "1")]
    with pytest.raises(InputError, match="unknown benchmark"):
        p.select_benchmarks("nope")
    with pytest.raises(InputError, match=r"mask: expected one entry per row, shape \(\d+,\), got"):
        p.subset(items=np.array([True, False]))


@pytest.mark.parametrize(
    ("scores", "match"),
    [
        (np.array([[0.5, 1.5]]), r"\[0, 1\].*model 'm' \(image\), benchmark 'b', item '2' has 1.5$"),
        (np.array([[0.5, np.inf]]), "infinite"),
        (np.array([[np.nan, -np.inf]]), "infinite value at model row 0, item column 1"),
        (np.array([[np.nan, -0.25]]), r"item '2' has -0.25$"),
        (np.array([[-1e-300, np.nan]]), r"item '1' has -1e-300$"),
        (np.array([0.5, 0.2]), "2-D"),
    ],
)
def test_bad_scores(scores: np.ndarray, match: str) -> None:
    items = pd.DataFrame({"benchmark": "b", "item": ["1", "2"]})
    with pytest.raises(InputError, match=match):
        Panel(scores, ["m"], items)
    if scores.ndim == 2:  # an importer's matrix, checked in blocks: the same messages
        with pytest.raises(InputError, match=match):
            Panel._from_owned(scores.astype(np.float64), ["m"], items)


def test_scores_at_the_edges_of_the_range_are_accepted() -> None:
    """-0.0, 0, 1, the smallest subnormal and NaN are scores; a matrix of NaN only is a (missing) panel."""
    items = pd.DataFrame({"benchmark": "b", "item": ["1", "2", "3"]})
    edge = np.array([[-0.0, 1.0, 5e-324], [np.nan, 0.0, np.nan]])
    for scores in (edge, np.full((2, 3), np.nan), np.empty((2, 0))):
        its = items.iloc[: scores.shape[1]]
        for p in (Panel(scores, ["m", "n"], its), Panel._from_owned(scores.copy(), ["m", "n"], its)):
            np.testing.assert_array_equal(p.scores, scores)


def test_string_metadata_becomes_str_or_none() -> None:
    """An arrow-backed string column (what a parquet file gives) and an object column with a number and a
    missing value both become object columns of ``str`` with ``None`` for missing."""
    arrow = pd.Series(["x", None, "y"], dtype="string[pyarrow]")
    mixed = pd.Series(["x", None, 3], dtype=object)
    for category in (arrow, mixed):
        items = pd.DataFrame({"benchmark": "b", "item": ["1", "2", "3"], "category": category})
        got = Panel(np.zeros((1, 3)), ["m"], items).items["category"]
        assert got.dtype == object
        assert got.tolist() == ["x", None, "y" if category is arrow else "3"]


def test_bad_metadata() -> None:
    items = pd.DataFrame({"benchmark": "b", "item": ["1", "1"]})
    with pytest.raises(InputError, match=r"row 1: duplicate \(benchmark, item\) = \('b', '1'\)"):
        Panel(np.zeros((1, 2)), ["m"], items)
    items = pd.DataFrame({"benchmark": "b", "item": ["1", "2"]})
    with pytest.raises(InputError, match=r"row 1: duplicate \(model, condition\) = \('m', 'image'\)"):
        Panel(np.zeros((2, 2)), ["m", "m"], items)
    with pytest.raises(
        InputError, match="column 'condition' row 0: expected image or text-only or empty, got 'blind'"
    ):
        Panel(np.zeros((1, 2)), pd.DataFrame({"model": ["m"], "condition": ["blind"]}), items)
    with pytest.raises(InputError, match=r"missing column\(s\) \['benchmark'\]"):
        Panel(np.zeros((1, 2)), ["m"], pd.DataFrame({"item": ["1", "2"]}))
    with pytest.raises(InputError, match="3 rows but the score matrix has 2"):
        Panel(np.zeros((1, 2)), ["m"], pd.DataFrame({"benchmark": "b", "item": ["1", "2", "3"]}))


def test_long_round_trip() -> None:
    p = small_panel()
    long = p.to_long()
    assert len(long) == 12  # NaN cells dropped
    assert {"model", "condition", "benchmark", "item", "category", "score", "question", "family"} <= set(long)
    back = Panel.from_long(long)
    # Items come in order of first appearance in the long table: B1/3 first appears in m2's rows.
    order = [p.item_keys.index(k) for k in back.item_keys]
    assert order == [0, 1, 3, 4, 2]
    assert back == p.subset(items=order)
    assert Panel.from_long(p.to_long(dropna=False)) == p


def test_from_long_metadata_and_errors() -> None:
    df = pd.DataFrame(
        {
            "model": ["a", "a", "b", "b"],
            "benchmark": "B",
            "item": ["1", "2", "1", "2"],
            "score": [1, 0, 0.5, 1],
            "split": ["dev", "val", "dev", "val"],  # constant per item -> item metadata
            "org": ["X", "X", "Y", "Y"],  # constant per model -> model metadata
            "prediction": ["p", "q", "r", "s"],  # varies per cell -> left out
        }
    )
    models = pd.DataFrame({"model": ["a", "b"], "family": ["F", "G"], "params": [1.5, 7]})
    p = Panel.from_long(df, models=models)
    assert p.items["split"].tolist() == ["dev", "val"]
    assert p.models["org"].tolist() == ["X", "Y"]
    assert p.models["family"].tolist() == ["F", "G"]
    assert "prediction" not in p.items.columns and "prediction" not in p.models.columns

    dup_same = pd.concat([df, df.iloc[[0]]])
    assert Panel.from_long(dup_same) == Panel.from_long(df)
    conflict = pd.concat([df, df.iloc[[0]].assign(score=0.0)])
    with pytest.raises(
        InputError,
        match=r"^results.csv, row 4: conflicting duplicate scores for model 'a', benchmark 'B', item '1': "
        r"0.0 here and 1.0 at results.csv, row 0$",
    ):
        Panel.from_long(conflict, source="results.csv")
    bad = df.assign(score=["1", "x", "0", "1"])
    with pytest.raises(InputError, match="row 1: score 'x' is not a number"):
        Panel.from_long(bad)
    with pytest.raises(InputError, match="missing column"):
        Panel.from_long(df.drop(columns="item"))
    with pytest.raises(InputError, match="no rows"):
        Panel.from_long(df.iloc[:0])


def test_save_load_round_trip(tmp_path) -> None:
    p = small_panel()
    path = p.save(tmp_path / "p.parquet")
    q = Panel.load(path)
    assert q == p
    raw = pd.read_parquet(path)
    assert list(raw.columns[:4]) == ["benchmark", "item", "category", "question"]
    np.testing.assert_array_equal(raw["score:1"].to_numpy(), p.scores[1], strict=False)
    assert not list(tmp_path.glob(".*tmp"))


def test_save_layout_scores_byte_stream_split_values_exact(tmp_path) -> None:
    """Issue 36: the score columns are written byte-stream-split with lz4 (LZ4_RAW; pyarrow names it
    ``LZ4``), without a dictionary (whose hashing of every value was most of the write); plain pyarrow and
    pandas read them back as float64 with every value bit for bit (fractions, -0.0, the smallest subnormal,
    NaN), and benchsift reads the panel back equal."""
    import pyarrow.parquet as pq

    rng = np.random.default_rng(7)
    scores = rng.random((6, 300))
    scores[rng.random(scores.shape) < 0.2] = NAN
    scores[0, :4] = [-0.0, 0.0, 1.0, 5e-324]
    scores[1, :3] = [1 - 2**-53, 0.1, 1 / 3]
    models = pd.DataFrame({"model": [f"m{i}" for i in range(6)]})
    items = pd.DataFrame({"benchmark": "B", "item": [str(j) for j in range(300)], "category": "c"})
    p = Panel(scores, models, items)
    path = p.save(tmp_path / "p.parquet")

    meta = pq.ParquetFile(path).metadata.row_group(0)
    by_name = {meta.column(k).path_in_schema: meta.column(k) for k in range(meta.num_columns)}
    for m in range(6):
        col = by_name[f"score:{m}"]
        assert "BYTE_STREAM_SPLIT" in col.encodings and not col.has_dictionary_page
        assert col.compression == "LZ4"
    assert by_name["item"].has_dictionary_page  # item metadata keeps its dictionary

    table = pq.read_table(path)
    raw = pd.read_parquet(path)
    for m in range(6):
        got = table.column(f"score:{m}").to_numpy()
        assert got.dtype == np.float64 and raw[f"score:{m}"].dtype == np.float64
        assert got.tobytes() == scores[m].tobytes()  # bit for bit, the sign of -0.0 and NaN included
        assert raw[f"score:{m}"].to_numpy().tobytes() == scores[m].tobytes()
    q = Panel.load(path)
    assert q == p and q.scores.tobytes() == scores.tobytes()


def test_load_errors(tmp_path) -> None:
    with pytest.raises(InputError, match="no such file"):
        Panel.load(tmp_path / "missing.parquet")
    junk = tmp_path / "junk.parquet"
    junk.write_text("not parquet")
    with pytest.raises(FormatError, match="junk.parquet: not a parquet file") as err:
        Panel.load(junk)
    assert "import the results first" not in str(err.value)
    table = tmp_path / "results.csv"
    table.write_text("model,benchmark,item,score\nm,B,q,1\n")
    with pytest.raises(FormatError, match=r"results\.csv: not a parquet file .*import the results first"):
        Panel.load(table)
    plain = tmp_path / "plain.parquet"
    pd.DataFrame({"a": [1]}).to_parquet(plain)
    with pytest.raises(FormatError, match="not a benchsift panel"):
        Panel.load(plain)


def test_a_long_table_out_of_range_names_its_row_and_says_percentages() -> None:
    long = pd.DataFrame({"model": ["m", "m"], "benchmark": "B", "item": ["q1", "q2"], "score": [100.0, 0.0]})
    with pytest.raises(
        InputError, match=r"^runs\.csv, row 0: score 100 of model 'm', benchmark 'B', item 'q1'.*percentages"
    ):
        Panel.from_long(long, source="runs.csv")
    long["score"] = [-0.5, 0.0]
    with pytest.raises(InputError, match=r"row 0: score -0.5 .* is outside \[0, 1\] \(NaN = missing\)$"):
        Panel.from_long(long, source="runs.csv")


def _kind_scores(kind: str, seed: int, shape: tuple[int, int] = (9, 257)) -> np.ndarray:
    """Random scores of one kind: 0/1, graded (multiples of 1/4, 1/3 and 1/10: some not exact in binary),
    or any float in [0, 1] (with -0.0 and the smallest subnormal); a random share of cells NaN."""
    rng = np.random.default_rng(seed)
    if kind == "binary":
        scores = rng.integers(0, 2, shape).astype(float)
    elif kind == "graded":
        steps = rng.choice([4, 3, 10])
        scores = rng.integers(0, steps + 1, shape) / steps
    else:
        scores = rng.random(shape)
        scores[0, :2] = [-0.0, 5e-324]
    scores[rng.random(shape) < rng.uniform(0.0, 0.5)] = NAN
    return scores


@pytest.mark.parametrize("kind", ["binary", "graded", "float"])
@pytest.mark.parametrize("seed", range(4))
def test_save_load_round_trip_bit_for_bit(tmp_path, kind: str, seed: int) -> None:
    """Issue 36: every score comes back from save / load with the same 64 bits (NaN, -0.0 and subnormals
    included), for 0/1, graded and float panels with missing cells, through benchsift and through plain
    pyarrow."""
    import pyarrow.parquet as pq

    scores = _kind_scores(kind, seed)
    models = pd.DataFrame({"model": [f"m{i}" for i in range(scores.shape[0])]})
    items = pd.DataFrame({"benchmark": "B", "item": [f"q{j}" for j in range(scores.shape[1])]})
    path = Panel(scores, models, items).save(tmp_path / "p.parquet")
    back = Panel.load(path)
    assert back.scores.dtype == np.float64 and back.scores.tobytes() == scores.tobytes()
    table = pq.read_table(path)
    for m in range(scores.shape[0]):
        assert table.column(f"score:{m}").to_numpy().tobytes() == scores[m].tobytes()


def test_load_a_file_written_before_issue_36(tmp_path) -> None:
    """A panel file written by benchsift 7acdf7f (score columns zstd, before they were lz4:
    tests/fixtures/panel/make_old_panel.py) loads with every score, model and item as written."""
    import importlib.util
    from pathlib import Path

    folder = Path(__file__).parents[1] / "fixtures" / "panel"
    spec = importlib.util.spec_from_file_location("make_old_panel", folder / "make_old_panel.py")
    assert spec is not None and spec.loader is not None
    maker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(maker)
    import pyarrow.parquet as pq

    meta = pq.ParquetFile(folder / "old_zstd_panel.parquet").metadata.row_group(0)
    assert {meta.column(k).compression for k in range(meta.num_columns)} == {"ZSTD"}  # the old layout
    panel = Panel.load(folder / "old_zstd_panel.parquet")
    expected = maker.old_scores()
    assert panel.scores.tobytes() == expected.tobytes()
    models, items = maker.old_tables()
    assert panel.models["model"].tolist() == models["model"].tolist()
    assert panel.models["family"].tolist() == models["family"].tolist()
    assert (
        panel.items[["benchmark", "item"]].astype(str).values.tolist()
        == items[["benchmark", "item"]].values.tolist()
    )
    # and it saves again in today's layout with the same values
    again = Panel.load(panel.save(tmp_path / "again.parquet"))
    assert again.scores.tobytes() == expected.tobytes()


@pytest.mark.parametrize("dtype", ["str", "string[python]", "string[pyarrow]"])
def test_text_metadata_from_string_columns_is_str_or_none(dtype: str) -> None:
    """A string column (what a parquet file gives) becomes an object column of ``str`` and ``None``, cell
    for cell the column's own values, whatever pandas' string storage (each distinct text converted once)."""
    from benchsift.panel._panel import _as_str_series

    rng = np.random.default_rng(4)
    for n in (0, 1, 60, 2000):
        cells = np.array([f"cat {i}" for i in rng.integers(0, 9, n)], dtype=object)
        cells[rng.random(n) < 0.2] = None
        values = pd.Series(pd.array(cells, dtype=dtype), index=np.arange(n) * 2)
        got = _as_str_series(values)
        assert got.dtype == object and got.index.equals(values.index)
        assert got.tolist() == [None if c is None else str(c) for c in cells]
        assert all(v is None or type(v) is str for v in got)
