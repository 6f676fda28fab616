"""Every selector's constructor parameters are declared once (``_parameter_constraints``, checked by
``ItemSelector._check_params`` at ``select``): a broken one is refused with one line naming the selector,
the parameter, what was expected and what was given."""

from __future__ import annotations

import numpy as np
import pytest

from benchsift.compression.selectors.budget import category_budget, check_retention
from benchsift.compression.selectors.registry import selector_class
from benchsift.errors import InputError

SCORES = np.random.default_rng(0).integers(0, 2, size=(8, 30)).astype(float)


@pytest.mark.parametrize(
    ("name", "params", "message"),
    [
        ("vaw", {"alpha": float("inf")}, "vaw `alpha`: expected a finite number >= 0, got inf"),
        ("vaw", {"projection_dim": 2.5}, "vaw `projection_dim`: expected an integer >= 1, got 2.5"),
        (
            "vaw",
            {"variant": "cell"},
            "vaw `variant`: expected one of cells, text-cells, random-cells, shares, dpp, got 'cell'",
        ),
        ("disco", {"decimals": 13}, "disco `decimals`: expected an integer in [0, 12], got 13"),
        ("disco", {"criterion": "kl"}, "disco `criterion`: expected pds or jsd, got 'kl'"),
        ("anchorpoints", {"n_init": 0}, "anchorpoints `n_init`: expected an integer >= 1, got 0"),
        (
            "tinybench",
            {"estimator": "irt"},
            "tinybench `estimator`: expected one of pirt, gpirt, anchor, got 'irt'",
        ),
        ("irt2pl", {"rule": "fisher"}, "irt2pl `rule`: expected metabench or information, got 'fisher'"),
        (
            "variance",
            {"tie_break": "first"},
            "variance `tie_break`: expected random or index, got 'first'",
        ),
        ("estimate", {"prior_a_sd": 0.0}, "estimate `prior_a_sd`: expected a number > 0, got 0.0"),
        ("auto", {"inner_build": 1.0}, "auto `inner_build`: expected a fraction in (0, 1), got 1.0"),
        ("auto", {"n_inner": 1.5}, "auto `n_inner`: expected an integer >= 1, got 1.5"),
        (
            "auto",
            {"candidate_seeds": {"random": -1}},
            "auto candidate_seeds['random']: expected an integer seed >= 0, got -1",
        ),
    ],
)
def test_selector_parameter_refused_with_one_line(name: str, params: dict, message: str) -> None:
    sel = selector_class(name)(**params)
    with pytest.raises(InputError) as info:
        sel.select(SCORES, 5)
    assert str(info.value) == message


def test_budget_parameters() -> None:
    assert category_budget(200, 0.1, floor=0) == 20  # floor(0.1 * 200)
    with pytest.raises(InputError, match=r"^`retention`: expected a number in \(0, 1\], got 0$"):
        category_budget(200, 0)
    with pytest.raises(InputError, match=r"^`floor`: expected an integer >= 0, got -1$"):
        category_budget(200, 0.1, floor=-1)
    with pytest.raises(InputError, match=r"^`retention`: expected a number in \(0, 1\], got '0.5'$"):
        check_retention("0.5")  # type: ignore[arg-type]
    assert check_retention(1) == 1.0
