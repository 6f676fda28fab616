"""The adaptive estimate's interval (benchsift.adaptive.interval): the model-based variance by hand and
against the error of the estimator in simulated worlds with a known truth, the split-conformal scale by hand,
the calibration end to end on a world where strong models beat the bank's curve, the bank file and the CLI."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit
from typer.testing import CliRunner

from benchsift.adaptive import (
    ItemBank,
    NextItems,
    fit_bank,
    load_bank,
    next_items,
    replay_final,
    simulate_adaptive,
)
from benchsift.adaptive.design import weakest_first
from benchsift.adaptive.interval import INTERVAL_BUDGETS, estimate_variance, interval_scale
from benchsift.cli.main import app
from benchsift.errors import FormatError
from benchsift.panel import Panel
from benchsift.stats.means import nan_mean


def _world(n_models: int, n_items: int, boost: float, seed: int) -> np.ndarray:
    """0/1 responses of a 2PL world (a ~ U(0.4, 2), b ~ N(0, 1), theta ~ N(0, 1)) where a model above ability
    0.8 gains ``boost`` x (theta - 0.8) logits on the low-discrimination items (a < 0.9): the strong models
    beat any 2PL curve fitted on the others."""
    rng = np.random.default_rng(seed)
    a, b = rng.uniform(0.4, 2.0, n_items), rng.normal(0.0, 1.0, n_items)
    th = rng.standard_normal(n_models)
    p = expit(a * (th[:, None] - b) + boost * np.maximum(th[:, None] - 0.8, 0.0) * (a < 0.9))
    return (rng.random(p.shape) < p).astype(float)


def _panel(x: np.ndarray, prefix: str = "m") -> Panel:
    items = pd.DataFrame({"benchmark": "B", "item": [str(i) for i in range(x.shape[1])]})
    return Panel(x, [f"{prefix}{j}" for j in range(x.shape[0])], items)


def test_estimate_variance_by_hand() -> None:
    """Two benchmarks, three models: one with a sample and a misfit, one whose misfit is 0, one without sample
    items answered; each term of the module docstring's formula summed in plain loops."""
    rng = np.random.default_rng(3)
    groups = [np.arange(0, 6), np.arange(6, 10)]
    expected = rng.uniform(0.1, 0.9, (3, 10))
    slope = rng.uniform(0.0, 0.3, (3, 10))
    X = rng.integers(0, 2, (3, 10)).astype(float)
    X[0, [1, 2, 7]] = np.nan
    X[1, [0, 3, 4, 8, 9]] = np.nan
    X[2, [5, 6]] = np.nan
    sd = np.array([0.3, 0.1, 0.5])
    sample = np.zeros((3, 10), dtype=bool)
    sample[0, [0, 3, 6, 9]] = True
    sample[1, [1, 2, 6]] = True
    sample[2, [1, 5]] = (
        True  # item 5 unanswered: one sample item answered in the first benchmark, none in the second
    )
    misfit = np.array([[0.004, 0.002], [0.0, 0.003], [0.001, 0.005]])
    residual = np.array([0.2, 0.25])
    got = estimate_variance(expected, slope, X, groups, sd, sample, misfit, residual)
    want = np.zeros((3, 3))
    for j in range(3):
        own, shared = [], []
        for g, cols in enumerate(groups):
            size = len(cols)
            bern = sum(expected[j, i] * (1 - expected[j, i]) for i in cols if np.isnan(X[j, i])) / size**2
            d = sum(slope[j, i] for i in cols if np.isnan(X[j, i])) / size
            u = sum(np.isnan(X[j, i]) for i in cols) / size
            k = sum(sample[j, i] and not np.isnan(X[j, i]) for i in cols)
            tau2 = misfit[j, g]
            if k == 0:
                left = tau2
            elif tau2 == 0:
                left = 0.0
            else:
                v = residual[g] / k
                left = tau2 * v / (tau2 + v)
            own.append(bern + u * u * left)
            shared.append(d)
            want[j, g] = own[-1] + d * d * sd[j] ** 2
        want[j, 2] = sum(own) / 4 + (sum(shared) / 2) ** 2 * sd[j] ** 2
    np.testing.assert_allclose(got, want, rtol=1e-13)
    # without a measured misfit only the Bernoulli and ability parts
    plain = estimate_variance(expected, slope, X, groups, sd)
    assert (plain <= got + 1e-15).all() and (plain[:, :2] < got[:, :2]).any()


@pytest.mark.parametrize("k_sample", [0, 40])
def test_the_variance_is_the_estimators_error_variance_in_a_world_with_a_known_truth(k_sample: int) -> None:
    """A model answers 100 of 400 items whose true probabilities are the bank's curve shifted by a misfit
    delta ~ N(0, tau^2) common to all its items; the estimate fills the other 300 with the curve and adds the
    composite correction lambda u rbar from ``k_sample`` of the answered items. Over 40,000 draws of delta
    and the answers the estimate's error variance matches ``estimate_variance`` (the Bernoulli variance of
    the unanswered items plus u^2 lambda V, or u^2 tau^2 without a sample) within 4 %."""
    rng = np.random.default_rng(11)
    n_items, n_answered, tau2 = 400, 100, 0.05**2
    p = rng.uniform(0.25, 0.75, n_items)
    answered = np.arange(n_items) < n_answered
    in_sample = np.arange(n_items) < k_sample
    s2 = float(np.mean(p * (1 - p)))  # the items' residual variance the bank measures (Bernoulli part)
    reps = 40_000
    delta = rng.normal(0.0, math.sqrt(tau2), reps)
    y = (rng.random((reps, n_items)) < np.clip(p + delta[:, None], 0, 1)).astype(float)
    truth = y.mean(axis=1)
    filled = np.where(answered, y, p)
    est = filled.mean(axis=1)
    u = 1 - n_answered / n_items
    if k_sample:
        v = s2 / k_sample
        lam = tau2 / (tau2 + v)
        est = est + lam * u * (y[:, in_sample] - p[in_sample]).mean(axis=1)
    X = np.where(answered, 1.0, np.nan)[None, :]
    got = estimate_variance(
        p[None, :],
        np.zeros((1, n_items)),
        X,
        [np.arange(n_items)],
        np.zeros(1),
        in_sample[None, :],
        np.array([[tau2]]),
        np.array([s2]),
    )[0, -1]
    assert np.var(est - truth) == pytest.approx(got, rel=0.04)


def test_interval_scale_by_hand() -> None:
    """The conformal rank ceil((n + 1) level): 20 scores at 95 % -> the 20th; a budget with too few pooled
    with the others; too few even pooled: the largest widened by (n + 1) / n, flagged; the edge scale at
    least the inner one."""
    inner = [np.arange(1.0, 21.0), np.array([5.0, 6.0, 7.0])]
    edge = [np.array([0.5] * 30), np.arange(1.0, 31.0)]
    (c_in, short_in), (c_edge, short_edge) = interval_scale(inner, edge, 0, 0.95)
    assert (c_in, short_in) == (20.0, False)
    assert (c_edge, short_edge) == (20.0, False)  # the edge's own quantile 0.5 is below the inner one
    (c_in, short_in), (c_edge, _) = interval_scale(inner, edge, 1, 0.95)
    pooled = np.sort(np.concatenate(inner))  # 23 scores: the ceil(24 x 0.95) = 23rd
    assert c_in == pooled[22] == 20.0 and not short_in
    assert c_edge == 30.0  # the edge's own 30 scores at budget 1: the ceil(31 x 0.95) = 30th
    few = [np.array([1.0, 2.0]), np.array([4.0])]
    (c_few, short_few), _ = interval_scale(few, [np.empty(0), np.empty(0)], 0, 0.95)
    assert short_few and c_few == pytest.approx(4.0 * 4 / 3)


def _replayed(bank: ItemBank, panel: Panel, n: int, level: float = 0.95) -> tuple[NextItems, np.ndarray]:
    final = replay_final(bank, panel.scores, panel.model_ids, n, level=level)
    truth = nan_mean(panel.benchmark_means().means, axis=1)
    return final, truth


def _coverage(final: NextItems, truth: np.ndarray) -> float:
    iv = final.interval
    assert iv is not None
    return float(np.mean((truth >= iv[:, 0]) & (truth <= iv[:, 1])))


def test_calibrated_intervals_cover_new_models_where_strong_models_beat_the_curve() -> None:
    """A world of 150 models whose strong ones beat the 2PL curve on a third of the 600 items. Banks fitted on
    90 models (random ones, and the 90 weakest), the other 60 replayed at 5 % of the items (30): the
    calibrated 95 % intervals cover at least 0.9 of the new models of the random split (the model-based
    interval, 1.96 se, 0.95 here), and on the strongest split, where the curve is wrong for every new model
    and the model-based interval covers 0.72, at least 0.85 and 0.1 more (0.87 measured; seeds 22 and 23 of
    this world: 0.98 and 0.85 against 0.75 and 0.50; at 12 items only 0.52-0.70, docs/ADAPTIVE.md); every
    interval holds its estimate and lies in [0, 1]; a 50 % interval is narrower and covers fewer."""
    x = _world(150, 600, 1.5, 21)
    panel = _panel(x)
    overall = x.mean(axis=1)
    rng = np.random.default_rng(0)
    random_split = rng.permutation(150)
    for order in (random_split, weakest_first(overall)):
        build, held = panel.subset(models=np.sort(order[:90])), panel.subset(models=np.sort(order[90:]))
        bank = fit_bank(build)
        assert bank.interval_budgets is not None and bank.interval_budgets.tolist() == list(INTERVAL_BUDGETS)
        final, truth = _replayed(bank, held, 30)
        est, iv, se = final.estimates[:, -1], final.interval, final.estimate_se
        assert iv is not None and se is not None and np.isfinite(iv).all() and (se > 0).all()
        assert ((iv[:, 0] <= est) & (est <= iv[:, 1])).all() and (iv >= 0).all() and (iv <= 1).all()
        model_based = float(np.mean(np.abs(est - truth) <= 1.96 * se))
        covered = _coverage(final, truth)
        if order is random_split:
            assert covered >= 0.9 and covered >= model_based
        else:
            assert covered >= 0.85 and covered >= model_based + 0.1
        half, _ = _replayed(bank, held, 30, level=0.5)
        assert (np.diff(half.interval, axis=1) <= np.diff(iv, axis=1) + 1e-12).all()
        assert _coverage(half, truth) < covered


def test_a_bank_without_calibration_gives_no_interval(tmp_path: Path) -> None:
    """``interval_budgets=()`` (and a bank without misfit folds) calibrate nothing: the estimate keeps its
    model-based standard error, its interval is NaN in Python and null in JSON, and the bank file has no
    calibration; a calibrated bank's file round-trips its scores exactly."""
    panel = _panel(_world(40, 200, 0.0, 5))
    plain = fit_bank(panel, interval_budgets=())
    nothing = fit_bank(panel, misfit_folds=0)
    X = np.full((2, 200), np.nan)
    X[:, :20] = panel.scores[:2, :20]
    for bank in (plain, nothing):
        assert bank.interval_budgets is None and bank.interval_scales() == []
        res = next_items(bank, X, ["a", "b"], batch=5)
        assert res.interval is not None and np.isnan(res.interval).all()
        assert res.estimate_se is not None and (res.estimate_se > 0).all()
        assert [m["overall_interval"] for m in res.to_dict()["models"]] == [None, None]
        assert load_bank(bank.save(tmp_path / "b.json")).interval_inner is None
    calibrated = fit_bank(panel)
    back = load_bank(calibrated.save(tmp_path / "c.json"))
    assert back.interval_budgets is not None and calibrated.interval_budgets is not None
    np.testing.assert_array_equal(back.interval_budgets, calibrated.interval_budgets)
    assert calibrated.interval_inner is not None and calibrated.interval_edge is not None
    for got, want in zip(
        [*back.interval_inner, *back.interval_edge],  # type: ignore[misc]
        [*calibrated.interval_inner, *calibrated.interval_edge],
        strict=True,
    ):
        np.testing.assert_array_equal(got, want)
    same = next_items(back, X, ["a", "b"], batch=5)
    np.testing.assert_array_equal(same.interval, next_items(calibrated, X, ["a", "b"], batch=5).interval)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"interval_inner": None}, "go together"),
        ({"interval_budgets": [0.02, 1.5, 0.1]}, "go together"),
        ({"interval_edge": [[0.5], [-1.0], []]}, "go together"),
        ({"interval_inner": [[1.0, 2.0]]}, "go together"),
    ],
)
def test_a_broken_calibration_in_a_bank_file_is_refused(tmp_path: Path, change: dict, words: str) -> None:
    doc = fit_bank(_panel(_world(40, 200, 0.0, 5))).to_dict()
    assert doc["interval_budgets"] == list(INTERVAL_BUDGETS)
    doc.update(change)
    path = tmp_path / "bank.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(FormatError, match=words):
        load_bank(path)
    old = {
        k: v for k, v in doc.items() if not k.startswith("interval_")
    }  # a file written before: no interval
    path.write_text(json.dumps(old))
    assert load_bank(path).interval_budgets is None


def test_the_cli_writes_the_calibration_and_next_reports_the_interval(tmp_path: Path) -> None:
    """``adaptive bank --json`` lists the scale per calibrated budget (the edge one at least the inner one);
    ``adaptive next --json`` gives each model's overall standard error and interval around its estimate at
    ``interval_level``, and the table shows it; ``--no-interval`` writes a bank without, whose interval is
    null."""
    x = _world(60, 300, 1.0, 8)
    panel = _panel(x[:45])
    panel.save(tmp_path / "build.parquet")
    rows = [
        {"model": f"new{j}", "benchmark": "B", "item": str(i), "score": x[45 + j, i]}
        for j in range(3)
        for i in range(0, 300, 10)
    ]
    pd.DataFrame(rows).to_csv(tmp_path / "resp.csv", index=False)
    runner = CliRunner()
    bank_run = runner.invoke(
        app,
        ["adaptive", "bank", str(tmp_path / "build.parquet"), "-o", str(tmp_path / "bank.json"), "--json"],
    )
    assert bank_run.exit_code == 0, bank_run.output
    scales = json.loads(bank_run.output)["interval"]
    assert [r["budget"] for r in scales] == list(INTERVAL_BUDGETS)
    assert all(r["scale_edge"] >= r["scale_inner"] > 0 for r in scales)
    nxt = runner.invoke(
        app, ["adaptive", "next", str(tmp_path / "bank.json"), str(tmp_path / "resp.csv"), "--json"]
    )
    assert nxt.exit_code == 0, nxt.output
    doc = json.loads(nxt.output)
    assert doc["interval_level"] == 0.95
    for m in doc["models"]:
        lo, hi = m["overall_interval"]
        assert 0 <= lo <= m["estimates"]["overall"] <= hi <= 1 and m["overall_se"] > 0
    table = runner.invoke(app, ["adaptive", "next", str(tmp_path / "bank.json"), str(tmp_path / "resp.csv")])
    assert table.exit_code == 0 and "overall est. [95%]" in table.output
    lo, hi = doc["models"][0]["overall_interval"]
    assert f"[{lo:.3f}, {hi:.3f}]" in table.output
    off = runner.invoke(
        app,
        ["adaptive", "bank", str(tmp_path / "build.parquet"), "-o", str(tmp_path / "plain.json"),
         "--no-interval", "--json"],
    )  # fmt: skip
    assert off.exit_code == 0 and json.loads(off.output)["interval"] == []
    plain = runner.invoke(
        app, ["adaptive", "next", str(tmp_path / "plain.json"), str(tmp_path / "resp.csv"), "--json"]
    )
    assert [m["overall_interval"] for m in json.loads(plain.output)["models"]] == [None] * 3


def test_simulate_reports_the_intervals_coverage() -> None:
    """``simulate_adaptive`` gives the adaptive and the static method's 95 % interval coverage and width
    (the share of held-out models whose full score it holds, recomputed here from the same split's bank and
    replay for the adaptive one), none for random items (null in JSON)."""
    panel = _panel(_world(70, 400, 1.0, 9))
    res = simulate_adaptive(panel, budget=0.05, n_splits=1, random_state=4)
    rows = {r["method"]: r for r in res.rows()}
    assert 0.0 <= rows["adaptive"]["coverage"] <= 1.0 and rows["adaptive"]["width"] > 0
    assert 0.0 <= rows["static"]["coverage"] <= 1.0 and rows["static"]["width"] > 0
    assert math.isnan(rows["random"]["coverage"])
    doc = res.to_dict()["results"]
    assert [r["coverage"] is None for r in doc] == [False, False, True]  # adaptive, static, random
    # the adaptive coverage by hand: the split's build models (SeedSequence([4, 0]) permutation, 42 of 70)
    rng = np.random.default_rng(np.random.SeedSequence([4, 0]))
    perm = rng.permutation(70)
    build, held = panel.subset(models=np.sort(perm[:42])), panel.subset(models=np.sort(perm[42:]))
    final = replay_final(fit_bank(build), held.scores, held.model_ids, res.n_items[0], random_state=4)
    truth = nan_mean(held.benchmark_means().means, axis=1)
    assert rows["adaptive"]["coverage"] == pytest.approx(_coverage(final, truth), abs=1e-12)


def test_a_graded_bank_is_calibrated_too() -> None:
    """Partial-credit scores make a graded-response bank, whose unfitted items have no expected score (NaN,
    left out of the estimate's means): its calibration has scores and its new models finite intervals
    around their estimates (before this was checked, every score was NaN and no interval came out)."""
    from benchsift.simulate import SimulationConfig, simulate_panel

    cfg = SimulationConfig.small(n_models=30, items_per_benchmark=60, min_items_per_benchmark=30)
    panel = simulate_panel(cfg, 0).panel.image_panel()
    bank = fit_bank(panel.subset(models=np.arange(18)))
    assert bank.kind == "graded"
    assert all(r["n_inner"] > 0 and np.isfinite(r["scale_inner"]) for r in bank.interval_scales())
    held = panel.subset(models=np.arange(18, 30))
    final = replay_final(bank, held.scores, held.model_ids, 24)
    assert final.interval is not None and final.estimate_se is not None
    assert np.isfinite(final.interval).all() and (final.estimate_se > 0).all()
    est = final.estimates[:, -1]
    assert ((final.interval[:, 0] <= est) & (est <= final.interval[:, 1])).all()
