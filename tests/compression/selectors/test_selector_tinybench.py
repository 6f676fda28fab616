"""tinyBenchmarks-style IRT anchor points with the p-IRT / gp-IRT estimators (Polo et al. 2024)."""

from __future__ import annotations

import numpy as np
import pytest
from selector_sim import sim_2pl

from benchsift.compression.selectors.tinybench import TinyBenchmarksSelector
from benchsift.errors import InputError


def _pool(seed: int, n_items: int = 400, n_models: int = 100) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = rng.lognormal(0.0, 0.4, n_items)
    b = rng.normal(-0.5, 1.0, n_items)
    x, _ = sim_2pl(n_models, a, b, seed)
    return x


def test_pirt_beats_plain_anchor_mean_on_held_out_models() -> None:
    # Pooled over five simulated 2PL pools: 60 build models choose 20 anchors, 40 held-out models are scored.
    err_pirt, err_plain = [], []
    for seed in range(5):
        x = _pool(seed)
        build, held = x[:60], x[60:]
        sel = TinyBenchmarksSelector(random_state=seed)
        kept = sel.select(build, 20)
        truth = held.mean(axis=1)
        err_pirt.append(np.abs(sel.estimate(held[:, kept]) - truth))
        err_plain.append(np.abs(held[:, kept].mean(axis=1) - truth))
    assert np.mean(err_pirt) < 0.95 * np.mean(err_plain)


def test_anchors_one_per_planted_parameter_group() -> None:
    a = np.repeat([0.6, 2.5, 1.2], 60)
    b = np.repeat([-1.5, 0.0, 1.5], 60)
    x, _ = sim_2pl(150, a, b, seed=9)
    sel = TinyBenchmarksSelector(random_state=0)
    kept = sel.select(x, 3)
    assert sorted((kept // 60).tolist()) == [0, 1, 2]
    np.testing.assert_allclose(sel.weights_, 1 / 3, atol=0.02)
    assert set(sel.reasons_) == {"anchor"}


def test_estimators_by_hand() -> None:
    x = _pool(11, n_items=150, n_models=60)
    build, held = x[:40], x[40:]
    sel = TinyBenchmarksSelector(random_state=1)
    kept = sel.select(build, 15)
    assert sel.weights_.sum() == pytest.approx(1.0)
    assert np.all(sel.labels_ >= 0) and np.all(sel.labels_ < 15)
    np.testing.assert_allclose(np.bincount(sel.labels_, minlength=15) / 150, sel.weights_)
    y = held[:, kept]
    # p-IRT: observed anchors plus the IRT prediction at the EAP ability for every other item.
    theta = sel.irt_.score(y, items=kept).theta
    pred = sel.irt_.predict_proba(theta)
    pred[:, kept] = y
    pirt = sel.estimate(y)
    np.testing.assert_allclose(pirt, pred.mean(axis=1), atol=1e-12)
    sel.set_params(estimator="anchor")
    anchor = sel.estimate(y)
    np.testing.assert_allclose(anchor, y @ sel.weights_, atol=1e-12)
    sel.set_params(estimator="gpirt")
    lam = sel.lambda_
    assert 0.0 <= lam <= 1.0
    np.testing.assert_allclose(sel.estimate(y), lam * anchor + (1 - lam) * pirt, atol=1e-12)


def test_missing_anchor_scores_and_errors() -> None:
    x = _pool(12, n_items=120, n_models=50)
    sel = TinyBenchmarksSelector(random_state=0)
    kept = sel.select(x[:40], 10)
    y = x[40:, kept].copy()
    y[0, :5] = np.nan
    y[1, :] = np.nan
    est = sel.estimate(y)
    assert np.isfinite(est[0]) and np.isnan(est[1]) and np.isfinite(est[2:]).all()
    with pytest.raises(InputError, match=r"expected a \(n_models, 10\) array"):
        sel.estimate(y[:, :4])
    with pytest.raises(InputError, match="row 0, column 0"):
        sel.estimate(np.where(np.isnan(y), 0.0, y) + np.eye(y.shape[0], y.shape[1]) * 2)
    with pytest.raises(InputError, match="not fitted"):
        TinyBenchmarksSelector().estimate(y)
    with pytest.raises(InputError, match="estimator"):
        TinyBenchmarksSelector(estimator="mle").select(x, 3)  # type: ignore[arg-type]


def test_determinism() -> None:
    x = _pool(13, n_items=150, n_models=50)
    a = TinyBenchmarksSelector(random_state=4).select(x, 12)
    assert np.array_equal(a, TinyBenchmarksSelector(random_state=4).select(x, 12))
