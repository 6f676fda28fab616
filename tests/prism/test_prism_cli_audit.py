"""`benchsift prism audit` (PRISM-VLM Sec. 5.3 Table 7, App. F Table 21) and CLI edge cases of `score` /
`analyze`: the zero-axis error, the shared index multiset of the accuracy test, the domain figure."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import typer
from typer.testing import CliRunner, Result

from benchsift.cli._common import BenchsiftGroup
from benchsift.cli.prism import app as prism_app
from benchsift.prism.audit import cohen_kappa, cross_judge_audit
from benchsift.prism.bootstrap import accuracy_separation, replicate_weights
from benchsift.simulate.verdicts import arrays_to_table, simulate_verdict_arrays, simulate_verdicts

root = typer.Typer(cls=BenchsiftGroup, pretty_exceptions_enable=False)
root.add_typer(prism_app, name="prism")


def _invoke(*args: str) -> Result:
    return CliRunner().invoke(root, ["prism", *args])


@pytest.fixture(scope="module")
def judges(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """A primary verdict table, a second judge's table that randomises 90 % of the q verdicts (so q fails
    the admission rule), and a judge/human label table."""
    d = tmp_path_factory.mktemp("audit")
    levels = np.repeat(np.linspace(0.2, 0.8, 8)[:, None], 7, axis=1)
    arrays, _, _ = simulate_verdict_arrays(8, 600, levels=levels, random_state=0)
    rng = np.random.default_rng(1)
    scores = arrays.scores.copy()
    q = arrays.axis_index("q")
    noise = rng.random(scores.shape[:2]) < 0.9
    scores[:, :, q] = np.where(noise, rng.integers(0, 2, scores.shape[:2]), scores[:, :, q])
    other = dataclasses.replace(arrays, scores=scores)
    a, b = d / "primary.csv", d / "audit.parquet"
    arrays_to_table(arrays).to_csv(a, index=False)
    arrays_to_table(other).to_parquet(b)
    labels = pd.DataFrame(
        {"axis": ["q"] * 4 + ["h"] * 4, "judge": [1, 1, 0, 0, 1, 0, 1, 0], "human": [1, 0, 0, 0, 1, 0, 1, 0]}
    )
    lab = d / "labels.csv"
    labels.to_csv(lab, index=False)
    return a, b, lab


def test_audit_cross_judge_and_labels_json(judges: tuple[Path, Path, Path], tmp_path: Path) -> None:
    a, b, lab = judges
    out = tmp_path / "out"
    r = _invoke("audit", str(a), str(b), "--labels", str(lab), "--items", "150", "--json", "--out", str(out))
    assert r.exit_code == 0, r.output
    obj = json.loads(r.stdout)
    cj = obj["cross_judge"]
    assert set(cj) == {"axes", "overall", "threshold", "admitted_axes", "all_admitted"}
    assert set(cj["axes"]) == {"q", "if", "h", "mq", "sc", "c", "vis"}
    assert cj["axes"]["q"]["rho"] < 0.95 and not cj["axes"]["q"]["admitted"]
    assert cj["admitted_axes"] == ["if", "h", "mq", "sc", "c", "vis"] and cj["all_admitted"] is False
    assert all(v["n_items"] == 150 for v in cj["axes"].values())
    assert cj["threshold"] == 0.95
    # the library call on the same inputs gives the same table
    from benchsift.io.verdicts import build_arrays, load_verdicts

    lib = cross_judge_audit(build_arrays(load_verdicts(a)), build_arrays(load_verdicts(b)), 150, 0)
    assert cj["axes"]["q"]["rho"] == pytest.approx(lib.table.loc["q", "rho"])
    ha = obj["human_agreement"]
    assert set(ha) == {"q", "h", "overall"}
    assert ha["q"] == {"kappa": pytest.approx(0.5), "disagreement": pytest.approx(0.25), "n": 4}
    assert ha["overall"]["kappa"] == pytest.approx(
        cohen_kappa([1, 1, 0, 0, 1, 0, 1, 0], [1, 0, 0, 0, 1, 0, 1, 0])
    )
    assert (out / "result.json").exists() and (out / "cross_judge.csv").exists()
    assert (out / "human_agreement.csv").exists()
    # rich tables without --json
    r = _invoke("audit", str(a), str(b), "--items", "150")
    assert r.exit_code == 0 and "Cross-judge audit" in r.output and "NO" in r.output


def test_audit_threshold_and_errors(judges: tuple[Path, Path, Path], tmp_path: Path) -> None:
    a, b, lab = judges
    r = _invoke("audit", str(a), str(a), "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["cross_judge"]["all_admitted"] is True  # a judge agrees with itself
    r = _invoke("audit")
    assert r.exit_code == 2 and "two verdict tables" in r.output
    r = _invoke("audit", str(a))
    assert r.exit_code == 2 and "SECONDARY" in r.output
    bad = tmp_path / "bad.csv"
    pd.DataFrame({"axis": ["q"], "judge": [1]}).to_csv(bad, index=False)
    r = _invoke("audit", "--labels", str(bad))
    assert r.exit_code == 2 and "'human'" in r.output and "bad.csv" in r.output
    r = _invoke("audit", "--labels", str(lab), "--judge-col", "gpt5")
    assert r.exit_code == 2 and "'gpt5'" in r.output


def test_analyze_zero_axis_mean_is_a_clear_error(tmp_path: Path) -> None:
    p = tmp_path / "means.csv"
    pd.DataFrame(
        {"model": ["a", "b", "c"], "q": [0.5, 0.6, 0.7], "sc": [0.2, 0.0, 0.4], "h": [0.3, 0.5, 0.6]}
    ).to_csv(p, index=False)
    r = _invoke("analyze", "--axis-means", str(p), "--json")
    assert r.exit_code == 2
    assert "'b'" in r.output and "'sc'" in r.output and "mean 0" in r.output
    assert "inf" not in r.output.replace("undefined", "")


def test_score_json_shapes_shared_resamples_and_domain_figure(
    tmp_path: Path, check_summary_keys: Callable[..., None]
) -> None:
    sim = simulate_verdicts(5, 200, unanswered_rate=0.02, random_state=3)
    path = tmp_path / "v.csv"
    sim.table.to_csv(path, index=False)
    out = tmp_path / "out"
    r = _invoke("score", str(path), "--bootstrap", "150", "--seed", "4", "--json", "--out", str(out))
    assert r.exit_code == 0, r.output
    obj = json.loads(r.stdout)
    check_summary_keys(obj, set(sim.arrays.axes), set(sim.arrays.models), True)
    assert set(obj["axis_correlation_ci"]) == {"pearson", "spearman"}
    # App. E: the same index multiset is applied to every benchmark's plain accuracy
    W = replicate_weights(sim.arrays.n_items, 150, 4)
    q = sim.arrays.scores[:, :, sim.arrays.axis_index("q")]
    for b in ("bench0", "bench3"):
        cols = sim.arrays.benchmarks == b
        _, sep = accuracy_separation(q[:, cols], weights=W[:, cols])
        assert obj["accuracy_separation"]["q_by_benchmark"][b] == pytest.approx(sep.to_dict())
    assert set(obj["accuracy_separation"]["q_macro"]) == {"raw", "bh", "bonferroni"}
    # Sec. 5.1 nominal range: PScore's range over the macro-mean accuracy range, minus 1
    acc = np.stack(
        [np.nanmean(q[:, sim.arrays.benchmarks == b], axis=1) for b in np.unique(sim.arrays.benchmarks)]
    )
    macro = acc.mean(axis=0)
    ps = np.array(list(obj["pscore"].values()))
    expected = (ps.max() - ps.min()) / (macro.max() - macro.min()) - 1
    assert obj["range_widening"]["q_macro"] == pytest.approx(expected)
    per_range = np.mean(acc.max(axis=1) - acc.min(axis=1))
    assert obj["range_widening"]["q_by_benchmark_mean"] == pytest.approx(
        (ps.max() - ps.min()) / per_range - 1
    )
    figs = out / "figures"
    for stem in ("profile", "axis_correlation", "pscore_forest", "domain_correlation"):
        assert (figs / f"{stem}.png").stat().st_size > 0 and (figs / f"{stem}.svg").exists()


def test_analyze_weighted_pscore_option() -> None:
    """App. E.1 "Reweighting": doubling h and if (Eq. 3) on Table 2 keeps Spearman ~0.99 (paper)."""
    table2 = Path(__file__).resolve().parents[1] / "fixtures" / "prism" / "table2.csv"
    r = _invoke("analyze", "--axis-means", str(table2), "--weights", "h=2,if=2", "--json")
    assert r.exit_code == 0, r.output
    w = json.loads(r.stdout)["weighted_pscore"]
    assert w["weights"] == {"q": 1.0, "if": 2.0, "h": 2.0, "mq": 1.0, "sc": 1.0, "c": 1.0, "vis": 1.0}
    row = (
        pd.read_csv(table2).set_index("model").loc["Gemini 3 Flash", ["q", "if", "h", "mq", "sc", "c", "vis"]]
    )
    s = row.to_numpy(float)
    wv = np.array([1, 2, 2, 1, 1, 1, 1.0])
    assert w["pscore"]["Gemini 3 Flash"] == pytest.approx(wv.sum() / (wv / s).sum())
    assert w["spearman_vs_harmonic"] == pytest.approx(0.99, abs=0.005) and w["top"][0] == "Gemini 3 Flash"
    for bad, msg in (("h2", "axis=weight"), ("zz=2", "unknown axis"), ("h=-1", "non-negative")):
        r = _invoke("analyze", "--axis-means", str(table2), "--weights", bad)
        assert r.exit_code == 2 and msg in r.output, (bad, r.output)
