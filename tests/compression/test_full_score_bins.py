"""Ability-binned (Mondrian) conformal half-widths of the full-score estimate
(``benchsift.compression.full_score``: ``_ability_bins``, ``FullScoreModel._binned_halfwidth``).

Checked by hand (each bin's half-width is the conformal quantile of its own models' residuals, counted out
with ``np.sort``), through the stored model (read back the same, forged bins refused) and on a simulated
panel with known truth where the suite tells the weakest models' full scores least well: the weakest
bin's half-width is wider than the pooled one, and the weakest held-out models are covered at the level.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from benchsift.compression import full_score as fs_module
from benchsift.compression.full_score import (
    ABILITY_BIN_MODELS,
    ABILITY_BINS,
    METHODS,
    FullScoreModel,
    _ability_bins,
    fit_full_score,
)
from benchsift.panel import Panel


def _by_hand(r: np.ndarray, level: float) -> float:
    """The ``ceil((n + 1) level)``-th smallest absolute residual (inf when that exceeds n)."""
    a = np.sort(np.abs(r[np.isfinite(r)]))
    k = math.ceil((a.size + 1) * level)
    return float(a[k - 1]) if k <= a.size else math.inf


def test_each_bin_is_the_conformal_quantile_of_its_own_models() -> None:
    rng = np.random.default_rng(0)
    n = ABILITY_BINS * ABILITY_BIN_MODELS + 7
    theta = rng.normal(size=n)
    theta[3] = np.nan  # a model without an ability is in no bin
    res = {m: rng.normal(size=(n, 2)) * (1.0 + (theta < 0)[:, None]) for m in METHODS}
    edges, bins = _ability_bins(theta, res, 0.9)
    assert edges is not None and bins is not None and len(bins) == ABILITY_BINS == edges.size + 1
    np.testing.assert_allclose(
        edges, np.quantile(theta[np.isfinite(theta)], np.arange(1, ABILITY_BINS) / ABILITY_BINS)
    )
    bounds = [-np.inf, *edges, np.inf]
    for k, b in enumerate(bins):
        rows = (theta >= bounds[k]) & (theta < bounds[k + 1])
        assert rows.sum() >= ABILITY_BIN_MODELS - 1
        for m in METHODS:
            want = [_by_hand(res[m][rows, g], 0.9) for g in range(2)]
            np.testing.assert_array_equal(b[m], want)
    # fewer models than two bins need: no bins (the pooled width for every model, as before)
    assert _ability_bins(theta[: 2 * ABILITY_BIN_MODELS - 1], res, 0.9) == (None, None)
    assert _ability_bins(np.zeros(n), res, 0.9) == (None, None)  # equal abilities: no edges


def _uneven_panel(n_models: int, n_items: int, seed: int) -> tuple[Panel, np.ndarray]:
    """A 2PL panel whose weakest models (ability below -0.5, 31 %) each add an offset of sd 1.5 to their
    logits on the items outside the suite (sd 0.1 for the others): the suite tells their full scores far
    less well, as a hard suite answered near chance does on real panels. Returns the panel and the suite."""
    rng = np.random.default_rng(seed)
    theta = rng.standard_normal(n_models)
    a = rng.uniform(0.8, 2.0, n_items)
    b = rng.normal(0.0, 1.0, n_items)
    suite = np.sort(rng.choice(n_items, size=n_items // 20, replace=False))
    off = np.ones(n_items, dtype=bool)
    off[suite] = False
    spread = np.where(theta < -0.5, 0.6, 0.0) * rng.standard_normal(n_models)
    z = a[None, :] * (theta[:, None] - b[None, :]) + spread[:, None] * off[None, :]
    x = (rng.random(z.shape) < 1.0 / (1.0 + np.exp(-z))).astype(float)
    items = pd.DataFrame({"benchmark": "B", "item": [str(i) for i in range(n_items)], "category": "C"})
    return Panel(x, [f"m{j}" for j in range(n_models)], items), suite


@pytest.fixture(scope="module")
def uneven_fit() -> tuple[FullScoreModel, Panel, np.ndarray]:
    panel, suite = _uneven_panel(300, 600, seed=5)
    build = panel.subset(models=np.arange(0, 300, 2))
    held = panel.subset(models=np.arange(1, 300, 2))
    model = fit_full_score(build, suite, random_state=0)
    return model, held, suite


def test_the_weakest_bin_is_wider_than_the_pooled_width(uneven_fit) -> None:
    model, _, _ = uneven_fit
    assert model.theta_bins is not None and model.halfwidth_bins is not None
    assert len(model.halfwidth_bins) == ABILITY_BINS  # 150 build models: five bins of 30
    widths = [b[model.method][-1] for b in model.halfwidth_bins]
    assert widths[0] > model.halfwidth[model.method][-1]


def test_binned_widths_cover_the_weakest_held_out_models(uneven_fit, monkeypatch) -> None:
    model, held, suite = uneven_fit
    truth = held.scores.mean(axis=1)
    covered = {}
    lower_edge = model.theta_weak
    monkeypatch.setattr(model, "theta_weak", -math.inf)  # the bins alone (the lower edge: at the end)
    for mode in (None, "bin", "max"):
        monkeypatch.setattr(fs_module, "ABILITY_BINS_MODE", mode)
        est = model.predict(held.scores[:, suite], held.model_ids)
        m = est.method
        which = np.searchsorted(model.theta_bins, est.theta, side="right")  # the held-out models' bins
        inside = (est.low[m][:, -1] <= truth) & (truth <= est.high[m][:, -1])
        covered[mode] = (inside[which == 0].mean(), inside.mean())
        if mode is not None:  # the bin's width (or the larger of it and the pooled one), before the edge's
            bins = np.stack([b[m] for b in model.halfwidth_bins])
            hw = model._binned_halfwidth(m, est.theta, est.score[m].shape)
            pooled = model.halfwidth[m][None, :]
            np.testing.assert_array_equal(
                hw, bins[which] if mode == "bin" else np.maximum(bins[which], pooled)
            )
    # the weakest bin's held-out models: below the level with one pooled width, at it with the bins
    assert covered[None][0] < 0.95 <= covered["bin"][0] <= covered["max"][0], covered
    assert covered["bin"][1] >= 0.95, covered
    # the lower edge (the weak fold's widths, the anchor and stratified means' lower ends) covers the weakest
    # models with one pooled width too
    monkeypatch.setattr(model, "theta_weak", lower_edge)
    monkeypatch.setattr(fs_module, "ABILITY_BINS_MODE", None)
    est = model.predict(held.scores[:, suite], held.model_ids)
    which = np.searchsorted(model.theta_bins, est.theta, side="right")
    inside = (est.low[est.method][:, -1] <= truth) & (truth <= est.high[est.method][:, -1])
    assert inside[which == 0].mean() >= 0.95 > covered[None][0]


def test_bins_read_back_the_same_and_forged_bins_are_refused(uneven_fit) -> None:
    model, held, suite = uneven_fit
    doc = json.loads(json.dumps(model.to_dict()))
    back = FullScoreModel.from_dict(doc)
    a, b = model.predict(held.scores[:5, suite]), back.predict(held.scores[:5, suite])
    assert a.to_dict() == b.to_dict()
    old = FullScoreModel.from_dict({**doc, "theta_bins": None, "halfwidth_bins": None})  # an older file
    shape = (2, old.halfwidth["pirt"].size)
    np.testing.assert_array_equal(
        old._binned_halfwidth("pirt", np.zeros(2), shape), [old.halfwidth["pirt"]] * 2
    )
    older = json.loads(json.dumps(doc))  # a file written before an estimator existed: it is p-IRT there
    for b in older["halfwidth_bins"]:
        del b["greg"]
    assert all(np.array_equal(b["greg"], b["pirt"]) for b in FullScoreModel.from_dict(older).halfwidth_bins)
    n_bins = len(doc["halfwidth_bins"])
    for key, forged, reason in (
        ("theta_bins", None, "theta_bins, halfwidth_bins: expected both or neither"),
        ("theta_bins", doc["theta_bins"][::-1] if n_bins > 2 else [1.0, 0.0], "expected increasing"),
        ("theta_bins", [*doc["theta_bins"], 99.0], f"expected {n_bins + 1} bins, one more than"),
        (
            "halfwidth_bins",
            [{"pirt": [0.1]}] * n_bins,
            f"'pirt': expected a list of {len(doc['groups']) + 1}",
        ),
        ("halfwidth_bins", {"pirt": [0.1, 0.1]}, "halfwidth_bins: expected a list of per-method objects"),
    ):
        with pytest.raises(ValueError, match=reason.replace("(", r"\(")):
            FullScoreModel.from_dict({**doc, key: forged})
    negative = json.loads(json.dumps(doc))
    negative["halfwidth_bins"][0]["pirt"][0] = -0.1
    with pytest.raises(ValueError, match=r"halfwidth_bins\[0\]: expected a non-negative half-width"):
        FullScoreModel.from_dict(negative)
