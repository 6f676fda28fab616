"""The redundancy analyses count the models they use: a model with no score on the benchmark is no model of
the analysis (it was counted: a panel of three stacked benchmarks said "169 models" for MMT, which 137 of
them have, with the very rho values of the 137)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from benchsift import Panel
from benchsift.cli.main import app
from benchsift.redundancy import (
    benchmark_redundancy,
    dimension_redundancy,
    instance_redundancy,
    instance_redundancy_by_benchmark,
)

runner = CliRunner()
N_MODELS, UNSCORED_ON_B = 24, 6  # the last 6 models have no score on benchmark B


def _stacked() -> Panel:
    """Benchmarks A and B, 40 items each (two categories per benchmark); the last models have no B score."""
    rng = np.random.default_rng(7)
    ability = np.linspace(-2, 2, N_MODELS)[:, None]
    difficulty = rng.normal(size=(1, 80))
    scores = (rng.random((N_MODELS, 80)) < 1 / (1 + np.exp(-(ability - difficulty)))).astype(float)
    scores[N_MODELS - UNSCORED_ON_B :, 40:] = np.nan
    models = pd.DataFrame({"model": [f"m{i:02d}" for i in range(N_MODELS)], "condition": "image"})
    items = pd.DataFrame(
        {
            "benchmark": ["A"] * 40 + ["B"] * 40,
            "item": [str(j) for j in range(80)],
            "category": (["x"] * 20 + ["y"] * 20) * 2,
        }
    )
    return Panel(scores, models, items)


def test_instances_count_only_the_models_with_a_score_and_give_the_same_values() -> None:
    panel = _stacked()
    scored = panel.subset(models=np.arange(N_MODELS - UNSCORED_ON_B))
    kw = {"benchmark": "B", "repeats": 8, "metrics": "srcc,plcc", "random_state": 3}
    res, alone = instance_redundancy(panel, **kw), instance_redundancy(scored, **kw)
    assert res.n_models == alone.n_models == N_MODELS - UNSCORED_ON_B  # was 24
    assert res.to_dict()["n_models"] == 18 and res.selection.to_dict()["n_models"] == 18
    assert res.selection.models == [f"m{i:02d}" for i in range(18)]
    for m in ("srcc", "plcc"):
        np.testing.assert_array_equal(res.mean[m], alone.mean[m])
    assert "6 of 24 model(s) have no score on benchmark 'B' and are left out (18 used)" in res.notes
    assert instance_redundancy(panel, benchmark="A", repeats=4, random_state=3).n_models == N_MODELS


def test_each_benchmark_counts_its_own_models() -> None:
    res = instance_redundancy_by_benchmark(_stacked(), repeats=4, metrics="srcc", random_state=0)
    assert {b: r.n_models for b, r in res.per_benchmark.items()} == {"A": 24, "B": 18}


def test_benchmarks_count_the_models_in_a_correlation() -> None:
    panel = _stacked()
    scores = np.array(panel.scores)
    scores[0, :] = np.nan
    scores[0, :40] = 1.0  # m00: one benchmark only, so in no correlation of the pair (A, B)
    res = benchmark_redundancy(Panel(scores, panel.models, panel.items), metrics="srcc")
    assert res.n_models == N_MODELS - UNSCORED_ON_B - 1  # was 24
    assert res.to_dict()["n_models"] == 17 and "m00" not in res.selection.models
    assert any("7 of 24 model(s) with a score on fewer than 2" in n for n in res.notes)


def test_the_top_k_are_chosen_among_the_models_in_a_correlation() -> None:
    """m00 is scored on A only, all right there, so it ranks first on the overall mean; it is in no
    correlation, so it must not take one of the top 10 places (audit s32: "--top-k 50" used 49 models)."""
    from scipy.stats import spearmanr

    panel = _stacked()
    scores = np.array(panel.scores)
    scores[0, :] = np.nan
    scores[0, :40] = 1.0
    res = benchmark_redundancy(Panel(scores, panel.models, panel.items), metrics="srcc", top_k=10)
    with warnings.catch_warnings():  # m18-m23 have no B score: an empty mean, NaN
        warnings.simplefilter("ignore", RuntimeWarning)
        means = np.column_stack([np.nanmean(scores[:, :40], axis=1), np.nanmean(scores[:, 40:], axis=1)])
    eligible = np.flatnonzero(np.isfinite(means).all(axis=1))
    top = eligible[np.argsort(-means[eligible].mean(axis=1), kind="stable")[:10]]
    assert res.n_models == 10 and res.selection.models == [f"m{i:02d}" for i in top]
    rho = spearmanr(means[top, 0], means[top, 1]).statistic
    assert res.matrix["srcc"][0, 1] == pytest.approx(rho, abs=1e-12)
    said = "7 of 24 model(s) with a score on fewer than 2 of the 2 benchmarks left out before the K were"
    assert said + " chosen" in res.notes


def test_dimensions_count_the_models_with_a_score() -> None:
    res = dimension_redundancy(_stacked(), benchmark="B", metrics="srcc")
    assert res.n_models == 18 and res.to_dict()["n_models"] == 18


@pytest.fixture(scope="module")
def stacked_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("stacked") / "panel.parquet"
    _stacked().save(path)
    return path


def test_cli_header_and_json_say_the_models_used(stacked_file: Path) -> None:
    args = ["redundancy", "instances", str(stacked_file), "--benchmark", "B", "--repeats", "5"]
    plain = runner.invoke(app, [*args, "--metric", "srcc"], terminal_width=200, env={"COLUMNS": "200"})
    assert plain.exit_code == 0, plain.output
    assert "(all: 18 models, 40 items, T=5)" in plain.stdout
    js = runner.invoke(app, [*args, "--json"])
    assert js.exit_code == 0, js.output
    assert json.loads(js.stdout)["n_models"] == 18
    each = runner.invoke(
        app,
        ["redundancy", "instances", str(stacked_file), "--each-benchmark", "--repeats", "4", "--json"],
    )
    assert each.exit_code == 0, each.output
    per = json.loads(each.stdout)["per_benchmark"]
    assert {b: per[b]["n_models"] for b in ("A", "B")} == {"A": 24, "B": 18}
