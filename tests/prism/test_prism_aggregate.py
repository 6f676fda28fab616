"""PScore and aggregators (PRISM-VLM Eq. 1-3) on hand-computed cases."""

from __future__ import annotations

import numpy as np
import pytest

from benchsift.errors import DegenerateError, InputError
from benchsift.prism.aggregate import (
    aggregate,
    arithmetic_mean,
    dominant_axis,
    dominant_axis_counts,
    effective_weights,
    geometric_mean,
    min_aggregate,
    pscore,
    weighted_pscore,
)


def test_pscore_harmonic_hand_case() -> None:
    # 2 / (1/0.5 + 1/0.25) = 2 / 6
    assert pscore([[0.5, 0.25]])[0] == pytest.approx(1 / 3)
    # three axes: 3 / (1/0.5 + 1/0.5 + 1/1) = 3 / 5
    assert pscore([[0.5, 0.5, 1.0]])[0] == pytest.approx(0.6)


def test_weighted_pscore_eq3_hand_case_and_equal_weights() -> None:
    s = np.array([[0.5, 0.25], [0.8, 0.4]])
    # (1 + 3) / (1/0.5 + 3/0.25) = 4 / 14
    assert weighted_pscore(s[:1], [1, 3])[0] == pytest.approx(4 / 14)
    np.testing.assert_allclose(weighted_pscore(s, [2, 2]), pscore(s))
    # a zero-weight axis is ignored, so its mean may be 0
    assert weighted_pscore([[0.5, 0.0]], [1, 0])[0] == pytest.approx(0.5)


def test_zero_axis_mean_raises_naming_model_and_axis() -> None:
    with pytest.raises(DegenerateError, match=r"'m2'.*'sc'"):
        pscore([[0.5, 0.4], [0.3, 0.0]], models=["m1", "m2"], axes=["q", "sc"])
    with pytest.raises(DegenerateError, match="'m1'"):
        effective_weights([[0.0, 0.5]], models=["m1"], axes=["q", "sc"])


def test_bad_inputs() -> None:
    with pytest.raises(InputError):
        pscore([[0.5, 1.2]])
    with pytest.raises(InputError):
        weighted_pscore([[0.5, 0.5]], [1, -1])
    with pytest.raises(InputError):
        aggregate([[0.5, 0.5]], "median")


def test_other_aggregators_hand_cases() -> None:
    s = np.array([[0.25, 1.0], [0.0, 0.5]])
    np.testing.assert_allclose(arithmetic_mean(s), [0.625, 0.25])
    np.testing.assert_allclose(geometric_mean(s), [0.5, 0.0])
    np.testing.assert_allclose(min_aggregate(s), [0.25, 0.0])
    assert np.isnan(pscore([[np.nan, 0.5]])[0])


def test_am_gm_hm_inequality() -> None:
    rng = np.random.default_rng(0)
    s = rng.uniform(0.05, 1, size=(50, 7))
    h, g, a = pscore(s), geometric_mean(s), arithmetic_mean(s)
    assert np.all(h <= g + 1e-12) and np.all(g <= a + 1e-12)


def test_effective_weights_eq2_hand_case_and_gradient() -> None:
    # w = (1/0.25, 1/0.0625) / 20 = (4, 16) / 20
    np.testing.assert_allclose(effective_weights([[0.5, 0.25]]), [[0.2, 0.8]])
    # Eq. 2 is the normalised gradient of Eq. 1: check against finite differences
    s = np.array([0.7, 0.3, 0.55, 0.9])
    eps = 1e-6
    grad = np.array([(pscore(s + eps * e)[0] - pscore(s - eps * e)[0]) / (2 * eps) for e in np.eye(4)])
    np.testing.assert_allclose(effective_weights(s[None])[0], grad / grad.sum(), rtol=1e-6)


def test_dominant_axis() -> None:
    s = [[0.5, 0.2, 0.9], [0.1, 0.2, 0.3], [0.4, np.nan, 0.3]]
    assert dominant_axis(s, ["q", "sc", "mq"]) == ["sc", "q", None]
    assert dominant_axis_counts(s, ["q", "sc", "mq"]) == {"q": 1, "sc": 1, "mq": 0}


def test_public_api_list() -> None:
    import benchsift.prism as prism

    assert sorted(prism.__all__) == prism.__all__
    for name in prism.__all__:
        assert hasattr(prism, name), name
    assert {"pscore", "paired_bootstrap", "load_verdicts", "audit_report"} <= set(prism.__all__)
