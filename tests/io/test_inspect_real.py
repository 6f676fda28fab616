"""Importer ``inspect`` on logs written by inspect-ai itself (``tests/fixtures/io/inspect/real``).

The logs were made by ``generate.py`` there (inspect-ai version in ``logs/VERSION``) with inspect's
``mockllm`` model scripted per question; ``logs/expected.json`` is what inspect's own ``read_eval_log``
reported for each log (metrics and the reduced score per sample). Every test compares benchsift's panel
with those numbers of the tool's.
"""

from __future__ import annotations

import json
import os
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

from benchsift.errors import FormatError, InputError
from benchsift.io import read_inspect
from benchsift.io.inspect_logs import LETTER_VALUES, load_log, reduce_epochs

# .ci/side_tools.sh points this at logs just regenerated with the current inspect-ai (format drift check)
REAL = Path(
    os.environ.get("BENCHSIFT_INSPECT_LOGS")
    or Path(__file__).resolve().parents[1] / "fixtures" / "io" / "inspect" / "real" / "logs"
)
EXPECTED: dict[str, dict] = json.loads((REAL / "expected.json").read_text())


def _log(sub: str) -> Path:
    """The (first) log in the fixture folder ``sub``."""
    return REAL / sorted(k for k in EXPECTED if k.startswith(sub + "/"))[0]


def _as_float(value: object) -> float:
    return LETTER_VALUES[value] if isinstance(value, str) else float(value)  # type: ignore[arg-type]


def test_fixture_logs_are_zstd_eval_archives() -> None:
    """The default .eval format of this inspect-ai has zstd members (zip method 93)."""
    with zipfile.ZipFile(_log("ordinary")) as zf:
        assert {i.compress_type for i in zf.infolist()} == {93}
    assert REAL.joinpath("VERSION").read_text().startswith("inspect-ai 0.3.")


@pytest.mark.parametrize("name", sorted(k for k, v in EXPECTED.items() if v["metrics"]))
def test_means_equal_inspect_metric(name: str) -> None:
    """Per-model mean == the accuracy inspect reported; per-sample scores == inspect's reductions."""
    exp = EXPECTED[name]
    notes: list[str] = []
    panel = read_inspect(REAL / name, notes=notes)
    assert panel.model_ids == [exp["model"]]
    assert panel.benchmarks == [exp["task"]]
    ((key, metrics),) = exp["metrics"].items()
    assert abs(float(np.nanmean(panel.scores[0])) - metrics["accuracy"]) < 1e-9
    reduced = exp["reductions"][key]
    items = [k[1] for k in panel.item_keys]
    np.testing.assert_array_equal(panel.scores[0], [_as_float(reduced[i]) for i in items])
    reducer = key.split("/")[1]
    if reducer != "None":
        assert any(f"reducer {reducer!r}, inspect's reductions" in n for n in notes)


def test_max_reducer_differs_from_mean() -> None:
    """Epochs(2, "max"): inspect reports 0.5 where averaging the epochs would give 1/3."""
    panel = read_inspect(_log("epochs_max"))
    assert np.nanmean(panel.scores) == pytest.approx(0.5, abs=1e-12)
    raw = load_log(_log("epochs_max"))
    per_epoch = [_as_float(s["scores"]["match"]["value"]) for _, s in raw.samples]
    assert np.mean(per_epoch) == pytest.approx(1 / 3)


@pytest.mark.parametrize("sub", ["epochs_max", "epochs_mode"])
def test_reduced_here_when_log_has_no_reductions(tmp_path: Path, sub: str) -> None:
    """Without ``reductions`` (as in an unfinished log) the configured reducer is applied by benchsift's
    port of inspect's reducers and gives inspect's own reduced scores."""
    raw = load_log(_log(sub))
    log = {**raw.header, "samples": [s for _, s in raw.samples]}
    log.pop("reductions", None)
    target = tmp_path / "no_reductions.json"
    target.write_text(json.dumps(log))
    notes: list[str] = []
    panel = read_inspect(target, notes=notes)
    ((key, reduced),) = EXPECTED[_log(sub).relative_to(REAL).as_posix()]["reductions"].items()
    items = [k[1] for k in panel.item_keys]
    np.testing.assert_array_equal(panel.scores[0], [_as_float(reduced[i]) for i in items])
    assert any("reduced here" in n for n in notes)


def test_all_errored_log_gives_missing_scores_in_multi_log_import() -> None:
    notes: list[str] = []
    files = [*sorted((REAL / "ordinary").glob("*.eval")), _log("all_errored")]
    panel = read_inspect(files, notes=notes)
    # models in the order of the files; the two ordinary logs' names start with the second they were
    # written in, then a random id, so alpha's and beta's order is not fixed when regenerated (side tools)
    assert sorted(panel.model_ids) == ["mockllm/alpha", "mockllm/beta", "mockllm/gamma"]
    assert panel.model_ids[2] == "mockllm/gamma"
    assert np.isnan(panel.scores[2]).all()
    ordinary = {v["model"]: v for k, v in EXPECTED.items() if k.startswith("ordinary/")}
    for row, model in enumerate(panel.model_ids[:2]):
        acc = ordinary[model]["metrics"]["match/None"]["accuracy"]
        assert abs(np.nanmean(panel.scores[row]) - acc) < 1e-9
    assert EXPECTED[_log("all_errored").relative_to(REAL).as_posix()]["n_errored"] == 6
    assert any(n.startswith("warning: ") and "every sample errored" in n and "gamma" in n for n in notes)


def test_unfinished_log_warns_and_keeps_its_samples() -> None:
    """The 3 samples written are kept; the 3 the run planned (``eval.dataset.sample_ids``) but never
    wrote are missing (NaN), so the coverage says the run is partial."""
    exp = EXPECTED[_log("unfinished").relative_to(REAL).as_posix()]
    assert exp["status"] == "started"
    notes: list[str] = []
    panel = read_inspect(_log("unfinished"), notes=notes)
    assert exp["n_samples"] == 3
    assert panel.n_items == 6
    assert int(np.isfinite(panel.scores).sum()) == 3
    assert any(
        n.startswith(f"warning: {_log('unfinished')}: ")
        and "status 'started'" in n
        and "3 of the task's 6 samples" in n
        and "the 3 it lacks are missing (NaN)" in n
        for n in notes
    )


def test_directory_import_and_skips(tmp_path: Path) -> None:
    root = tmp_path / "logs"
    shutil.copytree(REAL / "ordinary", root / "ordinary")
    shutil.copytree(REAL / "all_errored", root / "errored")
    (root / "logs.json").write_text(json.dumps({"some.eval": {"eval": None}}))
    (root / "ordinary" / "broken.eval").write_bytes(_log("ordinary").read_bytes()[:3000])
    notes: list[str] = []
    panel = read_inspect(root, notes=notes)
    assert sorted(panel.model_ids) == ["mockllm/alpha", "mockllm/beta", "mockllm/gamma"]
    assert any(n.startswith("skipped ") and "logs.json" in n for n in notes)
    assert any(n.startswith("warning: skipped ") and "broken.eval" in n for n in notes)
    assert any("read 3 inspect log file(s), skipped 2" in n for n in notes)
    with pytest.raises(FormatError, match=r"broken\.eval: the \.eval archive looks truncated"):
        read_inspect(root / "ordinary" / "broken.eval")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputError, match="no readable inspect log in this folder"):
        read_inspect(empty)


def test_damaged_zstd_member_is_one_line_error(tmp_path: Path) -> None:
    data = bytearray(_log("ordinary").read_bytes())
    with zipfile.ZipFile(_log("ordinary")) as zf:
        info = zf.getinfo("header.json")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    data[start + 20 : start + 40] = b"\x00" * 20
    bad = tmp_path / "damaged.eval"
    bad.write_bytes(bytes(data))
    with pytest.raises(FormatError, match=r"damaged\.eval, member header\.json: "):
        read_inspect(bad)


def test_reducer_choice(tmp_path: Path) -> None:
    raw = load_log(_log("epochs_max"))
    log = {**raw.header, "samples": [s for _, s in raw.samples], "reductions": raw.reductions}
    extra = json.loads(json.dumps(raw.reductions[0]))
    extra["reducer"] = "mean"
    log["reductions"] = [*raw.reductions, extra]
    target = tmp_path / "two_reducers.json"
    target.write_text(json.dumps(log))
    with pytest.raises(
        InputError, match=r"several epoch reducers \['max', 'mean'\]; choose one with `reducer`"
    ):
        read_inspect(target)
    assert np.nanmean(read_inspect(target, reducer="max").scores) == pytest.approx(0.5)
    with pytest.raises(InputError, match="unknown epoch reducer 'median'"):
        read_inspect(target, reducer="median")


@pytest.mark.parametrize(
    ("values", "reducer", "expected"),
    [
        (["C", "I", "I"], "mean", 1 / 3),
        (["C", "I", "I"], "max", 1.0),
        (["C", "I", "I"], "mode", 0.0),
        ([0.2, 0.9, 0.4], "median", 0.4),
        (["C", "I", float("nan")], "majority", float("nan")),  # 1 of 3 votes is no majority
        (["C", "C", float("nan")], "majority", 1.0),
        (["C", "I", "C"], "at_least_2", 1.0),
        (["C", "I", "I"], "at_least_2", 0.0),
        # pass@2 with n=3, c=1: 1 - C(2,2)/C(3,2) = 1 - 1/3
        (["C", "I", "I"], "pass_at_2", 2 / 3),
        (["C", "C", "I"], "pass_at_2", 1.0),
        # pass^2 with n=3, c=2: C(2,2)/C(3,2)
        (["C", "C", "I"], "pass_k_2", 1 / 3),
        ([float("nan"), float("nan")], "mean", float("nan")),
    ],
)
def test_reduce_epochs_hand_computed(values: list[object], reducer: str, expected: float) -> None:
    got = reduce_epochs(values, reducer, "here", None)
    if np.isnan(expected):
        assert np.isnan(got)
    else:
        assert got == pytest.approx(expected, abs=1e-12)


def test_unknown_reducer_without_reductions() -> None:
    with pytest.raises(InputError, match="epoch reducer 'best_of' is not one of inspect's built-in"):
        reduce_epochs(["C"], "best_of", "here", None)


def _logs_of(sub: str) -> list[tuple[str, dict]]:
    """(relative path, expected entry) of every log in ``sub``, oldest first (``eval.created``)."""
    found = [(k, v) for k, v in EXPECTED.items() if k.startswith(sub + "/")]
    return sorted(found, key=lambda kv: kv[1]["created"])


@pytest.mark.parametrize("sub", ["retried", "eval_set"])
def test_retry_supersedes_the_failed_log_of_its_task(sub: str) -> None:
    """A failed log and its retry (``eval_retry``; an eval set's second attempt) in one folder: the two have
    the same ``eval.task_id``; the import takes the newest, as inspect's eval set does, and gives inspect's
    own accuracy and per-sample scores of that log; a warning names the superseded log."""
    (failed, old), (retry, new) = _logs_of(sub)
    assert old["task_id"] == new["task_id"]
    assert (old["status"], new["status"]) == ("error", "success")
    notes: list[str] = []
    panel = read_inspect(REAL / sub, notes=notes)
    assert panel.model_ids == [new["model"]]
    assert float(np.nanmean(panel.scores[0])) == pytest.approx(
        new["metrics"]["match/None"]["accuracy"], abs=1e-12
    )
    reduced = new["reductions"]["match/None"]
    np.testing.assert_array_equal(panel.scores[0], [_as_float(reduced[k[1]]) for k in panel.item_keys])
    (warning,) = [n for n in notes if "superseded" in n]
    assert warning.startswith(f"warning: {REAL / failed}: superseded by {Path(retry).name}")
    assert any("read 1 inspect log file(s)" in n for n in notes)


def test_keep_all_runs_makes_each_attempt_a_model_run() -> None:
    (failed, old), (retry, new) = _logs_of("retried")
    notes: list[str] = []
    panel = read_inspect(REAL / "retried", keep_all_runs=True, notes=notes)
    runs = [f"{new['model']} (run {e['created']})" for e in (old, new)]
    assert panel.model_ids == runs
    # the failed run: its scored samples only (5 logged, 2 errored: missing); the retry: all six
    assert int(np.isfinite(panel.scores[0]).sum()) == old["n_samples"] - old["n_errored"]
    assert float(np.nanmean(panel.scores[1])) == pytest.approx(new["metrics"]["match/None"]["accuracy"])
    assert not any("superseded" in n for n in notes)


def test_given_files_of_one_task_supersede_too() -> None:
    """Naming both logs (not their folder) is the same choice."""
    (failed, _), (retry, new) = _logs_of("retried")
    notes: list[str] = []
    panel = read_inspect([REAL / failed, REAL / retry], notes=notes)
    assert panel.model_ids == [new["model"]]
    assert any("superseded" in n for n in notes)


def test_per_sample_mean_checked_against_the_log_metric(tmp_path: Path) -> None:
    """Every inspect log reproduces its own accuracy (no warning); a log whose results say another number
    gets a warning naming both."""
    notes: list[str] = []
    for name, exp in EXPECTED.items():
        if exp["metrics"]:
            read_inspect(REAL / name, notes=notes)
    assert not any("aggregate beside it" in n for n in notes)
    name = next(k for k in EXPECTED if k.startswith("json_format/"))
    log = json.loads((REAL / name).read_text())
    (entry,) = log["results"]["scores"]
    true = entry["metrics"]["accuracy"]["value"]
    entry["metrics"]["accuracy"]["value"] = 0.9
    (tmp_path / "log.json").write_text(json.dumps(log))
    notes = []
    read_inspect(tmp_path / "log.json", notes=notes)
    (warning,) = [n for n in notes if "aggregate beside it" in n]
    assert f"the per-item mean is {true:.10g} but the tool's own aggregate beside it says 0.9" in warning
