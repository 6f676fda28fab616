"""The bank's out-of-fold misfit, the composite correction and the whole-budget spread start
(benchsift.adaptive.design): by hand, against an independent numpy computation of the folds, and on simulated
2PL panels whose misfit is known (measured on fresh models of the same population)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from benchsift.adaptive import StopRule, fit_bank, load_bank, next_items_for, replay_adaptive
from benchsift.adaptive.design import composite_correction, out_of_fold_misfit, spread_wins
from benchsift.adaptive.select import static_start_items
from benchsift.errors import FormatError, InputError
from benchsift.panel import Panel


def _panel(n_models: int, n_items: int, seed: int) -> Panel:
    """A 2PL panel of one benchmark."""
    rng = np.random.default_rng(seed)
    theta = rng.standard_normal(n_models)
    a = rng.uniform(0.8, 2.0, n_items)
    b = rng.normal(0.0, 1.0, n_items)
    x = (rng.random((n_models, n_items)) < expit(a * (theta[:, None] - b))).astype(float)
    items = pd.DataFrame({"benchmark": "B", "item": [str(i) for i in range(n_items)]})
    return Panel(x, [f"m{j}" for j in range(n_models)], items)


class _ItemMeans:
    """A stand-in bank for the fold logic: every model's expected score of an item is the training models'
    item mean (ability 0 for all)."""

    def __init__(self, part: Panel) -> None:
        self.p = np.nanmean(part.scores, axis=0)

    def score(self, X: np.ndarray) -> object:
        return type("A", (), {"theta": np.zeros(X.shape[0])})()

    def expected(self, theta: np.ndarray) -> np.ndarray:
        return np.tile(self.p, (len(theta), 1))


def test_out_of_fold_misfit_by_hand_with_the_item_means() -> None:
    rng = np.random.default_rng(3)
    X = (rng.random((12, 8)) < 0.6).astype(float)
    X[0, 1] = np.nan  # missing scores are left out of that model's means
    panel = Panel(X, [f"m{j}" for j in range(12)], pd.DataFrame({"benchmark": "B", "item": list("abcdefgh")}))
    groups = [np.arange(0, 5), np.arange(5, 8)]
    tau2, s2 = out_of_fold_misfit(panel, _ItemMeans, groups, n_folds=3, random_state=7)
    folds = np.random.default_rng(7).permutation(12) % 3
    mis = np.zeros((12, 2))
    sq = np.zeros((12, 2))
    for m in range(12):
        p = np.nanmean(X[folds != folds[m]], axis=0)
        for g, cols in enumerate(groups):
            r = [X[m, i] - p[i] for i in cols if not np.isnan(X[m, i])]
            mis[m, g] = np.mean(r)
            sq[m, g] = np.mean(np.square(r))
    np.testing.assert_allclose(tau2, (mis**2).mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(s2, sq.mean(axis=0), rtol=1e-12)
    # too few models to train on (5 folds of 6 models leave 4 < 5), or one fold: not measured
    assert out_of_fold_misfit(panel.subset(models=np.arange(6)), _ItemMeans, groups) is None
    assert out_of_fold_misfit(panel, _ItemMeans, groups, n_folds=1) is None


def test_the_out_of_fold_misfit_tracks_the_misfit_on_fresh_models() -> None:
    # known truth: 200 fresh models of the same 2PL population, scored by the bank fitted on the first ones;
    # their mean squared misfit is what the bank's out-of-fold estimate stands for. The folds' banks have
    # 4/5 of the models, so the estimate is of a slightly smaller bank: at most higher (2x with 10 models)
    for seed, polish in ((1, False), (2, False), (1, True), (2, True)):
        panel = _panel(230, 2000, seed=seed)
        fresh = panel.scores[30:]
        got = {}
        for n_build in (10, 30):
            part = panel.subset(models=np.arange(n_build))
            bank = fit_bank(
                part,
                polish=polish,
                prior="normal",
                residual_factors=0,
                design_budgets=(),
                interval_budgets=(),
            )
            assert bank.design_mae is None and bank.misfit_var is not None and bank.residual_var is not None
            r = fresh - bank.expected(bank.score(fresh).theta)
            truth = float(np.mean(np.mean(r, axis=1) ** 2))
            low, high = (0.7, 2.5) if n_build == 10 else (0.8, 1.6)
            assert low < bank.misfit_var[0] / truth < high, (seed, polish, n_build)
            assert bank.residual_var[0] / np.mean(r**2) == pytest.approx(1.0, abs=0.1)
            got[n_build] = bank.misfit_var[0]
        if polish:  # the joint polish of 10 models bends the curve towards them: misfit; the EM fit hardly
            assert got[10] > 2 * got[30]
    # the same seed gives the same folds and bytes; another seed other folds
    part = _panel(30, 300, seed=1)
    options = {"prior": "normal", "residual_factors": 0, "design_budgets": (0.05,)}
    one, again = (fit_bank(part, **options) for _ in range(2))
    assert one.design_mae.tobytes() == again.design_mae.tobytes()
    assert one.misfit_var.tobytes() == again.misfit_var.tobytes()
    assert [v.tobytes() for v in one.interval_inner + one.interval_edge] == [
        v.tobytes() for v in again.interval_inner + again.interval_edge
    ]  # the interval's calibration too
    other = fit_bank(part, **options, random_state=1)
    assert other.misfit_var[0] != one.misfit_var[0]
    assert fit_bank(part, misfit_folds=0).misfit_var is None
    with pytest.raises(InputError, match="misfit_folds"):
        fit_bank(part, misfit_folds=1)
    # the designs are measured only when asked for; the misfit by default
    assert one.misfit_var is not None and fit_bank(part).design_mae is None
    for wrong in ((0.0,), (0.05, 1.5)):
        with pytest.raises(InputError, match="design_budgets"):
            fit_bank(part, design_budgets=wrong)


def test_composite_correction_by_hand() -> None:
    X = np.array([[1.0, 0.0, np.nan, 1.0, np.nan, np.nan], [np.nan, np.nan, np.nan, np.nan, np.nan, 1.0]])
    fill = np.full((2, 6), 0.5)
    groups = [np.arange(0, 4), np.arange(4, 6)]
    tau2, s2 = np.array([0.01, 0.04]), np.array([0.2, 0.2])
    got = composite_correction(X, fill, np.array([0, 1, 3, 5]), groups, tau2, s2)
    # model 0, group 0: sample items 0, 1, 3 answered, residuals 0.5, -0.5, 0.5 -> mean 1/6; lambda =
    # 0.01 / (0.01 + 0.2 / 3); one of four items unanswered. Group 1: its sample item 5 not answered -> 0
    lam = 0.01 / (0.01 + 0.2 / 3)
    assert got[0, 0] == pytest.approx(lam * (1 / 4) * (1 / 6))
    assert got[0, 1] == 0.0 and got[1, 0] == 0.0
    # model 1, group 1: item 5 answered, residual 0.5; lambda 0.04 / (0.04 + 0.2); item 4 unanswered (1/2)
    assert got[1, 1] == pytest.approx(0.04 / 0.24 * 0.5 * 0.5)
    # no misfit measured: no correction
    assert not composite_correction(X, fill, np.array([0, 1, 3, 5]), groups, np.zeros(2), s2).any()


def test_spread_wins_by_hand() -> None:
    budgets = np.array([0.01, 0.02, 0.05, 0.1])
    # rows: adaptive MAE, spread MAE, SE of the difference; spread wins where spread + 2 SE < adaptive
    errors = np.array([[0.03, 0.02, 0.0051], [0.03, 0.02, 0.0049], [0.02, 0.03, 0.001], [0.02, 0.01, np.nan]])
    # 1,000 items: 10 -> 1 %, 20 -> 2 %, 30 (log-nearest 2 %), 40 (log-nearest 5 %), 500 -> 10 % (NaN: no)
    got = [spread_wins(n, 1000, budgets, errors) for n in (10, 14, 20, 30, 40, 500, 1)]
    assert got == [False, False, True, True, False, False, False]
    assert not spread_wins(0, 1000, budgets, errors) and not spread_wins(20, 1000, np.array([]), errors)


def _set_designs(bank, errors) -> None:  # type: ignore[no-untyped-def]
    bank.design_budgets = np.array([0.01, 0.02, 0.05, 0.1])
    bank.design_mae = np.asarray(errors, dtype=np.float64)


def test_design_errors_are_the_fold_banks_replays() -> None:
    # the bank's design errors against the same replays written out here: the fold banks (same seeded
    # folds, same options), each given the bank's misfit (and its EM curves the EM curves' misfit),
    # replaying their held-out models both ways
    from benchsift.adaptive.design import fold_banks

    panel = _panel(20, 400, seed=3)
    bank = fit_bank(panel, polish=True, prior="normal", residual_factors=0, design_budgets=(0.05, 0.1))
    folds = fold_banks(
        panel, lambda p: fit_bank(p, polish=True, prior="normal", residual_factors=0, misfit_folds=0)
    )
    truth = panel.scores.mean(axis=1)
    assert bank.beyond is not None  # a polished bank keeps its EM curves, with their own measured misfit
    for fold_bank, _ in folds:
        fold_bank.misfit_var, fold_bank.residual_var = bank.misfit_var, bank.residual_var
        assert fold_bank.beyond is not None
        fold_bank.beyond.misfit_var = bank.beyond.misfit_var
        fold_bank.beyond.residual_var = bank.beyond.residual_var
    for j, n in enumerate((20, 40)):
        err = np.zeros((20, 2))
        for c, frac in enumerate((0.0, 1.0)):  # under 60 items no quarter start
            for fold_bank, held in folds:
                ids = [panel.model_ids[i] for i in held]
                est = replay_adaptive(fold_bank, panel.scores[held], ids, n, static_start=frac)[0][:, -1]
                err[held, c] = np.abs(est - truth[held])
        d = err[:, 1] - err[:, 0]
        want = [err[:, 0].mean(), err[:, 1].mean(), d.std(ddof=1) / np.sqrt(20)]
        np.testing.assert_allclose(bank.design_mae[j], want, rtol=1e-12)
    assert [r["items"] for r in bank.designs()] == [20, 40]


def test_a_bank_whose_spread_design_errs_less_gives_the_whole_budget_spread_and_a_warning() -> None:
    panel = _panel(16, 3000, seed=5)
    # the polished curves alone (beyond_curve=False): the estimate checked by hand below is theirs
    bank = fit_bank(panel.subset(models=np.arange(12)), polish=True, prior="normal", residual_factors=0,
                    design_budgets=(), beyond_curve=False)  # fmt: skip
    assert bank.misfit_var is not None and bank.residual_var is not None
    # measured errors set by hand: the spread design wins at 5 % and 10 % of the 3,000 items, not below
    _set_designs(bank, [[0.03, 0.04, 0.001], [0.03, 0.029, 0.002], [0.03, 0.02, 0.001], [0.02, 0.01, 0.001]])
    assert [r["spread"] for r in bank.designs()] == [False, False, True, True]
    assert static_start_items(150, bank) == 150 and static_start_items(300, bank) == 300
    assert static_start_items(60, bank) == static_start_items(60) == 15  # 2 %: the quarter rule
    res = next_items_for(bank, start=["new"], batch=5, stop=StopRule(max_items=150))
    assert res.items == [bank.spread_items(150)[:5].tolist()]
    assert [w for w in res.warnings if "all 150 items are given spread" in w and "0.020" in w]
    small = next_items_for(bank, start=["new"], batch=5, stop=StopRule(max_items=60))
    assert not [w for w in small.warnings if "given spread" in w]
    held = panel.subset(models=np.arange(12, 16))
    full, mask = replay_adaptive(bank, held.scores, held.model_ids, 150)
    spread = bank.spread_items(150)
    assert mask.sum(axis=1).tolist() == [150] * 4 and mask[:, spread].all()
    # the estimate: the p-IRT one plus the composite correction from the spread items
    X = np.where(mask, held.scores, np.nan)
    theta = bank.score(X).theta
    plain = bank.full_scores(X, theta)[0]
    corr = composite_correction(
        X, bank.expected(theta), spread, [np.arange(3000)], bank.misfit_var, bank.residual_var
    )
    np.testing.assert_allclose(full, np.clip(plain + np.column_stack([corr, corr]), 0, 1), rtol=1e-12)
    assert not np.allclose(full, plain)


def test_the_misfit_is_saved_and_a_bank_file_without_it_reads_as_before(tmp_path) -> None:
    bank = fit_bank(_panel(20, 300, seed=2), prior="normal", residual_factors=0, design_budgets=(0.05, 0.1))
    path = bank.save(tmp_path / "bank.json")
    back = load_bank(path)
    for name in ("misfit_var", "residual_var", "design_budgets", "design_mae"):
        assert getattr(back, name).tolist() == getattr(bank, name).tolist()
    doc = json.loads(path.read_text())
    for bad in (
        {"design_mae": None},
        {"design_mae": [[0.1, 0.2]] * 4},
        {"design_budgets": [0.0, 0.1, 0.2, 0.3]},
    ):
        (tmp_path / "bad.json").write_text(json.dumps({**doc, **bad}))
        with pytest.raises(FormatError, match="design_budgets"):
            load_bank(tmp_path / "bad.json")
    del doc["misfit_var"], doc["residual_var"], doc["design_budgets"], doc["design_mae"]
    (tmp_path / "old.json").write_text(json.dumps(doc))
    old = load_bank(tmp_path / "old.json")
    assert old.misfit_var is None and old.design_mae is None and not old.spread_wins(300)
    X = np.where(np.arange(300) < 100, 1.0, np.nan)[None, :]
    theta = old.score(X).theta
    with_sample = old.full_scores(X, theta, sample=np.arange(100))[0]
    assert with_sample.tolist() == old.full_scores(X, theta)[0].tolist()
    for wrong in ([0.1, 0.2], [-0.1], [float("nan")]):
        (tmp_path / "bad.json").write_text(json.dumps({**doc, "misfit_var": wrong, "residual_var": [0.2]}))
        with pytest.raises(FormatError, match="misfit_var and residual_var"):
            load_bank(tmp_path / "bad.json")
    (tmp_path / "half.json").write_text(json.dumps({**doc, "misfit_var": [0.1]}))
    with pytest.raises(FormatError, match="both or"):
        load_bank(tmp_path / "half.json")
