"""Files a reader opens beside (or above) the file it was handed are read only inside the folder the user
gave (``benchsift.io._walk.side_file``): a run spec, scenario state, results json or aggregate that is a
symbolic link out of that folder is never read (the run is refused, or the file is left unread with a
warning naming it); HELM's ``schema.json`` above a run folder given by name is outside it and not read;
an aggregate nested too deep is a warning, not a crash; a FIFO beside a file is never opened."""

from __future__ import annotations

import json
import os
import shutil
import threading
from pathlib import Path

import pandas as pd
import pytest

from benchsift.errors import FormatError, InputError
from benchsift.io import read_eee, read_helm, read_lm_eval, read_vlmevalkit

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "io"
HELM_RUN = (
    FIX / "helm" / "real" / "out" / "benchmark_output" / "runs" / "v1" / "simple_mcqa:model=scripted_alpha"
)
LM_RUN = FIX / "lm_eval" / "real" / "logs" / "tree" / "org__alpha"
LM_DATE = "2026-12-01T12-08-08.495379"
LM_LEGACY = FIX / "lm_eval" / "real" / "logs" / "legacy" / "alpha"
EEE_RUN = FIX / "eee" / "real" / "data" / "arith_gen" / "org" / "beta"
EEE_ID = "4190c85e-4d90-407a-82bf-37d627ff3cbd"
SECRET = "OUTSIDE_SECRET"

needs_symlinks = pytest.mark.skipif(os.name == "nt", reason="symbolic links and FIFOs")


def _link(link: Path, target: Path) -> None:
    link.symlink_to(os.path.relpath(target, link.parent))


def _helm_secrets(outside: Path) -> None:
    """A run spec, scenario state and stats of the same run, each changed to tell where it was read."""
    outside.mkdir(parents=True, exist_ok=True)
    spec = json.loads((HELM_RUN / "run_spec.json").read_text())
    spec["adapter_spec"]["model"] = SECRET
    (outside / "run_spec.json").write_text(json.dumps(spec))
    state = json.loads((HELM_RUN / "scenario_state.json").read_text())
    for r in state["request_states"]:
        r["instance"]["input"]["text"] = SECRET
    (outside / "scenario_state.json").write_text(json.dumps(state))
    stats = json.loads((HELM_RUN / "stats.json").read_text())
    for s in stats:
        s["mean"] = 0.123456
    (outside / "stats.json").write_text(json.dumps(stats))


@needs_symlinks
@pytest.mark.parametrize("given", ["suite", "run"])
def test_helm_run_spec_linked_outside_the_folder_refuses_the_run(tmp_path: Path, given: str) -> None:
    _helm_secrets(tmp_path / "outside")
    run = tmp_path / "suite" / "run"
    run.mkdir(parents=True)
    shutil.copy(HELM_RUN / "per_instance_stats.json", run)
    for name in ("run_spec.json", "scenario_state.json"):
        _link(run / name, tmp_path / "outside" / name)
    with pytest.raises(InputError, match=r"run_spec\.json links outside the folder .* \(not read\)") as err:
        read_helm(tmp_path / given if given == "suite" else run, notes=[])
    assert SECRET not in str(err.value) and "\n" not in str(err.value)


@needs_symlinks
def test_helm_scenario_state_and_stats_linked_outside_are_not_read(tmp_path: Path) -> None:
    _helm_secrets(tmp_path / "outside")
    suite = tmp_path / "suite"
    shutil.copytree(HELM_RUN, suite / "run")
    for name in ("scenario_state.json", "stats.json"):
        (suite / "run" / name).unlink()
        _link(suite / "run" / name, tmp_path / "outside" / name)
    notes: list[str] = []
    panel = read_helm(suite, notes=notes)
    assert panel.model_ids == ["scripted/alpha"]
    assert "question" not in panel.items.columns  # the scenario state was not read
    for name in ("scenario_state.json", "stats.json"):
        assert any(
            n.startswith(f"warning: skipped {suite / 'run' / name}: links outside the folder {suite}")
            for n in notes
        )
    assert not any("0.123456" in n for n in notes)  # the stats.json outside was not compared


@needs_symlinks
def test_helm_files_linked_inside_the_folder_are_read(tmp_path: Path) -> None:
    """A link whose target lies inside the folder given is read as before."""
    suite = tmp_path / "suite"
    run = suite / "run"
    (suite / "store").mkdir(parents=True)
    run.mkdir()
    shutil.copy(HELM_RUN / "per_instance_stats.json", run)
    for name in ("run_spec.json", "scenario_state.json", "stats.json"):
        shutil.copy(HELM_RUN / name, suite / "store")
        _link(run / name, suite / "store" / name)
    notes: list[str] = []
    panel = read_helm(suite, notes=notes)
    assert panel.model_ids == ["scripted/alpha"] and panel.items["question"].notna().all()
    assert not any("outside" in n for n in notes)


def _helm_run_under_a_schema(tmp_path: Path, main_name: str) -> Path:
    run = tmp_path / "suite" / "run"
    run.mkdir(parents=True)
    for name in ("per_instance_stats.json", "run_spec.json"):
        shutil.copy(HELM_RUN / name, run)
    schema = {"run_groups": [{"name": "simple_mcqa", "environment": {"main_name": main_name}}]}
    (tmp_path / "suite" / "schema.json").write_text(json.dumps(schema))
    return run


def test_helm_schema_above_a_run_folder_given_is_not_read(tmp_path: Path) -> None:
    run = _helm_run_under_a_schema(tmp_path, "OUTSIDE_SCHEMA_METRIC")
    notes: list[str] = []
    panel = read_helm(run, notes=notes)  # the schema's metric would be refused: it was not read
    assert panel.model_ids == ["scripted/alpha"]
    (warning,) = [n for n in notes if "no main metric" in n]
    assert f"{(tmp_path / 'suite' / 'schema.json').resolve()} is outside" in warning
    assert "give the suite folder that holds it" in warning and "used 'exact_match'" in warning
    # given the suite folder, the schema is inside it and read
    with pytest.raises(InputError, match="no per-instance stat 'OUTSIDE_SCHEMA_METRIC'"):
        read_helm(tmp_path / "suite", notes=[])


def test_helm_schema_outside_named_in_the_error_when_it_is_needed(tmp_path: Path) -> None:
    run = _helm_run_under_a_schema(tmp_path, "prefix_exact_match")
    entries = json.loads((run / "per_instance_stats.json").read_text())
    for e in entries:  # no exact_match to fall back on: the main metric is needed
        e["stats"] = [s for s in e["stats"] if s["name"]["name"] != "exact_match"]
    (run / "per_instance_stats.json").write_text(json.dumps(entries))
    with pytest.raises(
        InputError, match=r"no main metric known .*give the suite folder that holds it"
    ) as err:
        read_helm(run)
    assert "\n" not in str(err.value)
    panel = read_helm(tmp_path / "suite")  # the suite folder: its schema names the metric
    assert panel.model_ids == ["scripted/alpha"]


def _lm_eval_outside(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    results = json.loads((LM_RUN / f"results_{LM_DATE}.json").read_text())
    results["model_name"] = SECRET
    (outside / f"results_{LM_DATE}.json").write_text(json.dumps(results))
    model = tmp_path / "root" / "m"
    model.mkdir(parents=True)
    shutil.copy(LM_RUN / f"samples_arith_mc_{LM_DATE}.jsonl", model)
    _link(model / f"results_{LM_DATE}.json", outside / f"results_{LM_DATE}.json")
    return model


@needs_symlinks
@pytest.mark.parametrize("given", ["folder", "file"])
def test_lm_eval_results_json_linked_outside_is_not_read(tmp_path: Path, given: str) -> None:
    model = _lm_eval_outside(tmp_path)
    notes: list[str] = []
    path = tmp_path / "root" if given == "folder" else model / f"samples_arith_mc_{LM_DATE}.jsonl"
    panel = read_lm_eval(path, notes=notes)
    assert panel.model_ids == ["m"]  # the folder's name, not the results json's model_name
    linked = model / f"results_{LM_DATE}.json"
    assert [n for n in notes if n.startswith(f"warning: skipped {linked}: links outside the folder")]


@needs_symlinks
def test_lm_eval_legacy_results_json_linked_outside_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    results = json.loads((LM_LEGACY / "results.json").read_text())
    results["config"]["model_args"] = f"pretrained={SECRET}"
    (outside / "results.json").write_text(json.dumps(results))
    run = tmp_path / "root" / "alpha"
    run.mkdir(parents=True)
    shutil.copy(LM_LEGACY / "pretrained__org__alpha_arith_mc.jsonl", run)
    _link(run / "results.json", outside / "results.json")
    notes: list[str] = []
    panel = read_lm_eval(tmp_path / "root", notes=notes)
    assert SECRET not in panel.model_ids and panel.model_ids == ["alpha"]
    assert any(n.startswith(f"warning: skipped {run / 'results.json'}: links outside") for n in notes)


@needs_symlinks
def test_eee_aggregate_linked_outside_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    doc = json.loads((EEE_RUN / f"{EEE_ID}.json").read_text())
    for r in doc["evaluation_results"]:
        r["score_details"]["score"] = 0.424242
    (outside / f"{EEE_ID}.json").write_text(json.dumps(doc))
    root = tmp_path / "root"
    root.mkdir()
    shutil.copy(EEE_RUN / f"{EEE_ID}_samples.jsonl", root)
    _link(root / f"{EEE_ID}.json", outside / f"{EEE_ID}.json")
    notes: list[str] = []
    read_eee(root, notes=notes)
    assert not any("0.424242" in n for n in notes)
    assert any(n.startswith(f"warning: skipped {root / (EEE_ID + '.json')}: links outside") for n in notes)
    # the same aggregate copied inside is read, and its score named
    (root / f"{EEE_ID}.json").unlink()
    shutil.copy(outside / f"{EEE_ID}.json", root)
    notes = []
    read_eee(root, notes=notes)
    assert any("0.424242" in n for n in notes)


def test_eee_aggregate_nested_too_deep_is_a_warning(tmp_path: Path) -> None:
    shutil.copy(EEE_RUN / f"{EEE_ID}_samples.jsonl", tmp_path)
    (tmp_path / f"{EEE_ID}.json").write_text("[" * 200_000 + "]" * 200_000)
    notes: list[str] = []
    panel = read_eee(tmp_path, notes=notes)
    assert panel.model_ids == ["org/beta"]
    (warning,) = [n for n in notes if "aggregate beside it is not checked" in n]
    assert "nested more than 256 levels" in warning and "\n" not in warning


@needs_symlinks
def test_vlmevalkit_acc_csv_linked_outside_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    pd.DataFrame({"split": ["none"], "Overall": [0.424242]}).to_csv(outside / "M_MMStar_acc.csv", index=False)
    root = tmp_path / "root" / "M"
    root.mkdir(parents=True)
    result = root / "M_MMStar_gpt-4.1-mini_result.csv"
    pd.DataFrame({"index": [0, 1, 2], "hit": [1, 0, 1]}).to_csv(result, index=False)
    _link(root / "M_MMStar_acc.csv", outside / "M_MMStar_acc.csv")
    notes: list[str] = []
    read_vlmevalkit(tmp_path / "root", notes=notes)
    assert not any("0.424242" in n for n in notes)
    assert any(n.startswith(f"warning: skipped {root / 'M_MMStar_acc.csv'}: links outside") for n in notes)
    (root / "M_MMStar_acc.csv").unlink()  # the same file inside the folder is read, and its number named
    shutil.copy(outside / "M_MMStar_acc.csv", root)
    notes = []
    read_vlmevalkit(tmp_path / "root", notes=notes)
    assert any("0.424242" in n for n in notes)


def _no_hang(read: object, *args: object, **kwargs: object) -> None:
    """Run ``read`` in a thread; fail (instead of hanging the suite) when it blocks on a FIFO."""
    failure: list[BaseException] = []

    def run() -> None:
        try:
            read(*args, **kwargs)  # type: ignore[operator]
        except BaseException as exc:  # noqa: BLE001 - reported below
            failure.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(60)
    if worker.is_alive():
        for fifo in [a for a in args if isinstance(a, Path)]:  # unblock the reader: open the FIFOs' ends
            for p in fifo.rglob("*") if fifo.is_dir() else [fifo]:
                if p.is_fifo():
                    with open(p, "w"):
                        pass
        pytest.fail("a FIFO beside the file was opened")
    if failure:
        raise failure[0]


@needs_symlinks
def test_fifos_beside_the_files_are_never_opened(tmp_path: Path) -> None:
    eee = tmp_path / "eee"
    eee.mkdir()
    shutil.copy(EEE_RUN / f"{EEE_ID}_samples.jsonl", eee)
    os.mkfifo(eee / f"{EEE_ID}.json")
    _no_hang(read_eee, eee, notes=[])
    lm = tmp_path / "lm" / "m"
    lm.mkdir(parents=True)
    shutil.copy(LM_RUN / f"samples_arith_mc_{LM_DATE}.jsonl", lm)
    os.mkfifo(lm / f"results_{LM_DATE}.json")
    _no_hang(read_lm_eval, tmp_path / "lm", notes=[])
    helm = tmp_path / "helm" / "run"
    helm.mkdir(parents=True)
    for name in ("per_instance_stats.json", "run_spec.json"):
        shutil.copy(HELM_RUN / name, helm)
    for name in ("scenario_state.json", "stats.json"):
        os.mkfifo(helm / name)
    os.mkfifo(tmp_path / "helm" / "schema.json")
    _no_hang(read_helm, tmp_path / "helm", notes=[])
    (helm / "run_spec.json").unlink()
    os.mkfifo(helm / "run_spec.json")
    with pytest.raises(FormatError, match="no run_spec.json beside it"):
        _no_hang(read_helm, helm / "per_instance_stats.json")
