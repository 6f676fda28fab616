"""Every Eval Ever: import files written by its own lm-eval converter (``tests/fixtures/io/eee/real``, made
from benchsift's lm-eval fixtures, which lm-eval itself wrote), and export a panel that its own JSON
Schemas accept."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import numpy as np
import pytest
from warned import warned

from benchsift.errors import FormatError, InputError
from benchsift.io import read_eee, read_lm_eval, read_vlmevalkit, write_eee
from benchsift.panel import Panel

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "io"
REAL = FIX / "eee" / "real"
LM_EVAL_TREE = FIX / "lm_eval" / "real" / "logs" / "tree"


def _mean(panel: Panel, model: str, bench: str) -> float:
    cols = [j for j, k in enumerate(panel.item_keys) if k[0] == bench]
    return float(np.nanmean(panel.scores[panel.model_ids.index(model), cols]))


def test_real_means_equal_eee_aggregate_and_lm_eval() -> None:
    assert (REAL / "data" / "VERSION").read_text().startswith("every_eval_ever ")
    notes: list[str] = []
    panel = read_eee(REAL / "data", notes=notes)
    assert panel.model_ids == ["org/alpha", "org/beta"]
    assert sorted(panel.benchmarks) == ["arith_gen/flexible-extract", "arith_gen/strict-match", "arith_mc"]
    assert f"{REAL / 'data'}: read 4 Every Eval Ever samples file(s), skipped 0" in notes
    checked = 0
    for agg_path in sorted((REAL / "data").rglob("*.json")):
        agg = json.loads(agg_path.read_text())
        model = agg["model_info"]["id"]
        lm = json.loads(next((LM_EVAL_TREE / model.replace("/", "__")).glob("results_*.json")).read_text())
        for result in agg["evaluation_results"]:
            name = result["evaluation_name"]
            if name not in panel.benchmarks:
                continue  # acc_norm of arith_mc: EEE's samples carry only the first metric (acc)
            if result["metric_config"]["evaluation_description"] == "acc_norm":
                continue
            mine = _mean(panel, model, name)
            assert abs(mine - result["score_details"]["score"]) < 1e-9, (model, name)
            task, _, filt = name.partition("/")
            key = f"exact_match,{filt}" if filt else "acc,none"
            assert abs(mine - lm["results"][task][key]) < 1e-9, (model, name)
            checked += 1
    assert checked == 6


def _record(**over: object) -> dict:
    base = {
        "schema_version": "0.3.0",
        "evaluation_id": "e/m/1",
        "model_id": "m",
        "evaluation_name": "B",
        "sample_id": "1",
        "interaction_type": "single_turn",
        "input": {"raw": "q", "reference": ["a"]},
        "output": {"raw": ["a"]},
        "answer_attribution": [],
        "evaluation": {"score": 1.0, "is_correct": True},
    }
    base.update(over)
    return base


def _write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_errors_missing_and_choices(tmp_path: Path) -> None:
    f = _write(
        tmp_path / "x_samples.jsonl", [_record(), _record(sample_id="2", evaluation={"score": "high"})]
    )
    with pytest.raises(
        FormatError, match=r"x_samples\.jsonl, line 2: evaluation\.score 'high' is not a number"
    ):
        read_eee(f)
    f = _write(tmp_path / "x_samples.jsonl", [_record(), _record(sample_id="2", error="timeout")])
    notes: list[str] = []
    p = read_eee(f, notes=notes)
    np.testing.assert_array_equal(p.scores, [[1.0, np.nan]])  # an errored sample is missing, not 0
    assert any("1 record(s) with an error counted as missing" in n for n in notes)
    two = [_record(evaluation_result_id="acc"), _record(evaluation_result_id="f1", evaluation={"score": 0.0})]
    f = _write(tmp_path / "x_samples.jsonl", two)
    with pytest.raises(
        InputError, match=r"several aggregate results \['acc', 'f1'\].*; choose one with `filter`$"
    ):
        read_eee(f)
    assert read_eee(f, filter="f1").scores.tolist() == [[0.0]]
    agg = tmp_path / "x.json"
    agg.write_text('{"schema_version": "0.3.0"}')
    with pytest.raises(FormatError, match="an Every Eval Ever aggregate file") as err:
        read_eee(agg)
    assert "\n" not in str(err.value)
    f = _write(tmp_path / "y_samples.jsonl", [{"model": "m", "score": 1}])
    with pytest.raises(FormatError, match="not an Every Eval Ever instance record"):
        read_eee(f)


def _validators() -> tuple[jsonschema.Draft7Validator, jsonschema.Draft7Validator]:
    schema = REAL / "schema"
    agg = json.loads((schema / "eval.schema.json").read_text())
    inst = json.loads((schema / "instance_level_eval.schema.json").read_text())
    return jsonschema.Draft7Validator(agg), jsonschema.Draft7Validator(inst)


def test_export_valid_under_eee_schema_and_reads_back(tmp_path: Path) -> None:
    panel = warned(read_vlmevalkit, FIX / "vlmevalkit" / "real" / "outputs", expect=["MME"])
    written = write_eee(panel, tmp_path / "data", retrieved_timestamp="1796000000")
    agg_v, inst_v = _validators()
    aggs = [p for p in written if p.suffix == ".json"]
    samples = [p for p in written if p.name.endswith("_samples.jsonl")]
    bench = panel.items["benchmark"].to_numpy()
    pairs = sum(bool(np.isfinite(row[bench == b]).any()) for row in panel.scores for b in panel.benchmarks)
    # ScriptedA, ScriptedB: every benchmark but MathVista_MINI; ScriptedC: MMStar; ScriptedD: MathVista_MINI
    assert pairs == 2 * (len(panel.benchmarks) - 1) + 2
    assert len(aggs) == len(samples) == pairs
    for p in aggs:
        data = json.loads(p.read_text())
        errors = sorted(agg_v.iter_errors(data), key=str)
        assert not errors, (p, errors[0].message)
        rel = data["detailed_evaluation_results"]["file_path"]
        assert (tmp_path / rel).is_file()  # data/<bench>/<developer>/<model>/<uuid>_samples.jsonl
    for p in samples:
        for line in p.read_text().splitlines():
            errors = sorted(inst_v.iter_errors(json.loads(line)), key=str)
            assert not errors, (p, errors[0].message)
    back = read_eee(tmp_path / "data")
    assert back.model_ids == panel.model_ids and sorted(back.benchmarks) == sorted(panel.benchmarks)
    for i, model in enumerate(panel.model_ids):
        for b in panel.benchmarks:
            if np.isfinite(panel.scores[i, bench == b]).any():
                assert _mean(back, model, b) == pytest.approx(_mean(panel, model, b), abs=1e-12)
    # the failed API answer (NaN) is left out, not written as 0
    n_items = int(np.isfinite(panel.scores).sum())
    assert sum(len(p.read_text().splitlines()) for p in samples) == n_items
    # same panel, same timestamp: same bytes
    again = write_eee(panel, tmp_path / "again", retrieved_timestamp="1796000000")
    for a, b in zip(written, again, strict=True):
        assert a.read_bytes() == b.read_bytes()


GROUP = Path(__file__).resolve().parents[1] / "fixtures" / "io" / "eee" / "real" / "group" / "data"
LM_GROUP = Path(__file__).resolve().parents[1] / "fixtures" / "io" / "lm_eval" / "real" / "logs" / "group"


def test_samples_that_do_not_reproduce_the_aggregate_beside_them_are_named() -> None:
    """every_eval_ever 0.3.0's lm-eval converter on lm-eval's group run (arith_mc, arith_mc_rev) fills
    arith_mc's samples file with arith_mc_rev's samples: the per-item mean is 1 where the aggregate beside
    it (and lm-eval's own results json) say 2/3. The import warns naming both numbers; arith_mc_rev, whose
    samples are its own, reproduces its aggregate without a word."""
    assert GROUP.joinpath("VERSION").read_text().startswith("every_eval_ever 0.3.0")
    (results_path,) = LM_GROUP.glob("org__alpha/results_*.json")
    lm = json.loads(results_path.read_text())["results"]
    notes: list[str] = []
    panel = read_eee(GROUP, filter="acc", notes=notes)
    assert sorted(panel.benchmarks) == ["arith_mc", "arith_mc_rev"]
    (warning,) = [n for n in notes if "aggregate beside it" in n]
    want = lm["arith_mc"]["acc,none"]
    assert want == pytest.approx(2 / 3)
    said = f"the per-item mean is 1 but the tool's own aggregate beside it says {want:.10g}"
    assert f"evaluation 'arith_mc' result 'acc': {said}" in warning
    cols = panel.items["benchmark"].to_numpy() == "arith_mc_rev"
    assert float(np.mean(panel.scores[0, cols])) == pytest.approx(lm["arith_mc_rev"]["acc,none"])
    # lm-eval's own samples of the same run reproduce its numbers (no warning)
    notes = []
    lm_panel = read_lm_eval(LM_GROUP, notes=notes)
    assert not any("aggregate beside it" in n for n in notes)
    lm_cols = lm_panel.items["benchmark"].to_numpy() == "arith_mc"
    assert float(np.mean(lm_panel.scores[0, lm_cols])) == pytest.approx(want)
