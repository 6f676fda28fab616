"""Top-K / bottom-K model selection (redundancy paper Section 2.5)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchsift import Panel
from benchsift.errors import InputError
from benchsift.redundancy.selection import select_models


def _panel() -> Panel:
    # Overall (mean over items) scores: m0 0.5, m1 0.9, m2 0.1, m3 0.9, m4 0.3, m5 no score.
    scores = np.array([[0.4, 0.6], [0.9, 0.9], [0.0, 0.2], [1.0, 0.8], [0.3, np.nan], [np.nan, np.nan]])
    return Panel.from_matrix(scores, [f"m{i}" for i in range(6)], ["a", "b"])


def test_top_and_bottom_k_with_ties_in_row_order():
    panel = _panel()
    sub, sel = select_models(panel, top_k=2)
    assert sel.models == ["m1", "m3"]  # tie at 0.9: panel row order
    assert sel.label == "top-2"
    np.testing.assert_allclose(sel.overall, [0.9, 0.9])
    assert sub.model_ids == ["m1", "m3"]
    sub, sel = select_models(panel, bottom_k=3)
    assert sel.models == ["m2", "m4", "m0"]
    np.testing.assert_array_equal(sub.scores, panel.scores[[2, 4, 0]])


def test_all_models_and_errors():
    panel = _panel()
    sub, sel = select_models(panel)
    # m5 has no score: "all" is every model the analysis can use, so m5 is neither kept nor counted
    assert sel.mode == "all" and sel.k is None and sel.models == ["m0", "m1", "m2", "m3", "m4"]
    assert sub.model_ids == sel.models and sel.to_dict()["n_models"] == 5
    with pytest.raises(InputError, match="5 with a score"):
        select_models(panel, top_k=6)  # m5 has no score and cannot be ranked
    with pytest.raises(InputError, match=r"^`bottom_k`: expected an integer >= 1, got 0$"):
        select_models(panel, bottom_k=0)
    with pytest.raises(InputError, match="not both"):
        select_models(panel, top_k=1, bottom_k=1)


def test_explicit_overall_basis():
    panel = _panel()
    _, sel = select_models(panel, top_k=1, overall=np.array([0.0, 0.1, 0.2, 0.3, 0.4, 0.5]))
    assert sel.models == ["m5"]
    with pytest.raises(InputError, match="shape"):
        select_models(panel, top_k=1, overall=np.zeros(3))


def test_text_only_runs_are_left_out_by_default():
    from benchsift.redundancy import dimension_redundancy

    models = pd.DataFrame({"model": ["a", "b", "c", "a"], "condition": ["image"] * 3 + ["text-only"]})
    items = pd.DataFrame({"benchmark": "B", "item": ["1", "2", "3", "4"], "category": ["x", "x", "y", "y"]})
    scores = np.array([[1, 0, 1, 0], [0, 0, 1, 1], [1, 1, 0, 0], [0, 0, 0, 0]], dtype=float)
    res = dimension_redundancy(Panel(scores, models, items), metrics="srcc")
    assert res.n_models == 3
    assert any("text-only" in n for n in res.notes)
