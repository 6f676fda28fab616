"""Importer ``aggregate``: models x benchmarks tables and the OpenVLM leaderboard JSON."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from benchsift.errors import FormatError, InputError
from benchsift.io import read_aggregate


def test_table_by_hand(fixtures: Path) -> None:
    notes: list[str] = []
    p = read_aggregate(fixtures / "aggregate" / "leaderboard.csv", notes=notes)
    assert p.model_ids == ["GPT-4o (20240513)", "InternVL2-8B", "MiniCPM-V-2.6"]
    # one column per benchmark: item == benchmark
    assert p.item_keys == [
        ("MMStar", "MMStar"),
        ("OCRBench", "OCRBench"),
        ("MME", "MME"),
        ("MMMU_VAL", "MMMU_VAL"),
    ]
    expected = np.array(
        [
            [0.639, 0.736, 2310.3 / 2800, 0.692],
            [0.615, 0.794, 2210.3 / 2800, 0.512],
            [0.575, 0.852, np.nan, 0.498],
        ]
    )
    np.testing.assert_allclose(p.scores, expected)
    np.testing.assert_array_equal(p.models["params"].to_numpy(), [np.nan, 8.0, 8.1])
    assert len([n for n in notes if n.startswith("rescaled")]) == 4
    means = p.benchmark_means()
    np.testing.assert_allclose(means.means, p.scores)  # a benchmark's mean is its one score
    assert not any(n.startswith("warning:") for n in notes)  # a plain leaderboard: nothing suspicious


def test_a_per_item_table_or_an_average_column_read_as_benchmarks_is_said(tmp_path: Path) -> None:
    # an items x models 0/1 table (MMMU_DEV_VAL.csv's shape) given to the aggregate importer: before, its
    # item ids silently became 6 models of 3 "benchmarks"
    per_item = tmp_path / "per_item.csv"
    per_item.write_text("index,GPT4V,Qwen,LLaVA\n0,1,0,1\n1,0,0,1\n2,1,1,1\n3,0,1,0\n4,1,0,0\n5,1,1,0\n")
    notes: list[str] = []
    p = read_aggregate(per_item, notes=notes)
    assert p.model_ids == ["0", "1", "2", "3", "4", "5"]  # still read as asked
    (w,) = [n for n in notes if n.startswith("warning:")]
    assert w == (
        f"warning: {per_item}: every score is 0 or 1, as in a per-item table (items x models), which the "
        "wide importer reads; here its 6 rows are read as models and its 3 columns as benchmarks"
    )
    # a spreadsheet's average column is read as a benchmark of its own: said
    avg = tmp_path / "avg.csv"
    avg.write_text("model,MMStar,MMMU,Avg Score\nA,61.5,50.2,55.9\nB,40.0,41.0,40.5\n")
    notes = []
    p = read_aggregate(avg, notes=notes)
    assert p.benchmarks == ["MMStar", "MMMU", "Avg Score"]
    assert (
        f"warning: {avg}: column(s) ['Avg Score'] are read as benchmarks; if they are the table's own "
        in (" ".join(notes))
    )


def test_openvlm_json_by_hand(fixtures: Path) -> None:
    notes: list[str] = []
    p = read_aggregate(fixtures / "aggregate" / "OpenVLM.json", notes=notes)
    assert p.model_ids == ["GPT-4o (0513, detail-high)", "InternVL2-8B"]
    assert p.benchmarks == ["MMBench_V11", "MMStar", "MME", "OCRBench", "MMBench-Video"]
    gpt = dict(zip(p.benchmarks, p.scores[0], strict=True))
    assert gpt["MMBench_V11"] == pytest.approx(0.825)
    assert gpt["MME"] == pytest.approx(2310.3 / 2800)
    assert gpt["OCRBench"] == pytest.approx(0.736)  # "Final Score" 736 of 1000
    assert gpt["MMBench-Video"] == pytest.approx(1.87 / 3)
    assert np.isnan(p.scores[1, p.benchmarks.index("MMBench-Video")])
    assert p.models["params"].tolist()[1] == 8.0
    assert p.models["language_model"].tolist()[1] == "InternLM2.5-7B"
    assert any("HallusionBench" in n for n in notes)  # no Overall field: left out, and said so


SERVED = Path(__file__).resolve().parents[1] / "fixtures" / "io" / "aggregate" / "served" / "out"
FULL_SCALE = {"MMBench_V11": 100.0, "MMStar": 100.0, "OCRBench": 1000.0, "MME": 2800.0}


@pytest.mark.parametrize("name", ["client.json", "value.json", "filter_df.json", "config.json"])
def test_leaderboard_table_written_by_gradio(name: str) -> None:
    """The table as Gradio itself serves it (``served/generate.py``, gradio version in ``out/VERSION``):
    gradio_client's answer, the component value, the API event's outputs, the whole app config. Every
    per-model score equals the number put into the table; HTML link text is the model; the benchmark no
    model has is kept as missing, with a warning."""
    expected = json.loads((SERVED / "expected.json").read_text())
    notes: list[str] = []
    p = read_aggregate(SERVED / name, notes=notes)
    assert sorted(p.model_ids) == sorted(expected)
    assert sorted(p.benchmarks) == ["HallusionBench", "MMBench_V11", "MME", "MMStar", "OCRBench"]
    n_checked = 0
    for i, model in enumerate(p.model_ids):
        for j, bench in enumerate(p.benchmarks):
            want = expected[model][bench]
            if want is None:
                assert np.isnan(p.scores[i, j]), (model, bench)
            else:  # brought to [0, 1]: percentages / 100, OCRBench / 1000, MME / 2800
                got = p.scores[i, j] * FULL_SCALE[bench]
                assert abs(got - want) <= 1e-9, (model, bench, got, want)
                n_checked += 1
    assert n_checked == 11  # 3 models x 4 benchmarks, less GPT-4o's OCRBench
    assert np.isnan(p.scores[:, p.benchmarks.index("HallusionBench")]).all()
    params = dict(zip(p.model_ids, p.models["params"], strict=True))
    assert params["InternVL2-8B"] == 8.1 and params["Qwen2-VL-7B"] == 8.3
    assert np.isnan(params["GPT-4o & friends"])
    urls = dict(zip(p.model_ids, p.models["url"], strict=True))
    assert urls["Qwen2-VL-7B"] == "https://huggingface.co/Qwen/Qwen2-VL-7B-Instruct"
    assert any(n.startswith("warning: ") and "['HallusionBench']" in n for n in notes)
    assert any("['Rank', 'Avg Score', 'Avg Rank'] are not benchmarks" in n for n in notes)
    assert len([n for n in notes if n.startswith("rescaled")]) == 4


def test_served_shapes_refused(tmp_path: Path) -> None:
    table = json.loads((SERVED / "client.json").read_text())
    j = tmp_path / "lb.json"
    cases = [
        ({"value": {"headers": ["Method"]}}, r"lb\.json: 'value' is not a Dataframe value"),
        ([table, table], r"lb\.json: a list of 2 outputs, tables at \[0, 1\]: expected one Dataframe value"),
        ({"components": [{"type": "markdown", "props": {}}]}, r"Gradio app config with 0 Dataframe values"),
        ({"headers": table["headers"], "data": []}, r"lb\.json: the leaderboard table has no rows"),
        ({"headers": ["Method", "MMStar"], "data": [[None, 1.0]]}, r"data\[0\]: model cell .* is None"),
        ({"headers": ["Method", "MMStar"], "data": [["m", 1.0, 2.0]]}, r"data\[0\] is not a row of 2 cells"),
    ]
    for doc, message in cases:
        j.write_text(json.dumps(doc))
        with pytest.raises((FormatError, InputError), match=message):
            read_aggregate(j)


def test_errors(tmp_path: Path) -> None:
    f = tmp_path / "agg.csv"
    f.write_text("model,MMStar\nm1,61.5\nm2,n/a?\n")
    with pytest.raises(
        InputError, match=r"agg\.csv, line 3: score of benchmark 'MMStar' 'n/a\?' is not a number"
    ):
        read_aggregate(f)
    f.write_text("model\nm1\n")
    with pytest.raises(FormatError, match="no benchmark columns"):
        read_aggregate(f)
    j = tmp_path / "lb.json"
    j.write_text('{"time": "x", "data": []}')
    with pytest.raises(FormatError, match=r"lb\.json: not an OpenVLM leaderboard JSON"):
        read_aggregate(j)
    j.write_text('{"results": {"m": {"META": {}, "MMStar": {"Overall": "high"}}}}')
    with pytest.raises(InputError, match=r"lb\.json, results\['m'\]\['MMStar'\]\['Overall'\]: score 'high'"):
        read_aggregate(j)


def test_models_side_file_fills_metadata(tmp_path: Path, fixtures: Path) -> None:
    side = tmp_path / "models.csv"
    side.write_text("model,family,params\nGPT-4o (20240513),gpt,\nInternVL2-8B,internvl,8.1\n")
    p = read_aggregate(fixtures / "aggregate" / "leaderboard.csv", models=side)
    assert p.models["family"].tolist()[:2] == ["gpt", "internvl"]
    # the side file wins where it has a value; the table's own params fill the rest
    np.testing.assert_array_equal(p.models["params"].to_numpy(), [np.nan, 8.1, 8.1])


def test_leaderboard_table_as_served(fixtures: Path) -> None:
    """The space's Dataframe value: HTML model links, Param (B), leaderboard aggregates left out, an
    all-empty benchmark column kept as missing with a warning."""
    notes: list[str] = []
    p = read_aggregate(fixtures / "aggregate" / "open_vlm_leaderboard_served.json", notes=notes)
    assert p.model_ids == ["InternVL2-8B", "Qwen2-VL-7B", "GPT-4o & friends"]
    assert sorted(p.benchmarks) == ["HallusionBench", "MMBench_V11", "MMStar", "OCRBench"]
    col = {b: p.benchmarks.index(b) for b in p.benchmarks}
    assert np.isnan(p.scores[:, col["HallusionBench"]]).all()
    assert p.scores[1, col["OCRBench"]] == pytest.approx(0.866)  # OCRBench's 0-1000 scale
    assert np.isnan(p.scores[2, col["OCRBench"]])
    assert p.models["params"].tolist()[:2] == [8.1, 8.3]
    assert np.isnan(p.models["params"].iloc[2])
    assert p.models["url"].iloc[0] == "https://huggingface.co/OpenGVLab/InternVL2-8B"
    assert any(n.startswith("warning: ") and "['HallusionBench']" in n for n in notes)
    assert any("['Rank', 'Avg Score', 'Avg Rank'] are not benchmarks" in n for n in notes)
