"""TwoPL and GradedResponse declare their parameters once (``_parameter_constraints``, the EM part
shared): ``fit`` refuses a broken one with one line naming the model, the parameter, what was expected
and what was given; an infinite prior sd stays allowed (it switches the prior off)."""

from __future__ import annotations

import numpy as np
import pytest

from benchsift.errors import InputError
from benchsift.irt import GradedResponse, TwoPL

X = (np.random.default_rng(0).random((30, 8)) > 0.5).astype(float)


@pytest.mark.parametrize(
    ("model", "message"),
    [
        (TwoPL(tol=0.0), "TwoPL `tol`: expected a number > 0, got 0.0"),
        (TwoPL(max_iter=10.5), "TwoPL `max_iter`: expected an integer >= 1, got 10.5"),  # type: ignore[arg-type]
        (TwoPL(n_quadrature=3), "TwoPL `n_quadrature`: expected an integer >= 5 or None, got 3"),
        (TwoPL(a_prior="flat"), "TwoPL `a_prior`: expected lognormal or normal, got 'flat'"),  # type: ignore[arg-type]
        (
            GradedResponse(max_categories=1),
            "GradedResponse `max_categories`: expected an integer >= 2, got 1",
        ),
        (GradedResponse(newton_steps=0), "GradedResponse `newton_steps`: expected an integer >= 1, got 0"),
    ],
)
def test_fit_refuses_a_declared_parameter(model: TwoPL | GradedResponse, message: str) -> None:
    with pytest.raises(InputError) as info:
        model.fit(X)
    assert str(info.value) == message


def test_infinite_prior_sd_is_allowed() -> None:
    assert TwoPL(prior_a_sd=float("inf"), prior_d_sd=float("inf"), max_iter=5).fit(
        X
    ).discrimination_.shape == (8,)
