"""``benchsift compress`` and ``benchsift estimate`` through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import typer
from scipy import stats as scipy_stats
from typer.testing import CliRunner

from benchsift.cli._common import BenchsiftGroup
from benchsift.cli.compress import compress_command, estimate_command
from benchsift.compression.full_score import CHOSEN_FROM, METHODS
from benchsift.simulate import SimulationConfig, simulate_panel

# The two commands registered as in ``benchsift.cli.main`` (same group class, so errors exit with code 2),
# without importing every other command group.
app = typer.Typer(cls=BenchsiftGroup, pretty_exceptions_enable=False)
app.command("compress")(compress_command)
app.command("estimate")(estimate_command)
runner = CliRunner()


def _embedding_file(keys: pd.DataFrame, vectors: np.ndarray, path: Path) -> Path:
    frame = keys.reset_index(drop=True).copy()
    for j in range(vectors.shape[1]):
        frame[f"e{j}"] = vectors[:, j].astype(np.float64)
    frame.to_parquet(path, index=False)
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("cli")
    sim = simulate_panel(SimulationConfig.small(n_benchmarks=8, n_categories=4, items_per_benchmark=150), 0)
    sim.panel.save(root / "panel.parquet")
    keys = sim.panel.items[["benchmark", "item"]]
    return {
        "root": root,
        "panel": root / "panel.parquet",
        "vl": _embedding_file(keys, sim.truth.embeddings_vl, root / "vl.parquet"),
        "txt": _embedding_file(keys, sim.truth.embeddings_text, root / "txt.parquet"),
    }


@pytest.fixture(scope="module")
def compressed(files: dict[str, Path]) -> tuple[Path, dict[str, object]]:
    out = files["root"] / "suite"
    res = runner.invoke(
        app,
        [
            "compress",
            str(files["panel"]),
            "--retention",
            "0.05",
            "--k",
            "2",
            "--seed",
            "3",
            "--out",
            str(out),
            "--embeddings",
            str(files["vl"]),
            "--text-embeddings",
            str(files["txt"]),
            "--frontier",
            "--json",
        ],
    )
    assert res.exit_code == 0, res.output
    return out, json.loads(res.stdout)


def test_compress_json(compressed: tuple[Path, dict[str, object]]) -> None:
    out, summary = compressed
    # the keys the issue names, with these exact names
    assert {"stages", "categories_selected", "n_items_suite", "rho_suite_vs_stage0"} <= summary.keys()
    stages = summary["stages"]
    assert isinstance(stages, list) and [s["stage"] for s in stages] == [0, 1, 2, 3]
    for s in stages:
        assert {"stage", "items_in", "items_out", "rho"} <= s.keys()
    assert len(summary["categories_selected"]) == 2  # type: ignore[arg-type]
    items = pd.read_csv(out / "items.csv", dtype=str, keep_default_na=False)
    assert summary["n_items_suite"] == len(items)
    assert 0.0 < summary["rho_suite_vs_stage0"] <= 1.0  # type: ignore[operator]
    assert (out / "frontier.csv").is_file()
    meta = json.loads((out / "suite.json").read_text())
    assert meta["parameters"]["seed"] == 3


def test_estimate_json_reproduces_a_reference_model(
    compressed: tuple[Path, dict[str, object]], tmp_path: Path
) -> None:
    out, _ = compressed
    ref = pd.read_csv(out / "reference_scores.csv", dtype={"benchmark": str, "item": str})
    model = ref.columns[2]
    long = pd.DataFrame(
        {"model": "newbie", "benchmark": ref["benchmark"], "item": ref["item"], "score": ref[model]}
    )
    new_path = tmp_path / "new.csv"
    long.dropna().to_csv(new_path, index=False)
    est = runner.invoke(app, ["estimate", str(out), str(new_path), "--n-boot", "200", "--json"])
    assert est.exit_code == 0, est.output
    doc = json.loads(est.stdout)
    (row,) = doc["models"]
    assert row["model"] == "newbie"
    suite_scores = pd.read_csv(out / "models.csv").set_index("model")["suite_score"]
    # the score on the suite, labelled as such, is the reference model's own suite score
    assert row["suite"]["overall"] == pytest.approx(suite_scores[model])
    assert row["suite"]["rank_ci"][0] <= row["suite"]["rank"] <= row["suite"]["rank_ci"][1]
    # the full-benchmark estimate: every benchmark of the panel (8), the method chosen at compress time
    meta = json.loads((out / "suite.json").read_text())
    assert doc["method"] == meta["full_score"]["method"]
    assert doc["method"] in (*CHOSEN_FROM, "average")  # the headline: the average, or the choice among them
    assert len(row["estimates"]) == 8
    for e in [*row["estimates"].values(), row["overall"]]:
        assert e["interval"][0] <= e["score"] <= e["interval"][1]
    assert row["rank_interval"][0] <= row["rank"] <= row["rank_interval"][1]


def test_a_stronger_model_is_warned_on_the_terminal_and_in_json(
    compressed: tuple[Path, dict[str, object]], tmp_path: Path
) -> None:
    """A model right on every suite item is beyond every reference model: at the edge, its estimate the mean
    of the headline estimator's and the stratified suite mean's, and the warning says so on the terminal
    and in --json (issue 31, point 3)."""
    out, _ = compressed
    ref = pd.read_csv(out / "reference_scores.csv", dtype={"benchmark": str, "item": str})
    long = pd.DataFrame({"model": "top", "benchmark": ref["benchmark"], "item": ref["item"], "score": 1.0})
    new_path = tmp_path / "top.csv"
    long.to_csv(new_path, index=False)
    res = runner.invoke(app, ["estimate", str(out), str(new_path), "--n-boot", "50", "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    (row,) = doc["models"]
    assert row["at_edge"] is True and row["estimator"].endswith("+stratified")  # (pirt beyond the range)
    (said,) = [w for w in doc["warnings"] if w.startswith("1 model(s) ('top')")]
    assert "1 of them scores above every reference model" in said and "mean of the two" in said
    shown = runner.invoke(app, ["estimate", str(out), str(new_path), "--n-boot", "50"])
    assert shown.exit_code == 0, shown.output
    text = " ".join(shown.output.split())  # the console wraps long lines
    assert "1 model(s) ('top')" in text and "1 of them scores above every reference model" in text


def test_estimate_table_output(compressed: tuple[Path, dict[str, object]], tmp_path: Path) -> None:
    out, _ = compressed
    items = pd.read_csv(out / "items.csv", dtype=str, keep_default_na=False)
    long = items[["benchmark", "item"]].assign(model="ones", score=np.ones(len(items)))
    path = tmp_path / "new.csv"
    long.to_csv(path, index=False)
    res = runner.invoke(app, ["estimate", str(out), str(path), "--n-boot", "100"])
    assert res.exit_code == 0, res.output
    assert "ones" in res.stdout
    # all right on every suite item: beyond every reference model, said on the terminal and in --json
    assert "extrapolates" in " ".join(res.output.split())
    doc = json.loads(
        runner.invoke(app, ["estimate", str(out), str(path), "--n-boot", "100", "--json"]).stdout
    )
    assert doc["models"][0]["extrapolating"] is True
    assert any("extrapolates" in w for w in doc["warnings"])


def test_estimate_prints_one_rank_per_model(
    compressed: tuple[Path, dict[str, object]], tmp_path: Path
) -> None:
    out, _ = compressed
    items = pd.read_csv(out / "items.csv", dtype=str, keep_default_na=False)
    rng = np.random.default_rng(0)
    long = pd.concat(
        [items[["benchmark", "item"]].assign(model=m, score=(rng.random(len(items)) < p) * 1.0) for m, p in
         (("mid", 0.5), ("low", 0.3))]
    )  # fmt: skip
    path = tmp_path / "new.csv"
    long.to_csv(path, index=False)
    res = runner.invoke(app, ["estimate", str(out), str(path), "--n-boot", "100"], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    n_ref = json.loads(
        runner.invoke(app, ["estimate", str(out), str(path), "--n-boot", "100", "--json"]).stdout
    )["n_reference"]
    for model in ("mid", "low"):
        rows = [line for line in res.stdout.splitlines() if f" {model} " in line]
        # rows in the estimate's table (one per benchmark, then overall) and in the suite-mean table;
        # one of them, the estimate's overall row, shows a rank
        assert len(rows) >= 2, res.stdout
        assert sum(f" / {n_ref + 1}" in line for line in rows) == 1, rows


def test_compress_holdout_writes_the_check(files: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "held"
    args = ["compress", str(files["panel"]), "--retention", "0.1", "--floor", "0", "--k", "4"]
    res = runner.invoke(app, [*args, "--holdout", "0.4", "--seed", "1", "--out", str(out), "--json"])
    assert res.exit_code == 0, res.output
    h = json.loads(res.stdout)["holdout"]
    doc = json.loads((out / "holdout.json").read_text())
    assert doc == h
    per = pd.read_csv(out / "holdout.csv")
    models = pd.read_csv(out / "models.csv")["model"].tolist()
    assert h["n_held"] == len(per) and h["n_build"] == len(models)
    assert not set(per["model"]) & set(models)  # the suite was built without the held-out models
    # the numbers recomputed from the per-model table
    assert h["mae"] == pytest.approx(np.mean(np.abs(per["estimate"] - per["truth"])))
    covered = (per["low"] <= per["truth"]) & (per["truth"] <= per["high"])
    assert h["coverage"] == pytest.approx(covered.mean())
    assert h["random_subset"]["mae"] == pytest.approx(
        np.mean(np.abs(per["random_subset_mean"] - per["truth"]))
    )
    # per model: at the edge of the build models or not, and which estimator gave the headline; the edge
    # and the other models' MAE and coverage recomputed from the table
    # (an edge model above every build model on its stratified suite mean: "METHOD+stratified")
    base = {str(e).removesuffix("+stratified") for e in per["estimator"]}
    assert per["at_edge"].dtype == bool and per["below_edge"].dtype == bool and base <= set(METHODS)
    edges = per["at_edge"] | per["below_edge"]  # (the lower edge's blend: "METHOD+stratified" too)
    assert all(e in METHODS or edges[j] for j, e in enumerate(per["estimator"]))
    for part, rows in (("edge", per["at_edge"]), ("not_edge", ~per["at_edge"])):
        assert h[part]["n"] == int(rows.sum())
        if rows.any():
            assert h[part]["mae"] == pytest.approx(np.mean(np.abs(per["estimate"] - per["truth"])[rows]))
            assert h[part]["coverage"] == pytest.approx(covered[rows].mean())
            width = (per["high"] - per["low"])[rows].mean()
            assert h[part]["mean_width"] == pytest.approx(width)
        else:
            assert h[part]["mae"] is None and h[part]["coverage"] is None
    # held-out rank fidelity: scipy's Spearman on the per-model table
    assert h["rank_rho"] == pytest.approx(scipy_stats.spearmanr(per["estimate"], per["truth"]).statistic)
    assert h["random_subset"]["rank_rho"] == pytest.approx(
        scipy_stats.spearmanr(per["random_subset_mean"], per["truth"]).statistic
    )
    # the same split for the same seed; named models instead of a fraction
    again = runner.invoke(
        app, [*args, "--holdout", "0.4", "--seed", "1", "--out", str(tmp_path / "h2"), "--json"]
    )
    assert json.loads(again.stdout)["holdout"] == h
    names = ",".join(per["model"][:3])
    named = runner.invoke(app, [*args, "--holdout-models", names, "--out", str(tmp_path / "h3"), "--json"])
    assert named.exit_code == 0, named.output
    assert [m["model"] for m in json.loads(named.stdout)["holdout"]["models"]] == list(per["model"][:3])
    bad = runner.invoke(app, [*args, "--holdout-models", "nobody", "--out", str(tmp_path / "h4")])
    assert bad.exit_code == 2 and "nobody" in bad.output and not (tmp_path / "h4").exists()


def test_compress_tables_without_embeddings_and_errors(files: dict[str, Path], tmp_path: Path) -> None:
    res = runner.invoke(app, ["compress", str(files["panel"]), "--k", "2", "--out", str(tmp_path / "s")])
    assert res.exit_code == 0, res.output
    assert "suite written to" in res.stdout and "PRIMEBench compression" in res.stdout
    assert "no-stage3" in res.stdout and "in-panel" in res.stdout  # the Table 12 row, the honest label
    bad = runner.invoke(
        app, ["compress", str(files["panel"]), "--retention", "0", "--out", str(tmp_path / "t")]
    )
    assert bad.exit_code == 2
    assert "--retention: expected a fraction in (0, 1]" in bad.output and not (tmp_path / "t").exists()
    # more categories than there are: all kept, said in a warning (as validate's end-to-end protocol)
    many = runner.invoke(app, ["compress", str(files["panel"]), "--k", "9", "--out", str(tmp_path / "w")])
    assert many.exit_code == 0, many.output
    assert "warning: k=9 exceeds the" in many.stdout and "Stage 3 keeps all of them" in many.stdout
    missing = runner.invoke(app, ["compress", str(tmp_path / "nope.parquet"), "--out", str(tmp_path / "u")])
    assert missing.exit_code == 2 and "no such file" in missing.output
    est = runner.invoke(app, ["estimate", str(tmp_path / "nowhere"), str(files["panel"])])
    assert est.exit_code == 2 and "not a directory" in est.output
