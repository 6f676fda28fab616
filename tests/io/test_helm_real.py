"""Importer ``helm`` on runs written by crfm-helm itself (``tests/fixtures/io/helm/real``).

``generate.py`` there ran ``helm-run`` and ``helm-summarize`` (version in ``out/VERSION``) offline on HELM's
built-in ``simple_mcqa`` and ``simple_classification`` scenarios for two scripted models and HELM's own
``simple/model1``; each run's ``stats.json`` holds HELM's own aggregate per stat and split, which the
panel's per-model means must equal.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner
from warned import warned

from benchsift.cli.importers import app
from benchsift.errors import InputError
from benchsift.io import read_helm
from benchsift.io.helm import benchmark_of, main_metric

OUT = Path(__file__).resolve().parents[1] / "fixtures" / "io" / "helm" / "real" / "out"
SUITE = OUT / "benchmark_output" / "runs" / "v1"
RUNS = sorted(p for p in SUITE.iterdir() if p.is_dir())


def _reported(run: Path, stat: str) -> float:
    """HELM's own aggregate of ``stat`` on the test split, unperturbed (``stats.json``)."""
    for s in json.loads((run / "stats.json").read_text()):
        if s["name"] == {"name": stat, "split": "test"}:
            return float(s["mean"])
    raise AssertionError(f"{run.name}: no {stat}")


def _spec(run: Path) -> dict:  # type: ignore[type-arg]
    return json.loads((run / "run_spec.json").read_text())  # type: ignore[no-any-return]


def test_fixture_is_helms() -> None:
    assert OUT.joinpath("VERSION").read_text().startswith("crfm-helm 0.5.")
    assert len(RUNS) == 5


@pytest.mark.parametrize("stat", ["exact_match", "quasi_exact_match", "prefix_exact_match"])
def test_suite_means_equal_helm_stats(stat: str) -> None:
    notes: list[str] = []
    panel = read_helm(SUITE, metric=stat, notes=notes)
    assert panel.model_ids == ["scripted/alpha", "scripted/beta", "simple/model1"]
    assert panel.benchmarks == ["simple_classification", "simple_mcqa"]
    bench = panel.items["benchmark"].to_numpy()
    checked = 0
    for run in RUNS:
        spec = _spec(run)
        row = panel.model_ids.index(spec["adapter_spec"]["model"])
        cols = bench == benchmark_of(spec["name"])
        assert np.isfinite(panel.scores[row, cols]).sum() == 10
        assert float(np.mean(panel.scores[row, cols])) == pytest.approx(_reported(run, stat), abs=1e-12)
        checked += 1
    assert checked == 5
    assert not any("stats.json reports" in n for n in notes)
    # the scripted models are right on some and wrong on others; HELM's simple/model1 echoes the prompt
    assert 0 < _reported(SUITE / "simple_mcqa:model=scripted_alpha", stat) < 1
    assert _reported(SUITE / "simple_mcqa:model=simple_model1", stat) == 0.0


def test_default_metric_is_exact_match_with_a_warning_when_the_schema_has_no_main_metric() -> None:
    notes: list[str] = []
    panel = read_helm(SUITE / "simple_mcqa:model=scripted_beta", notes=notes)
    assert panel.model_ids == ["scripted/beta"] and panel.benchmarks == ["simple_mcqa"]
    assert float(np.mean(panel.scores)) == pytest.approx(
        _reported(SUITE / "simple_mcqa:model=scripted_beta", "exact_match")
    )
    assert any(
        n.startswith("warning: simple_mcqa:model=scripted_beta: no main metric for groups ['simple_mcqa']")
        for n in notes
    )


def test_main_metric_from_helms_schema() -> None:
    """The schema.json helm-summarize wrote: HELM's main metric and split per run group."""
    schema = json.loads((SUITE / "schema.json").read_text())
    assert main_metric(schema, ["mmlu"]) == ("exact_match", "test")
    assert main_metric(schema, ["boolq"]) == ("quasi_exact_match", "valid")
    assert main_metric(schema, ["narrative_qa"]) == ("f1_score", "test")
    assert main_metric(schema, ["simple_mcqa"]) is None


def test_main_metric_of_the_schema_is_the_default(tmp_path: Path) -> None:
    """A run whose group the schema knows takes its main metric (here the run's groups renamed to HELM's
    'imdb', whose main metric is quasi_exact_match on split valid; the run has only 'test': so test)."""
    suite = tmp_path / "v1"
    shutil.copytree(SUITE / "simple_classification:model=scripted_alpha", suite / "run")
    shutil.copy(SUITE / "schema.json", suite / "schema.json")
    spec = _spec(suite / "run")
    spec["groups"] = ["imdb"]
    (suite / "run" / "run_spec.json").write_text(json.dumps(spec))
    notes: list[str] = []
    read_helm(suite, notes=notes)
    assert any("stat 'quasi_exact_match' on split 'test'" in n for n in notes)
    assert not any(n.startswith("warning") for n in notes)


def test_benchmark_name_drops_model_arguments() -> None:
    assert benchmark_of("mmlu:subject=anatomy,method=multiple_choice_joint,model=openai_gpt2") == (
        "mmlu:subject=anatomy,method=multiple_choice_joint"
    )
    assert benchmark_of("simple_mcqa:model=scripted_alpha") == "simple_mcqa"
    assert benchmark_of("boolq:model=a_b,model_deployment=c_d,data_augmentation=canonical") == (
        "boolq:data_augmentation=canonical"
    )


def test_aggregate_mismatch_is_a_warning_naming_both_numbers(tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(SUITE / "simple_mcqa:model=scripted_alpha", run)
    stats = json.loads((run / "stats.json").read_text())
    for s in stats:
        if s["name"] == {"name": "exact_match", "split": "test"}:
            s["mean"] = 0.25
    (run / "stats.json").write_text(json.dumps(stats))
    notes: list[str] = []
    read_helm(run, notes=notes)
    mean = _reported(SUITE / "simple_mcqa:model=scripted_alpha", "exact_match")
    assert any(f"mean of 'exact_match' is {mean:.6g} but HELM's stats.json reports 0.25" in n for n in notes)


def test_bare_file_name_from_inside_the_run_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(SUITE / "simple_mcqa:model=scripted_beta")
    panel = warned(read_helm, "per_instance_stats.json", expect=["no main metric"])
    assert panel.model_ids == ["scripted/beta"] and panel.benchmarks == ["simple_mcqa"]


def test_unknown_metric_is_refused() -> None:
    with pytest.raises(InputError, match="no per-instance stat 'f1_score'"):
        read_helm(SUITE, metric="f1_score")


def test_cli_lists_helm() -> None:
    result = CliRunner().invoke(app, ["--help"])
    assert result.exit_code == 0 and "helm" in result.output and "HELM runs" in result.output
