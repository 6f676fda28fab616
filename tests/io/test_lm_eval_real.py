"""Importer ``lm-eval`` on logs written by lm-evaluation-harness itself (``tests/fixtures/io/lm_eval/real``).

``generate.py`` there ran lm-eval's own command line (version in ``logs/VERSION``) with a scripted model
class on local tasks; the results json each run wrote holds the tool's own aggregate per task, metric and
filter (``"acc,none"``, ``"exact_match,strict-match"``), which the panel's per-model means must equal.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from benchsift.errors import InputError
from benchsift.io import read_lm_eval
from benchsift.panel import Panel

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "io" / "lm_eval" / "real" / "logs"
# .ci/side_tools.sh points REAL at logs just regenerated with the current lm-eval (format drift check)
REAL = Path(os.environ.get("BENCHSIFT_LM_EVAL_LOGS") or FIXTURE)
RESULTS = sorted([*REAL.glob("tree/*/results_*.json"), *REAL.glob("single/run_*.json")])


def _mean(panel: Panel, model: str, task: str) -> float:
    row = panel.model_ids.index(model)
    cols = [j for j, k in enumerate(panel.item_keys) if k[0] == task]
    return float(np.nanmean(panel.scores[row, cols]))


def _reported() -> list[tuple[str, str, str, str, float]]:
    """(model, task, metric, filter, value) for every aggregate lm-eval reported."""
    out = []
    for path in RESULTS:
        data = json.loads(path.read_text())
        for task, metrics in data["results"].items():
            for key, value in metrics.items():
                if "," in key and "_stderr" not in key:
                    metric, filt = key.split(",", 1)
                    out.append((data["model_name"], task, metric, filt, float(value)))
    return out


def test_fixtures_are_there() -> None:
    assert len(RESULTS) == 3
    assert REAL.joinpath("VERSION").read_text().startswith("lm-eval 0.4.")
    assert len(_reported()) == 3 * 4  # 3 models x (acc, acc_norm, 2 exact_match filters)


@pytest.mark.parametrize("filt", ["strict-match", "flexible-extract"])
def test_tree_and_single_file_means_equal_lm_eval(filt: str) -> None:
    """The whole tree (two models under --output_path DIR, one under --output_path run.json) in one import."""
    notes: list[str] = []
    panel = read_lm_eval([REAL / "tree", REAL / "single"], filter=filt, notes=notes)
    assert sorted(panel.model_ids) == ["org/alpha", "org/beta", "org/gamma"]
    checked = 0
    for model, task, metric, f, value in _reported():
        if metric == "acc" or (metric == "exact_match" and f == filt):
            assert abs(_mean(panel, model, task) - value) < 1e-9, (model, task, metric, f)
            checked += 1
    assert checked == 6
    assert any("tree: read 4 sample file(s), skipped 0" in n for n in notes)


def test_acc_norm_on_request() -> None:
    found = [*REAL.glob("tree/*/samples_arith_mc_*.jsonl"), *REAL.glob("single/samples_arith_mc_*.jsonl")]
    panel = read_lm_eval(sorted(found), metric="acc_norm")
    for model, task, metric, _, value in _reported():
        if metric == "acc_norm":
            assert abs(_mean(panel, model, task) - value) < 1e-9


def test_output_path_json_names_model_from_results_not_folder(tmp_path: Path) -> None:
    """``--output_path run.json`` writes ``run_<date>.json``: the model is its ``model_name``, not the
    folder's name (``single``)."""
    samples = sorted((REAL / "single").glob("samples_arith_mc_*.jsonl"))
    panel = read_lm_eval(samples)
    assert panel.model_ids == ["org/gamma"]
    # without the results json, the folder is all there is: named after it
    shutil.copy(samples[0], tmp_path / samples[0].name)
    assert read_lm_eval(tmp_path / samples[0].name).model_ids == [tmp_path.name]


def test_two_filters_need_a_choice() -> None:
    with pytest.raises(InputError, match=r"several filters \['strict-match', 'flexible-extract'\]"):
        read_lm_eval(REAL / "single")


LEGACY = FIXTURE / "legacy"


def test_fixture_of_lm_eval_042() -> None:
    assert LEGACY.joinpath("VERSION").read_text() == "lm-eval 0.4.2\n"
    first = next(LEGACY.glob("alpha/*_arith_gen.jsonl")).read_text()
    assert first.lstrip().startswith("[")  # one JSON array, not JSON lines
    assert '"filter"' not in first  # 0.4.2 logs no filter key


@pytest.mark.parametrize("filt", ["strict-match", "flexible-extract"])
def test_lm_eval_042_layout_means_equal_its_results_json(filt: str) -> None:
    """results.json + <model_args>_<task>.jsonl; a document listed once per filter, in filter_list order."""
    panel = read_lm_eval(LEGACY, filter=filt)
    assert panel.model_ids == ["org/alpha", "org/beta"]
    assert panel.benchmarks == ["arith_gen", "arith_mc"]
    for path in sorted(LEGACY.glob("*/results.json")):
        data = json.loads(path.read_text())
        model = data["config"]["model_args"].removeprefix("pretrained=")
        for task, key in (("arith_mc", "acc,none"), ("arith_gen", f"exact_match,{filt}")):
            assert abs(_mean(panel, model, task) - data["results"][task][key]) < 1e-9, (model, task, key)
    with pytest.raises(InputError, match="several filters"):
        read_lm_eval(LEGACY)


DETAILS = FIXTURE.parent / "details"


def test_details_parquet_means_equal_lm_eval() -> None:
    """lm-eval sample logs as the ``datasets`` library stores them (details/make_parquet.py, the Open LLM
    Leaderboard's details form) read like the JSON lines they came from."""
    results = json.loads(next(DETAILS.glob("org__alpha/results_*.json")).read_text())["results"]
    for filt in ("strict-match", "flexible-extract"):
        panel = read_lm_eval(DETAILS, filter=filt)
        assert panel.model_ids == ["org/alpha"]
        assert (
            abs(_mean(panel, "org/alpha", "arith_gen") - results["arith_gen"][f"exact_match,{filt}"]) < 1e-9
        )
        assert abs(_mean(panel, "org/alpha", "arith_mc") - results["arith_mc"]["acc,none"]) < 1e-9
    jsonl = read_lm_eval(FIXTURE / "tree" / "org__alpha", filter="strict-match")
    np.testing.assert_array_equal(read_lm_eval(DETAILS, filter="strict-match").scores, jsonl.scores)


def _rerun_results() -> list[tuple[str, dict]]:
    """(date, results json) of the two runs of org/alpha in ``rerun/org__alpha``, oldest first."""
    files = sorted((REAL / "rerun" / "org__alpha").glob("results_*.json"))
    return [(p.stem.removeprefix("results_"), json.loads(p.read_text())) for p in files]


def test_rerun_into_one_folder_takes_the_latest_run_per_task() -> None:
    """org/alpha run twice into one output folder (the second run: arith_mc only, other answers): as lm-eval's
    ``get_latest_filename``, arith_mc comes from the second run and arith_gen from the first, each equal
    to the results json of its run; a warning names the superseded sample file."""
    (first_date, first), (second_date, second) = _rerun_results()
    assert sorted(second["results"]) == ["arith_mc"]
    assert second["results"]["arith_mc"]["acc,none"] != first["results"]["arith_mc"]["acc,none"]
    notes: list[str] = []
    panel = read_lm_eval(REAL / "rerun", filter="flexible-extract", notes=notes)
    assert panel.model_ids == ["org/alpha"]
    assert _mean(panel, "org/alpha", "arith_mc") == pytest.approx(second["results"]["arith_mc"]["acc,none"])
    gen = first["results"]["arith_gen"]["exact_match,flexible-extract"]
    assert _mean(panel, "org/alpha", "arith_gen") == pytest.approx(gen)
    (warning,) = [n for n in notes if "superseded" in n]
    assert (
        f"samples_arith_mc_{first_date}.jsonl: superseded by samples_arith_mc_{second_date}.jsonl" in warning
    )


def test_rerun_keep_all_runs() -> None:
    (first_date, first), (second_date, second) = _rerun_results()
    panel = read_lm_eval(REAL / "rerun", filter="flexible-extract", keep_all_runs=True)
    one, two = f"org/alpha (run {first_date})", f"org/alpha (run {second_date})"
    assert panel.model_ids == [one, two]
    assert _mean(panel, one, "arith_mc") == pytest.approx(first["results"]["arith_mc"]["acc,none"])
    assert _mean(panel, two, "arith_mc") == pytest.approx(second["results"]["arith_mc"]["acc,none"])
    gen = first["results"]["arith_gen"]["exact_match,flexible-extract"]
    assert _mean(panel, one, "arith_gen") == pytest.approx(gen)
    assert np.isnan(panel.scores[1, [k[0] == "arith_gen" for k in panel.item_keys]]).all()


def test_per_item_means_checked_against_the_results_json(tmp_path: Path) -> None:
    """Every task of lm-eval's own logs reproduces its results json (no warning); where the aggregate beside
    the samples says another number, a warning names both."""
    notes: list[str] = []
    read_lm_eval([REAL / "tree", REAL / "single"], filter="strict-match", notes=notes)
    assert not any("aggregate beside it" in n for n in notes)
    run = tmp_path / "org__alpha"
    shutil.copytree(REAL / "tree" / "org__alpha", run)
    (results_path,) = run.glob("results_*.json")
    results = json.loads(results_path.read_text())
    true_acc = results["results"]["arith_mc"]["acc,none"]
    results["results"]["arith_mc"]["acc,none"] = 0.125
    results_path.write_text(json.dumps(results))
    notes = []
    read_lm_eval(sorted(run.glob("samples_arith_mc_*.jsonl")), notes=notes)
    (warning,) = [n for n in notes if "aggregate beside it" in n]
    assert (
        f"the per-item mean is {true_acc:.10g} but the tool's own aggregate beside it says 0.125" in warning
    )
    assert warning.startswith("warning: samples_arith_mc_") and "model 'org/alpha'" in warning
