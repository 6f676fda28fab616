"""Importer ``inspect``: the defects the importer audit found, on logs written by inspect-ai itself.

``tests/fixtures/io/inspect/real/extra/`` was written by ``generate.py --only
killed_epochs,rerun,dict_score,limited`` (inspect-ai version in ``extra/VERSION``); ``extra/expected.json``
is what inspect's own ``read_eval_log`` reported for each log. The other logs are those of
``real/logs/`` (``test_inspect_real.py``).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from benchsift.cli.importers import app
from benchsift.errors import FormatError, InputError
from benchsift.io import read_inspect
from benchsift.io.inspect_logs import LETTER_VALUES, load_log
from benchsift.panel import Panel

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "io" / "inspect" / "real"
EXTRA = REAL / "extra"
LOGS = REAL / "logs"
EXPECTED: dict[str, dict] = json.loads((EXTRA / "expected.json").read_text())
LOGS_EXPECTED: dict[str, dict] = json.loads((LOGS / "expected.json").read_text())


def _logs(sub: str) -> list[Path]:
    """The logs of ``extra/sub``, oldest first (``eval.created``)."""
    names = sorted((k for k in EXPECTED if k.startswith(sub + "/")), key=lambda k: EXPECTED[k]["created"])
    return [EXTRA / k for k in names]


def _as_float(value: object) -> float:
    return LETTER_VALUES[value] if isinstance(value, str) else float(value)  # type: ignore[arg-type]


def test_fixtures_are_inspect_logs() -> None:
    assert EXTRA.joinpath("VERSION").read_text().startswith("inspect-ai 0.3.")
    assert sorted({k.split("/")[0] for k in EXPECTED}) == ["dict_score", "killed_epochs", "limited", "rerun"]


# --- defect 1: a killed multi-epoch run -------------------------------------------------------------------


def test_killed_multi_epoch_run_leaves_incomplete_samples_missing() -> None:
    """``Epochs(3, "mode")`` killed after 8 of 18 sample-epochs: each sample holds 1 or 2 of its 3 epochs.
    Reduced over those, q5 and q6 would score 0 where the finished run of the same script gives 1; they are
    missing instead, and a warning names the log and how many samples lack epochs."""
    (log,) = _logs("killed_epochs")
    exp = EXPECTED[log.relative_to(EXTRA).as_posix()]
    assert (exp["status"], exp["n_samples"], exp["metrics"]) == ("started", 8, {})
    raw = load_log(log)
    assert raw.header["eval"]["config"]["epochs"] == 3
    notes: list[str] = []
    panel = read_inspect(log, notes=notes)
    assert panel.model_ids == ["mockllm/beta"] and panel.n_items == 6
    assert np.isnan(panel.scores).all()
    (warning,) = [n for n in notes if "fewer epochs" in n]
    assert warning.startswith(f"warning: {log}: 6 of the 6 samples hold fewer epochs than the run's 3 ")
    assert "(1 to 2 written before the run stopped): they are missing (NaN)" in warning


def test_complete_samples_of_a_stopped_multi_epoch_run_keep_inspects_score(tmp_path: Path) -> None:
    """The finished ``Epochs(3, "mode")`` log of ``logs/epochs_mode`` as a run stopped in its third epoch
    (its reductions and results left out, status ``started``, the third epoch of q5 and q6 not written):
    the samples with all 3 epochs get inspect's own reduced score (reduced here), q5 and q6 are missing."""
    name = next(k for k in LOGS_EXPECTED if k.startswith("epochs_mode/"))
    raw = load_log(LOGS / name)
    samples = [s for _, s in raw.samples if not (s["id"] in ("q5", "q6") and s["epoch"] == 3)]
    header = {k: v for k, v in raw.header.items() if k not in ("results", "reductions")}
    target = tmp_path / "stopped.json"
    target.write_text(json.dumps({**header, "status": "started", "samples": samples}))
    notes: list[str] = []
    panel = read_inspect(target, notes=notes)
    reduced = LOGS_EXPECTED[name]["reductions"]["match/mode"]
    items = [k[1] for k in panel.item_keys]
    want = [np.nan if i in ("q5", "q6") else _as_float(reduced[i]) for i in items]
    np.testing.assert_array_equal(panel.scores[0], want)
    assert [_as_float(reduced[i]) for i in ("q5", "q6")] == [1.0, 1.0]
    assert any(
        f"warning: {target}: 2 of the 6 samples hold fewer epochs than the run's 3" in n for n in notes
    )


# --- defect 4: a dict score's aggregate ------------------------------------------------------------------


@pytest.mark.parametrize("key", ["exact", "len"])
def test_dict_score_checked_against_its_own_keys_aggregate(key: str) -> None:
    """inspect reports ``exact/mean`` 0.333 and ``len/mean`` 1.0; each key's mean equals its own
    aggregate, with no warning (``--metric len`` was compared with ``exact``'s 0.333 before)."""
    (log,) = _logs("dict_score")
    exp = EXPECTED[log.relative_to(EXTRA).as_posix()]
    notes: list[str] = []
    panel = read_inspect(log, metric=key, notes=notes)
    assert float(np.nanmean(panel.scores)) == pytest.approx(exp["metrics"][f"{key}/None"]["mean"], abs=1e-12)
    reduced = exp["reductions"]["dict_scorer/None"]
    np.testing.assert_array_equal(panel.scores[0], [reduced[k[1]][key] for k in panel.item_keys])
    assert not any("aggregate beside it" in n for n in notes)


def test_dict_score_key_aggregate_that_differs_is_warned(tmp_path: Path) -> None:
    """The check is made against the chosen key's entry: ``len``'s aggregate set to 0.9 is warned of."""
    (log,) = _logs("dict_score")
    raw = load_log(log)
    header = json.loads(json.dumps(raw.header))
    (entry,) = [e for e in header["results"]["scores"] if e["name"] == "len"]
    entry["metrics"]["mean"]["value"] = 0.9
    target = tmp_path / "log.json"
    target.write_text(
        json.dumps({**header, "samples": [s for _, s in raw.samples], "reductions": raw.reductions})
    )
    notes: list[str] = []
    read_inspect(target, metric="len", notes=notes)
    (warning,) = [n for n in notes if "aggregate beside it" in n]
    assert "the per-item mean is 1 but the tool's own aggregate beside it says 0.9" in warning
    notes = []
    read_inspect(target, metric="exact", notes=notes)
    assert not any("aggregate beside it" in n for n in notes)


def test_metric_on_single_scores_is_warned() -> None:
    notes: list[str] = []
    log = LOGS / next(k for k in LOGS_EXPECTED if k.startswith("ordinary/"))
    read_inspect(log, metric="exact", notes=notes)
    assert any(
        n.startswith(f"warning: {log}: `metric` 'exact' is not used: the values of scorer 'match'")
        for n in notes
    )


# --- defect 5: re-runs that are not retries ---------------------------------------------------------------


def test_rerun_conflict_says_how_to_proceed() -> None:
    """Two ordinary runs of alpha on arith in one folder (each its own ``task_id``) that answered
    differently: still an error, which now names both runs and the ways out."""
    first, second = _logs("rerun")
    assert (
        EXPECTED[first.relative_to(EXTRA).as_posix()]["task_id"]
        != (EXPECTED[second.relative_to(EXTRA).as_posix()]["task_id"])
    )
    with pytest.raises(InputError) as err:
        read_inspect(EXTRA / "rerun")
    message = str(err.value)
    assert "conflicting duplicate scores for model 'mockllm/alpha', benchmark 'arith'" in message
    assert "model 'mockllm/alpha' ran 'arith' in 2 separate runs here" in message
    assert str(first) in message and str(second) in message
    assert "--keep-all-runs (keep_all_runs=True) keeps each run as its own model run" in message
    assert "\n" not in message


def test_rerun_keep_all_runs_gives_each_run_inspects_scores() -> None:
    runs = [EXPECTED[p.relative_to(EXTRA).as_posix()] for p in _logs("rerun")]
    notes: list[str] = []
    panel = read_inspect(EXTRA / "rerun", keep_all_runs=True, notes=notes)
    assert panel.model_ids == [f"mockllm/alpha (run {e['created']})" for e in runs]
    for row, exp in enumerate(runs):
        reduced = exp["reductions"]["match/None"]
        np.testing.assert_array_equal(panel.scores[row], [_as_float(reduced[k[1]]) for k in panel.item_keys])
        assert float(np.nanmean(panel.scores[row])) == pytest.approx(exp["metrics"]["match/None"]["accuracy"])


def test_generator_folders_of_one_model_with_keep_all_runs(tmp_path: Path) -> None:
    """alpha's ordinary run and its ``Epochs(2, "max")`` run in one folder (as ``generate.py`` lays out its
    output): an error naming the way out, then one model run per log with ``keep_all_runs``."""
    ordinary = next(
        k for k in LOGS_EXPECTED if k.startswith("ordinary/") and LOGS_EXPECTED[k]["model"].endswith("alpha")
    )
    epochs = next(k for k in LOGS_EXPECTED if k.startswith("epochs_max/"))
    for name in (ordinary, epochs):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(LOGS / name, tmp_path / name)
    with pytest.raises(InputError, match=r"in 2 separate runs here .*--keep-all-runs"):
        read_inspect(tmp_path)
    panel = read_inspect(tmp_path, keep_all_runs=True)
    runs = sorted(f"mockllm/alpha (run {LOGS_EXPECTED[k]['created']})" for k in (ordinary, epochs))
    assert sorted(panel.model_ids) == runs
    for row, model in enumerate(panel.model_ids):
        name = next(k for k in (ordinary, epochs) if LOGS_EXPECTED[k]["created"] in model)
        ((key, metrics),) = LOGS_EXPECTED[name]["metrics"].items()
        assert float(np.nanmean(panel.scores[row])) == pytest.approx(metrics["accuracy"], abs=1e-12)


# --- defect 10: partial runs ------------------------------------------------------------------------------


def test_unfinished_log_alone_has_partial_coverage_and_a_warning_in_json(tmp_path: Path) -> None:
    """The run planned 6 samples and wrote 3: the panel has 6 items, 3 missing (coverage 0.5, not 1), and
    the warning, naming the file, is in ``--json``'s warnings."""
    (log,) = (LOGS / "unfinished").glob("*.eval")
    out = tmp_path / "p.parquet"
    result = CliRunner().invoke(app, ["inspect", str(log), "-o", str(out), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    panel = Panel.load(out)
    assert panel.n_items == 6 and int(np.isfinite(panel.scores).sum()) == 3
    assert any(
        w.startswith(f"{log}: log status 'started'") and "the 3 it lacks are missing (NaN)" in w
        for w in data["warnings"]
    )


def test_limited_run_is_warned() -> None:
    (log,) = _logs("limited")
    exp = EXPECTED[log.relative_to(EXTRA).as_posix()]
    notes: list[str] = []
    panel = read_inspect(log, notes=notes)
    assert panel.n_items == exp["n_samples"] == 3
    assert float(np.nanmean(panel.scores)) == pytest.approx(exp["metrics"]["match/None"]["accuracy"])
    assert any(
        n.startswith(f"warning: {log}: a run with limit 3: 3 of the dataset's 6 samples were evaluated")
        for n in notes
    )


# --- defect 9: a truncated .eval --------------------------------------------------------------------------


def test_truncated_eval_is_said_to_be_truncated(tmp_path: Path) -> None:
    (log,) = _logs("limited")
    cut = tmp_path / log.name
    cut.write_bytes(log.read_bytes()[: log.stat().st_size // 2])
    with pytest.raises(FormatError, match=r"the \.eval archive looks truncated") as err:
        read_inspect(cut)
    assert str(err.value).startswith(f"{cut}: ")
