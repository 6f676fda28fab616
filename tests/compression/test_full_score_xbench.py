"""Cross-benchmark full-score estimates (benchsift.compression.full_score_xbench).

Checked against scikit-learn's Ridge and explicit leave-one-out refits, and on simulated two-benchmark 2PL
panels with known truth: where the benchmarks measure different abilities (``xbench`` must beat the single
ability of p-IRT) and where a benchmark the new model already has a full score on carries the signal
(``known`` must beat the estimate from a few items alone).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import typer
from sklearn.linear_model import Ridge
from typer.testing import CliRunner

from benchsift.cli._common import BenchsiftGroup
from benchsift.cli.compress import estimate_command
from benchsift.compression import CompressionConfig
from benchsift.compression.full_score import FullScoreModel, fit_full_score
from benchsift.compression.full_score_xbench import _loo_line, known_scores, ridge_fit_predict
from benchsift.errors import InputError
from benchsift.panel import Panel
from benchsift.workflows.compress import compress_to_suite


def _two_bench(n_models: int, n_items: int, rho: float, seed: int) -> Panel:
    """Benchmarks A and B, each a 2PL on its own ability; the abilities correlate ``rho``."""
    rng = np.random.default_rng(seed)
    cov = np.array([[1.0, rho], [rho, 1.0]])
    theta = rng.multivariate_normal([0.0, 0.0], cov, size=n_models)
    cols = []
    for k in range(2):
        a = rng.uniform(0.7, 2.0, n_items)
        b = rng.normal(0.0, 1.0, n_items)
        p = 1.0 / (1.0 + np.exp(-a[None, :] * (theta[:, [k]] - b[None, :])))
        cols.append((rng.random(p.shape) < p).astype(float))
    items = pd.DataFrame(
        {"benchmark": np.repeat(["A", "B"], n_items), "item": [str(i) for i in range(2 * n_items)]}
    )
    return Panel(np.hstack(cols), [f"m{j}" for j in range(n_models)], items)


def _truth(panel: Panel) -> np.ndarray:
    bench = panel.items["benchmark"].to_numpy()
    return np.column_stack([panel.scores[:, bench == b].mean(axis=1) for b in ("A", "B")])


def test_ridge_fit_predict_matches_sklearn_on_finite_rows() -> None:
    rng = np.random.default_rng(3)
    F = rng.standard_normal((40, 4)) * [1.0, 3.0, 0.2, 5.0] + [0.0, 1.0, -2.0, 4.0]
    T = F @ [0.2, -0.1, 1.0, 0.05] + 0.1 * rng.standard_normal(40)
    T2 = np.column_stack([T, T[::-1]])
    T2[[3, 7, 11], 0] = np.nan  # a model without the benchmark's full score does not count
    Fte = rng.standard_normal((6, 4))
    preds, state = ridge_fit_predict(F, T2, Fte, penalties=(2.0,))
    for t in range(2):
        ok = np.isfinite(T2[:, t])
        mu, sd = F[ok].mean(axis=0), F[ok].std(axis=0)
        sk = Ridge(alpha=2.0).fit((F[ok] - mu) / sd, T2[ok, t])
        np.testing.assert_allclose(preds[0][:, t], sk.predict((Fte - mu) / sd), atol=1e-10)
        np.testing.assert_allclose(state["coef"][0, t], sk.coef_, atol=1e-10)


def test_loo_line_residuals_are_explicit_refits() -> None:
    rng = np.random.default_rng(5)
    Z = rng.standard_normal((25, 2))
    y = 0.5 + Z @ [0.3, -0.2] + 0.05 * rng.standard_normal(25)
    coef, loo, lam = _loo_line(Z, y)
    mu, sd = Z.mean(axis=0), Z.std(axis=0)
    Zs = (Z - mu) / sd
    for i in (0, 9, 24):  # refit without model i (same standardisation, same penalty): its residual
        keep = np.arange(25) != i
        sk = Ridge(alpha=lam).fit(Zs[keep], y[keep])
        assert loo[i] == pytest.approx(y[i] - sk.predict(Zs[[i]])[0], abs=1e-10)
    full = Ridge(alpha=lam).fit(Zs, y)
    np.testing.assert_allclose(coef[0] + Z @ coef[1:], full.predict(Zs), atol=1e-10)


@pytest.fixture(scope="module")
def independent() -> tuple[FullScoreModel, Panel, np.ndarray]:
    """Two benchmarks on unrelated abilities: one 2PL ability mixes them."""
    panel = _two_bench(200, 150, rho=0.0, seed=11)
    rng = np.random.default_rng(0)
    suite = np.sort(np.r_[rng.choice(150, 20, replace=False), 150 + rng.choice(150, 20, replace=False)])
    build = panel.subset(models=np.arange(120))
    held = panel.subset(models=np.arange(120, 200))
    fs = fit_full_score(build, suite, n_folds=5, random_state=0)
    return fs, held, suite


def test_xbench_beats_the_single_ability_when_benchmarks_differ(
    independent: tuple[FullScoreModel, Panel, np.ndarray],
) -> None:
    fs, held, suite = independent
    est = fs.predict(held.scores[:, suite], held.model_ids)
    truth = _truth(held)
    mae = {m: np.abs(est.score[m][:, :2] - truth).mean(axis=0) for m in ("pirt", "ridge", "stack", "xbench")}
    # each benchmark: the per-benchmark abilities beat the one shared ability (the 2PL's ability follows
    # one benchmark more than the other), on the two together by more than 30 % (measured: 0.060 against
    # 0.105), and the regression on every suite response (ridge) and the stack
    assert (mae["xbench"] < mae["pirt"]).all(), mae
    assert mae["xbench"].mean() < 0.7 * mae["pirt"].mean(), mae
    assert mae["xbench"].mean() < min(mae["ridge"].mean(), mae["stack"].mean()), mae
    # its out-of-fold error is the reference models' too (the choice among CHOSEN_FROM uses it)
    assert fs.cv_mae["xbench"][:2].mean() < fs.cv_mae["pirt"][:2].mean()
    # stored and read back: the same estimates
    back = FullScoreModel.from_dict(json.loads(json.dumps(fs.to_dict())))
    again = back.predict(held.scores[:, suite], held.model_ids)
    np.testing.assert_allclose(again.score["xbench"], est.score["xbench"], atol=1e-12)


def test_known_score_of_a_related_benchmark_improves_the_estimate() -> None:
    panel = _two_bench(200, 150, rho=0.97, seed=12)
    rng = np.random.default_rng(1)
    suite = np.sort(150 + rng.choice(150, 4, replace=False))  # only four items of B in the suite
    build, held = panel.subset(models=np.arange(120)), panel.subset(models=np.arange(120, 200))
    fs = fit_full_score(build, suite, n_folds=5, random_state=0)
    truth = _truth(held)
    X = held.scores[:, suite]
    plain = fs.predict(X, held.model_ids)
    withk = fs.predict(X, held.model_ids, known={"A": truth[:, 0]})
    m = fs.method
    err_plain = np.abs(plain.score[m][:, 1] - truth[:, 1]).mean()
    err_known = np.abs(withk.score[m][:, 1] - truth[:, 1]).mean()
    assert err_known < 0.7 * err_plain, (err_known, err_plain)  # measured 0.060 against 0.103
    # the known benchmark is its known score; overall the mean of the two
    np.testing.assert_allclose(withk.score[m][:, 0], truth[:, 0])
    np.testing.assert_allclose(withk.low[m][:, 0], truth[:, 0])
    np.testing.assert_allclose(withk.score[m][:, 2], withk.score[m][:, :2].mean(axis=1))
    cover = np.mean((withk.low[m][:, 1] <= truth[:, 1]) & (truth[:, 1] <= withk.high[m][:, 1]))
    assert cover >= 0.85
    # narrower than without the known score
    assert np.mean(withk.high[m][:, 1] - withk.low[m][:, 1]) < np.mean(
        plain.high[m][:, 1] - plain.low[m][:, 1]
    )


def test_known_scores_parsed_and_refused() -> None:
    models = ["x", "y"]
    np.testing.assert_allclose(known_scores("A=0.5, B=0.25", models)["B"], [0.25, 0.25])
    frame = pd.DataFrame({"model": ["y"], "benchmark": ["A"], "score": [0.7]})
    got = known_scores(frame, models)["A"]
    assert np.isnan(got[0]) and got[1] == 0.7
    assert known_scores({"x": {"A": 0.1}}, models)["A"][0] == 0.1
    with pytest.raises(InputError, match=r"\[0, 1\]"):
        known_scores("A=61", models)
    with pytest.raises(InputError, match="not among the new models"):
        known_scores(pd.DataFrame({"model": ["z"], "benchmark": ["A"], "score": [0.5]}), models)
    with pytest.raises(InputError, match="NAME=SCORE"):
        known_scores("nonexistent-file.csv", models)


def _cli() -> typer.Typer:
    app = typer.Typer(cls=BenchsiftGroup, pretty_exceptions_enable=False)
    app.command("estimate")(estimate_command)
    app.command("noop")(lambda: None)  # two commands, so `estimate` is a subcommand as in benchsift
    return app


def test_cli_known_json(tmp_path: Path) -> None:
    panel = _two_bench(100, 150, rho=0.5, seed=13)
    cfg = CompressionConfig(retention=0.1, floor=0, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the compression's own notes are not under test here
        compress_to_suite(panel.subset(models=np.arange(80)), tmp_path / "suite", cfg)
    new = panel.subset(models=np.arange(80, 83))
    new.to_long().to_csv(tmp_path / "new.csv", index=False)
    pd.DataFrame({"model": new.model_ids, "benchmark": "A", "score": [0.2, 0.4, 0.6]}).to_csv(
        tmp_path / "known.csv", index=False
    )
    runner = CliRunner()
    base = ["estimate", str(tmp_path / "suite"), str(tmp_path / "new.csv"), "--n-boot", "50", "--json"]
    res = runner.invoke(_cli(), [*base, "--known", str(tmp_path / "known.csv")])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)["models"]
    assert [r["model"] for r in rows] == new.model_ids
    for row, v in zip(rows, [0.2, 0.4, 0.6], strict=True):
        a = row["estimates"]["A"]
        assert a["score"] == pytest.approx(v) and a["interval"] == [pytest.approx(v), pytest.approx(v)]
        assert row["overall"]["score"] == pytest.approx((v + row["estimates"]["B"]["score"]) / 2)
    pairs = runner.invoke(_cli(), [*base, "--known", "A=0.3"])
    assert pairs.exit_code == 0, pairs.output
    assert all(r["estimates"]["A"]["score"] == pytest.approx(0.3) for r in json.loads(pairs.stdout)["models"])
    bad = runner.invoke(_cli(), [*base, "--known", "MMMU=0.3"])
    assert bad.exit_code == 2
    assert "MMMU" in bad.output and "not a benchmark of the suite" in bad.output
    help_text = runner.invoke(_cli(), ["estimate", "--help"], env={"COLUMNS": "200"}).output
    assert "--known" in help_text


def test_one_benchmark_xbench_is_pirt_and_not_chosen() -> None:
    panel = _two_bench(80, 150, rho=0.5, seed=14).subset(items=np.arange(150))  # benchmark A only
    suite = np.arange(0, 150, 10)
    fs = fit_full_score(panel.subset(models=np.arange(60)), suite, n_folds=5, random_state=0)
    assert fs.method != "xbench" and fs.xbench is None
    est = fs.predict(panel.scores[60:, suite])
    np.testing.assert_allclose(est.score["xbench"], est.score["pirt"])


def test_known_with_only_one_benchmarks_items_answered() -> None:
    """A new model that answers only B's suite items and brings A's full score: the line is fitted on the
    reference models' estimates from B's items alone (not from the whole suite), and beats B's items alone."""
    panel = _two_bench(200, 150, rho=0.97, seed=15)
    rng = np.random.default_rng(2)
    suite = np.sort(np.r_[rng.choice(150, 15, replace=False), 150 + rng.choice(150, 5, replace=False)])
    build, held = panel.subset(models=np.arange(120)), panel.subset(models=np.arange(120, 200))
    fs = fit_full_score(build, suite, n_folds=5, random_state=0)
    truth = _truth(held)
    X = held.scores[:, suite].copy()
    X[:, :15] = np.nan  # A's suite items not run
    R = build.scores[:, suite]
    plain = fs.predict(X, reference=R)
    withk = fs.predict(X, reference=R, known={"A": truth[:, 0]})
    m = fs.method
    err_plain = np.abs(plain.score[m][:, 1] - truth[:, 1]).mean()
    err_known = np.abs(withk.score[m][:, 1] - truth[:, 1]).mean()
    assert err_known < 0.7 * err_plain, (err_known, err_plain)
    cover = np.mean((withk.low[m][:, 1] <= truth[:, 1]) & (truth[:, 1] <= withk.high[m][:, 1]))
    assert cover >= 0.85
    assert np.mean(withk.high[m][:, 1] - withk.low[m][:, 1]) < np.mean(
        plain.high[m][:, 1] - plain.low[m][:, 1]
    )


def test_xbench_choice_follows_the_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    # weakly related benchmarks (rho 0.3), seed 0 (seed 2 until the anchor weights shared their ties): xbench
    # has the lowest random-plus-strongest-fold error of CHOSEN_FROM, so it is the headline only when
    # XBENCH_IN_CHOICE lets it take part
    import benchsift.compression.full_score as fs

    monkeypatch.setattr(fs, "HEADLINE_AVERAGE", False)  # the choice itself is under test, not the average
    panel = _two_bench(40, 120, 0.3, 0)
    pos = np.sort(np.random.default_rng(0).choice(panel.n_items, 24, replace=False))
    off = fit_full_score(panel, pos, random_state=0, edge_estimator=True)
    assert off.method != "xbench" and off.edge_method != "xbench"
    strong = off.cv_mae_strong
    assert strong is not None
    err = {m: np.mean(off.cv_mae[m][:2]) + np.mean(strong[m][:2]) for m in fs.CHOSEN_FROM}
    assert min(err, key=lambda m: err[m]) == "xbench"
    monkeypatch.setattr(fs, "XBENCH_IN_CHOICE", True)
    on = fit_full_score(panel, pos, random_state=0, edge_estimator=True)
    assert on.method == "xbench"
    # beyond the reference abilities the headline falls back on p-IRT, as for ridge and stack
    assert on._headline_estimators(np.array([False, False]), np.array([True, False])) == ["pirt", "xbench"]
