"""A bank's lower edge (ItemBank.below_edge, next_items' low_edge; audit s32 F01/F02): a new model as weak as
the weakest tenth of the reference models is treated as one at the top edge (spread budget, the edge's misfit
and interval width) and warned of. On AI2D and MMMU banks fitted on the strongest 60 % of the models, the
weakest 40 % were covered 0.21-0.64 by the 95 % interval with no warning (docs/ADAPTIVE.md)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from benchsift.adaptive import StopRule, fit_bank, next_items, next_items_for, replay_final
from benchsift.adaptive.design import LOW_EDGE_SHARE, nearest_budget
from benchsift.adaptive.interval import interval_scale
from benchsift.errors import EstimateWarning
from benchsift.panel import Panel


def _world(theta: np.ndarray, n_items: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Four-option multiple choice: a 2PL curve above a guessing floor of 0.25 (a ~ U(0.4, 2), b ~ N(0, 1)),
    so a model weaker than the bank's models answers the hard items near chance, not near the 2PL curve's
    zero, and (as in tests/adaptive/test_edge.py) a model above ability 1.3 gains 2 x (theta - 1.3) logits
    on the low-discrimination items (a < 0.9), so that the bank's top edge misfits too; the items depend on
    ``seed`` only. The 0/1 responses and the probabilities."""
    rng = np.random.default_rng(seed)
    a, b = rng.uniform(0.4, 2.0, n_items), rng.normal(0.0, 1.0, n_items)
    boost = 2.0 * np.maximum(theta[:, None] - 1.3, 0.0) * (a < 0.9)
    p = 0.25 + 0.75 * expit(a * (theta[:, None] - b) + boost)
    draws = np.random.default_rng([seed, theta.size]).random(p.shape)
    return (draws < p).astype(float), p


def _panel(x: np.ndarray, prefix: str) -> Panel:
    items = pd.DataFrame({"benchmark": "B", "item": [str(i) for i in range(x.shape[1])]})
    return Panel(x, [f"{prefix}{j}" for j in range(x.shape[0])], items)


@pytest.fixture(scope="module")
def world() -> tuple[object, np.ndarray, np.ndarray]:
    """A bank of 80 models of ability N(0.5, 0.7) on 300 items (calibrated), and 20 new models of ability
    -3 to -1.5, below every one of them."""
    ref = np.random.default_rng(1).normal(0.5, 0.7, 80)
    x, _ = _world(ref, 300, 0)
    bank = fit_bank(_panel(x, "r"))
    weak = np.linspace(-3.0, -1.5, 20)
    return bank, *_world(weak, 300, 0)


def test_below_edge_is_the_weakest_tenth_of_the_reference_abilities(world: tuple) -> None:
    bank = world[0]
    ref = np.asarray(bank.reference_theta)
    cut = np.quantile(ref, LOW_EDGE_SHARE)
    assert bank.below_edge(ref).sum() == (ref <= cut).sum() == 8
    assert bank.below_edge(np.array([ref.min() - 1.0, np.median(ref), cut])).tolist() == [True, False, True]


def test_a_model_below_the_bank_gets_the_edge_width_and_is_warned_of(world: tuple) -> None:
    bank, x, _ = world
    X = np.full(x.shape, np.nan)
    X[:, :30] = x[:, :30]
    models = [f"w{j}" for j in range(x.shape[0])]
    on = next_items(bank, X, models, stop=StopRule())
    off = next_items(bank, X, models, stop=StopRule(), low_edge=False)
    assert on.below_edge is not None and on.below_edge.all() and not on.at_edge.any()
    assert off.below_edge is not None and not off.below_edge.any()
    # the edge's calibration scores 1.5 times, so that the edge width differs from the inner one
    wide = dataclasses.replace(bank, interval_edge=[1.5 * v for v in bank.interval_edge])
    at = nearest_budget(30, bank.n_items, bank.interval_budgets)
    (c_inner, _), (c_edge, _) = interval_scale(wide.interval_inner, wide.interval_edge, at, 0.95)
    assert c_edge > 1.2 * c_inner
    for low, c in ((True, c_edge), (False, c_inner)):
        res = next_items(wide, X, models, stop=StopRule(), low_edge=low)
        upper = res.interval[:, 1] - res.estimates[:, -1]  # estimate + c se, unless clipped to 1
        ok = res.interval[:, 1] < 1
        assert ok.sum() >= 5
        np.testing.assert_allclose(upper[ok], c * res.estimate_se[ok], rtol=1e-12)
    assert [m["below_edge"] for m in on.to_dict()["models"]] == [True] * 20
    assert on.to_frame()["below_edge"].all()
    with pytest.warns(EstimateWarning, match="at the lower edge of the bank") as said:
        res = next_items_for(bank, _panel(X, "w"), batch=5)
    (text,) = [w for w in res.warnings if "lower edge" in w]
    assert str(said[0].message) == text and text.startswith("20 model(s) at the lower edge of the bank")
    assert "weakest 10% of reference models" in text and "not corrected" in text  # no budget: no spread


def test_below_the_bank_the_estimates_err_less_and_the_intervals_cover() -> None:
    """Known truth (each model's expected full score) in four worlds: banks of 80 models of ability
    N(0.5, 0.7), 20 new models of ability -3 to -1.5 tested on 60 of 300 items (20 %, so the edge spread is
    on). As at the top edge, their error is lower in every world than the test's before the lower edge
    (0.043 / 0.043 / 0.062 / 0.044 against 0.053 / 0.067 / 0.067 / 0.049 measured) and their intervals
    cover (0.975 pooled against 0.81)."""
    err: dict[bool, list[float]] = {False: [], True: []}
    cover: dict[bool, list[float]] = {False: [], True: []}
    for seed in range(4):
        ref = np.random.default_rng(1 + seed).normal(0.5, 0.7, 80)
        bank = fit_bank(_panel(_world(ref, 300, seed)[0], "r"))
        x, p = _world(np.linspace(-3.0, -1.5, 20), 300, seed)
        truth = p.mean(axis=1)
        for low in (False, True):
            final = replay_final(bank, x, [f"w{j}" for j in range(20)], 60, random_state=0, low_edge=low)
            err[low].append(float(np.mean(np.abs(final.estimates[:, -1] - truth))))
            lo, hi = final.interval[:, 0], final.interval[:, 1]
            cover[low].append(float(np.mean((lo <= truth) & (truth <= hi))))
    assert all(on < off for on, off in zip(err[True], err[False], strict=True))
    assert np.mean(cover[True]) >= 0.95 and np.mean(cover[False]) < 0.9


def test_a_model_that_answered_every_item_wrong_is_warned_of(world: tuple) -> None:
    """A broken harness (every answer scored 0): 300 wrong answers gave 0.127 [0.063, 0.191] on an MMMU bank
    with no word of it (audit s32 F02); now one warning names the model. 19 answers are too few to say."""
    bank = world[0]
    X = np.full((3, bank.n_items), np.nan)
    X[0, :40] = 0.0  # every one wrong
    X[1, :40] = 1.0  # every one right
    X[2, :19] = 0.0  # too few to say
    with pytest.warns(EstimateWarning) as said:
        res = next_items_for(bank, _panel(X, "h"), batch=5)
    (text,) = [w for w in res.warnings if "answer-format failure" in w]
    assert text.startswith("1 model(s) answered every one of their 40 or more items wrong: ['h0']; 1 ")
    assert "items right: ['h1']" in text and "h2" not in text
    assert text in [str(w.message) for w in said]
