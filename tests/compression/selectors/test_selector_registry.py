"""The selector registry and the contract every registered selector keeps (PRIMEBench section 5, D.1)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

import benchsift.compression.selectors as sel_pkg
from benchsift.compression.selectors.base import ItemSelector
from benchsift.compression.selectors.budget import category_budget
from benchsift.compression.selectors.registry import (
    SELECTOR_NAMES,
    available_selectors,
    make_selector,
    selector_class,
)
from benchsift.errors import InputError

EXPECTED = (
    "random",
    "variance",
    "vaw",
    "disco",
    "pointbiserial",
    "irt2pl",
    "anchorpoints",
    "tinybench",
    "variance-index",
    "auto",
    "estimate",
)


def _data(seed: int = 0, n_models: int = 24, n_items: int = 260) -> np.ndarray:
    rng = np.random.default_rng(seed)
    theta = rng.standard_normal(n_models)
    b = rng.normal(0.0, 1.0, n_items)
    p = 1.0 / (1.0 + np.exp(-(theta[:, None] - b[None, :]) * 1.5))
    x = (rng.random(p.shape) < p).astype(float)
    x[rng.random(x.shape) < 0.03] = np.nan
    return x


@pytest.fixture(scope="module")
def scores() -> np.ndarray:
    return _data()


def test_names_and_classes() -> None:
    assert SELECTOR_NAMES == EXPECTED
    classes = available_selectors()
    assert tuple(classes) == EXPECTED
    for name, cls in classes.items():
        assert issubclass(cls, ItemSelector)
        assert cls.name == name
        assert sel_pkg.SELECTORS[name] is cls
    assert selector_class(" VAW ") is classes["vaw"]


def test_unknown_name_and_bad_params() -> None:
    with pytest.raises(InputError, match=r"^`selector`: unknown selector 'nope'; expected one of random, "):
        selector_class("nope")
    with pytest.raises(InputError, match="bad parameters"):
        make_selector("variance", no_such_param=1)


@pytest.mark.parametrize("name", EXPECTED)
def test_contract_determinism_and_budget(name: str, scores: np.ndarray) -> None:
    n = scores.shape[1]
    k = category_budget(n, 0.05)  # the 100-item floor: 5 % of 260 is 13, the floor keeps 100
    assert k == 100
    a = make_selector(name, random_state=7)
    kept = a.select(scores, k)
    assert kept.dtype == np.int64
    assert kept.shape == (k,)
    assert np.all(np.diff(kept) > 0)  # sorted, unique
    assert a.support_.dtype == bool and a.support_.sum() == k
    assert np.array_equal(np.flatnonzero(a.support_), kept)
    assert a.reasons_.shape == (k,)
    assert a.item_scores_.shape == (n,)
    # Same seed, same items (also through sklearn.clone); estimates are finite means in [0, 1].
    b = clone(a)
    assert np.array_equal(b.select(scores, k), kept)
    est = a.estimate(scores[:, kept])
    assert est.shape == (scores.shape[0],)
    assert np.all((est >= 0) & (est <= 1))


@pytest.mark.parametrize("name", EXPECTED)
def test_budget_clipped_and_zero(name: str, scores: np.ndarray) -> None:
    small = scores[:, :30]
    assert make_selector(name).select(small, 100).shape == (30,)  # a pool smaller than K is kept whole
    assert make_selector(name).select(small, 0).shape == (0,)


@pytest.mark.parametrize("name", EXPECTED)
def test_bad_input(name: str, scores: np.ndarray) -> None:
    s = make_selector(name)
    bad = scores.copy()
    bad[2, 5] = 1.5
    with pytest.raises(InputError, match="model row 2, item column 5"):
        s.select(bad, 10)
    with pytest.raises(InputError, match="k: expected a non-negative integer"):
        s.select(scores, -1)
    with pytest.raises(InputError, match="k: expected a non-negative integer"):
        s.select(scores, True)
    with pytest.raises(InputError, match="2-D"):
        s.select(scores[0], 10)
    with pytest.raises(InputError, match="item_meta"):
        s.select(scores, 10, item_meta=pd.DataFrame({"benchmark": ["a"] * 3}))
