"""The item-selector contract, checked on every registered selector (like scikit-learn's test_common).

Every class in ``SELECTORS`` must: store its parameters (clone works), return sorted unique positions (at
most ``k``, exactly ``k`` when the pool is large enough), set ``support_`` / ``item_scores_`` / ``reasons_``
consistently, give the same selection for the same ``random_state``, accept NaN scores and missing
embeddings, and work inside :func:`stage2_prune`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from benchsift.compression.selectors import SELECTORS, ItemSelector
from benchsift.compression.stages.prune import stage2_prune
from benchsift.panel import Panel


def _data(seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n_models, n = 16, 240
    scores = (rng.random((n_models, n)) < rng.random(n)).astype(float)
    scores[rng.random(scores.shape) < 0.05] = np.nan
    emb = rng.standard_normal((n, 32))
    text = emb + 0.4 * rng.standard_normal((n, 32))
    emb[:10] = np.nan  # some items without a vision-text embedding
    meta = pd.DataFrame({"benchmark": np.where(np.arange(n) < 150, "b1", "b2")})
    return scores, emb, text, meta


@pytest.mark.parametrize("name", sorted(SELECTORS))
def test_selector_contract(name: str) -> None:
    cls = SELECTORS[name]
    assert issubclass(cls, ItemSelector)
    sel = cls(random_state=0)
    assert clone(sel).get_params() == sel.get_params()
    scores, emb, text, meta = _data()
    n = scores.shape[1]
    kept = sel.select(scores, 40, embeddings=emb, text_embeddings=text, item_meta=meta)
    assert kept.dtype == np.int64 and kept.shape == (40,)
    assert np.all(np.diff(kept) > 0) and kept.min() >= 0 and kept.max() < n
    assert sel.support_.shape == (n,) and np.array_equal(np.flatnonzero(sel.support_), kept)
    assert sel.item_scores_.shape == (n,)
    assert sel.reasons_.shape == (40,) and all(isinstance(r, str) and r for r in sel.reasons_)
    again = cls(random_state=0).select(scores, 40, embeddings=emb, text_embeddings=text, item_meta=meta)
    np.testing.assert_array_equal(kept, again)
    assert cls(random_state=0).select(scores, 0).shape == (0,)
    est = sel.estimate(scores[:, kept])
    assert est.shape == (scores.shape[0],) and np.all((est >= 0) & (est <= 1))


@pytest.mark.parametrize("name", sorted(SELECTORS))
def test_selector_inside_stage2(name: str) -> None:
    scores, _, _, meta = _data(1)
    items = meta.assign(item=[f"i{j}" for j in range(scores.shape[1])], category="C")
    panel = Panel(scores, [f"m{j}" for j in range(scores.shape[0])], items)
    res = stage2_prune(panel, retention=0.2, selector=name, random_state=0)
    assert res.n_kept == 100  # K_C = max(48, min(240, 100))
    assert set(res.why[res.kept]) and "" not in set(res.why[res.kept])
