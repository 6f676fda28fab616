"""The prism reports take ``n_boot`` and ``random_state`` (one name per concept across the Python API);
the old ``bootstrap`` / ``seed`` keywords still work until 0.3, with a FutureWarning, and give the same
numbers. Their counts are declared once and refused with one line."""

from __future__ import annotations

import pandas as pd
import pytest

from benchsift.errors import InputError
from benchsift.prism import audit_report, score_report
from benchsift.simulate import simulate_verdicts


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    return simulate_verdicts(5, 60, random_state=3).table


def test_old_names_give_the_same_report_with_a_future_warning(table: pd.DataFrame) -> None:
    new = score_report(table, n_boot=60, random_state=4).to_dict()
    with pytest.warns(FutureWarning, match="score_report: `bootstrap` is now called `n_boot`"):
        with pytest.warns(FutureWarning, match="`seed` is now called `random_state`"):
            old = score_report(table, bootstrap=60, seed=4).to_dict()  # type: ignore[call-arg]
    assert old == new
    assert score_report(table, n_boot=60, random_state=5).to_dict() != new  # the seed is passed on


def test_report_counts_are_declared(table: pd.DataFrame) -> None:
    with pytest.raises(InputError, match=r"^`n_boot`: expected an integer >= 1, got 0$"):
        score_report(table, n_boot=0)
    with pytest.raises(InputError, match=r"^`budget`: expected an integer >= 1 or None, got 0$"):
        score_report(table, n_boot=10, budget=0)
    with pytest.raises(InputError, match=r"^`items`: expected an integer >= 2, got 1$"):
        audit_report(table, table, items=1)
    with pytest.raises(InputError, match="^`seed` and `random_state`"):
        audit_report(table, table, seed=1, random_state=1)  # type: ignore[call-arg]


def test_prism_choices_are_declared() -> None:
    from benchsift.prism.aggregate import aggregate

    with pytest.raises(InputError, match=r"^`method`: expected one of harmonic, .*, got 'median'$"):
        aggregate([[0.5, 0.5]], method="median")
    assert aggregate([[0.5, 0.5]], method="min")[0] == 0.5
