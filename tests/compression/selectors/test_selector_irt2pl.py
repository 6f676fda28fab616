"""IRT 2PL selection (metabench information filter) with the binarisation of PRIMEBench D.1."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from selector_sim import sim_2pl

from benchsift.compression.selectors.irt2pl import (
    IRT2PLSelector,
    binarize_scores,
    clear_fit_memo,
    fit_test_information,
    fitted_twopl,
    metabench_select,
)
from benchsift.errors import DegenerateError, InputError

NAN = np.nan


def test_binarize_rules_hand_computed() -> None:
    meta = pd.DataFrame({"benchmark": ["bin", "bin", "soft", "soft", "cap", "cap"]})
    x = np.array(
        [
            [1.0, 0.0, 0.0, 0.6, 0.1, 0.4],
            [0.0, 1.0, 0.3, 0.5, 0.2, NAN],
            [1.0, NAN, 1.0, 0.49, 0.3, 0.5],
        ]
    )
    out, rule = binarize_scores(x, meta, graded_benchmarks=("cap",))
    assert rule.tolist() == ["binary", "binary", "half", "half", "median", "median"]
    # "cap" scores 0.1, 0.2, 0.3, 0.4, 0.5: median 0.3, kept as correct when strictly above it.
    expected = np.array(
        [
            [1.0, 0.0, 0.0, 1.0, 0.0, 1.0],
            [0.0, 1.0, 0.0, 1.0, 0.0, NAN],
            [1.0, NAN, 1.0, 0.0, 0.0, 1.0],
        ]
    )
    np.testing.assert_array_equal(out, expected)
    # Without the graded list every non-binary benchmark is cut at half scale.
    out2, rule2 = binarize_scores(x, meta)
    assert rule2.tolist()[4:] == ["half", "half"]
    np.testing.assert_array_equal(out2[:, 5], [0.0, NAN, 1.0])


def test_binarize_score_type_column() -> None:
    meta = pd.DataFrame({"benchmark": ["a", "a", "b"], "score_type": ["graded", "judge", None]})
    x = np.array([[0.2, 0.2, 0.7], [0.6, 0.6, 0.2], [0.9, 0.9, 0.9]])
    out, rule = binarize_scores(x, meta)
    assert rule.tolist() == ["median", "half", "half"]
    np.testing.assert_array_equal(out[:, 0], [0.0, 0.0, 1.0])  # median of benchmark a's 0.2..0.9 is 0.6
    np.testing.assert_array_equal(out[:, 1], [0.0, 1.0, 1.0])
    with pytest.raises(InputError, match="row 1: 'likert' is not a known score type"):
        binarize_scores(x, meta.assign(score_type=["graded", "likert", None]))
    with pytest.raises(InputError, match="graded_benchmarks"):
        binarize_scores(x, meta, graded_benchmarks=("zzz",))


def test_metabench_rule_one_informative_item_per_ability_bin() -> None:
    # Three sharp items with difficulties -1, 0, 1 among flat ones; abilities spread over [-1.5, 1.5].
    a = np.array([0.3] * 10 + [3.0, 3.0, 3.0])
    b = np.concatenate([np.linspace(-2, 2, 10), [-1.0, 0.0, 1.0]])
    d = -a * b
    theta = np.linspace(-1.5, 1.5, 31)
    kept, value = metabench_select(a, d, theta, 3, np.random.default_rng(0))
    assert kept.tolist() == [10, 11, 12]  # bins go from the lowest abilities up
    np.testing.assert_allclose(value, 9.0 / 4.0)  # each peak (a^2 / 4) lies inside its bin
    # Unusable items (NaN parameters) only fill bins when nothing else is left.
    a2 = np.array([NAN, 1.0])
    kept2, value2 = metabench_select(a2, np.array([NAN, 0.0]), theta, 2, np.random.default_rng(0))
    assert kept2.tolist() == [1, 0]
    assert np.isfinite(value2[0]) and value2[1] == -np.inf


@pytest.fixture(scope="module")
def planted() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    n_hi, n_lo = 40, 160
    a = np.concatenate([np.full(n_hi, 2.5), np.full(n_lo, 0.3)])
    b = np.concatenate([rng.uniform(-1.2, 1.2, n_hi), rng.uniform(-1.2, 1.2, n_lo)])
    x, _ = sim_2pl(80, a, b, seed=4)
    return x, a > 1


@pytest.mark.parametrize("rule", ["metabench", "information"])
def test_picks_high_information_items(rule: str, planted: tuple[np.ndarray, np.ndarray]) -> None:
    x, high = planted
    sel = IRT2PLSelector(rule=rule, random_state=0)  # type: ignore[arg-type]
    kept = sel.select(x, 40)
    assert high[kept].mean() >= 0.85
    assert sel.converged_
    assert np.corrcoef(sel.discrimination_, high)[0, 1] > 0.6
    assert set(sel.binarization_) == {"binary"}
    assert set(sel.reasons_) == ({"bin"} if rule == "metabench" else {"top"})


def test_graded_scores_are_binarised_before_fitting(planted: tuple[np.ndarray, np.ndarray]) -> None:
    x, high = planted
    # A monotone rescaling of the graded scores that keeps them on the same side of 0.5 changes nothing.
    soft = np.where(x > 0.5, 0.75, 0.25)
    meta = pd.DataFrame({"benchmark": ["vqa"] * x.shape[1]})
    a = IRT2PLSelector(random_state=0).select(x, 30)
    s = IRT2PLSelector(random_state=0)
    b = s.select(soft, 30, item_meta=meta)
    np.testing.assert_array_equal(a, b)
    assert set(s.binarization_) == {"half"}


def test_fit_is_memoised_and_rule_checked(planted: tuple[np.ndarray, np.ndarray]) -> None:
    x, _ = planted
    assert fitted_twopl(x) is fitted_twopl(x.copy())
    with pytest.raises(InputError, match="rule"):
        IRT2PLSelector(rule="fisher").select(x, 3)  # type: ignore[arg-type]


def test_fit_memo_holds_the_nine_fits_auto_revisits_and_the_test_information() -> None:
    """The automatic selector revisits up to 9 fits per pool (8 inner build sets and all rows) at every
    retention: the memo keeps them all; the memoised test information is the plain formula's, bit for bit."""
    clear_fit_memo()
    rng = np.random.default_rng(0)
    mats = [(rng.random((12, 30)) < 0.5).astype(float) for _ in range(9)]
    fits = [fitted_twopl(m) for m in mats]
    assert all(fitted_twopl(m.copy()) is f for m, f in zip(mats, fits, strict=True))
    for f in fits:
        z = np.outer(f.theta_, f.discrimination_) + f.intercept_
        p = 0.5 * (1.0 + np.tanh(0.5 * z))
        ref = (f.discrimination_**2 * p * (1.0 - p)).mean(axis=0)
        info = fit_test_information(f)
        np.testing.assert_array_equal(info, ref)
        assert fit_test_information(f) is info and not info.flags.writeable
    # the selector's item scores are that information, NaN where an item has no valid score
    x = mats[0].copy()
    x[:, 3] = NAN
    sel = IRT2PLSelector(random_state=0)
    sel.select(x, 5)
    assert np.isnan(sel.item_scores_[3])
    keep = np.arange(30) != 3
    np.testing.assert_array_equal(sel.item_scores_[keep], fit_test_information(fitted_twopl(x[:, keep])))


def test_too_few_build_models_is_degenerate() -> None:
    x = np.array([[0.0, 1.0, 1.0, 0.0]])
    with pytest.raises(DegenerateError, match="at least 2 respondents"):
        IRT2PLSelector().select(x, 2)


def test_median_cut_is_inclusive_when_nothing_exceeds_the_median() -> None:
    meta = pd.DataFrame({"benchmark": ["cap"] * 2})
    x = np.array([[1.0, 0.4], [1.0, 1.0], [0.7, 1.0]])  # median 1.0: strictly above it there is nothing
    out, _ = binarize_scores(x, meta, graded_benchmarks=("cap",))
    np.testing.assert_array_equal(out, [[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
