r"""Near-duplicate items: the same response pattern across models and, where there is question text, the
same text.

**Response patterns.** Two items :math:`i, j` of one benchmark scored by the same :math:`n_{ij}` models
disagree by the mean squared difference

.. math:: D_{ij} = \frac{1}{n_{ij}} \sum_m (x_{mi} - x_{mj})^2

(for 0/1 scores the share of models that got one item right and the other wrong: the Hamming distance of
the two response vectors divided by their length; Sokal & Michener 1958 simple matching is
:math:`1 - D_{ij}`). The pair is a ``duplicate-responses`` pair when :math:`D_{ij} \le` ``tolerance``
(default 0.02: at most 2 % of the models disagree) over at least ``min_models`` common models, and both
items are informative: each has at least ``min_minority`` models on the smaller side of its pattern
(at least that many right and that many wrong), so two easy items that only one model missed are not
called duplicates by chance. Such pairs measure the same thing twice (a copied question, one question
asked in two forms, an item that shares the answer of another).

**Question text.** With an item column ``question``, the texts are compared by the cosine similarity of
their TF-IDF vectors of character 3- to 5-grams within word boundaries (scikit-learn's
``TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 5))``; Manning, Raghavan & Schütze 2008, Ch. 6);
pairs with cosine :math:`\ge` ``text_similarity`` (default 0.9) are ``duplicate-text`` pairs: the same
question up to small edits (numbers, spacing, punctuation).

References
----------
Manning, C. D., Raghavan, P. & Schütze, H. (2008). *Introduction to Information Retrieval*, Ch. 6
(tf-idf weighting and the vector space model). Cambridge University Press.
Sokal, R. R. & Michener, C. D. (1958). A statistical method for evaluating systematic relationships.
*University of Kansas Science Bulletin* 38, 1409-1438.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = ["PAIR_COLUMNS", "response_duplicates", "text_duplicates"]

#: columns of a duplicate-pair table
PAIR_COLUMNS = ("item_a", "item_b", "kind", "similarity", "n_models")
_BLOCK = 2048  # items per block of the pairwise products (memory stays obs(block x items))


def _empty() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype=object if c in ("kind",) else float) for c in PAIR_COLUMNS})


def response_duplicates(
    X: np.ndarray, tolerance: float = 0.02, min_models: int = 10, min_minority: int = 3
) -> pd.DataFrame:
    """Pairs of columns of ``X`` (models x items, NaN missing) with near-identical response patterns.

    Returns a table with :data:`PAIR_COLUMNS` (``item_a < item_b`` are column positions, ``kind`` is
    ``"responses"``, ``similarity`` is :math:`1 - D_{ij}`), one row per pair, in column order.
    """
    X = np.asarray(X, dtype=np.float64)
    obs = (~np.isnan(X)).astype(np.float64)
    X0 = np.where(obs > 0, X, 0.0)
    right = (X0 * obs).sum(axis=0)
    wrong = ((1.0 - X0) * obs).sum(axis=0)
    informative = np.flatnonzero((np.minimum(right, wrong) >= min_minority) & (obs.sum(axis=0) >= min_models))
    rows: list[tuple[int, int, str, float, int]] = []
    if informative.size < 2:
        return _empty()
    A, Oa = X0[:, informative], obs[:, informative]
    A2 = A * A
    for start in range(0, informative.size, _BLOCK):
        stop = min(start + _BLOCK, informative.size)
        a, oa, a2 = A[:, start:stop], Oa[:, start:stop], A2[:, start:stop]
        n = oa.T @ Oa
        sq = a2.T @ Oa + oa.T @ A2 - 2.0 * (a.T @ A)
        with np.errstate(invalid="ignore", divide="ignore"):
            d = np.where(n > 0, sq / np.maximum(n, 1.0), np.inf)
        hit = (d <= tolerance + 1e-12) & (n >= min_models)
        ii, jj = np.nonzero(hit)
        ii = ii + start
        keep = jj > ii
        for i, j in zip(ii[keep], jj[keep], strict=True):
            rows.append(
                (
                    int(informative[i]),
                    int(informative[j]),
                    "responses",
                    float(1.0 - d[i - start, j]),
                    int(n[i - start, j]),
                )
            )
    if not rows:
        return _empty()
    return pd.DataFrame(rows, columns=list(PAIR_COLUMNS)).sort_values(["item_a", "item_b"], ignore_index=True)


def text_duplicates(questions: Sequence[object], text_similarity: float = 0.9) -> pd.DataFrame:
    """Pairs of items whose question texts have TF-IDF character n-gram cosine >= ``text_similarity``
    (module docstring). Missing or empty texts are left out. ``n_models`` is NaN (not a response measure)."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    texts = [q if isinstance(q, str) else "" for q in questions]
    present = np.flatnonzero([bool(t.strip()) for t in texts])
    if present.size < 2:
        return _empty()
    vec = TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 5), lowercase=True, dtype=np.float64)
    try:
        M = vec.fit_transform([texts[k] for k in present])
    except ValueError:  # every text shorter than the n-grams
        return _empty()
    rows: list[tuple[int, int, str, float, float]] = []
    for start in range(0, present.size, _BLOCK):
        block = (M[start : start + _BLOCK] @ M.T).tocoo()
        i = block.row + start
        keep = (block.col > i) & (block.data >= text_similarity - 1e-12)
        for a, b, s in zip(i[keep], block.col[keep], block.data[keep], strict=True):
            rows.append((int(present[a]), int(present[b]), "text", float(min(s, 1.0)), float("nan")))
    if not rows:
        return _empty()
    return pd.DataFrame(rows, columns=list(PAIR_COLUMNS)).sort_values(["item_a", "item_b"], ignore_index=True)
