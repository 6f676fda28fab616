"""VAW (PRIMEBench Eq. 4-6, section 4.3, D.1, D.4): hand-checked scores, cells, variants, determinism."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from benchsift.compression.selectors import SELECTORS, ItemSelector, VAWSelector
from benchsift.compression.selectors._cells import (
    cell_winners,
    greedy_dpp,
    kmeans_cells,
    median_sq_distance,
)
from benchsift.compression.selectors.vaw import vaw_scores
from benchsift.errors import InputError

NAN = np.nan


def test_vaw_scores_by_hand() -> None:
    x = np.array(
        [
            [1, 1, 1, NAN],
            [0, 1, 0, NAN],
            [1, 1, NAN, NAN],
            [0, NAN, NAN, NAN],
        ],
        dtype=float,
    )
    delta = np.array([0.2, 0.5, 0.0, 0.3])
    out = vaw_scores(x, delta, alpha=0.187)
    assert out["n_valid"].tolist() == [4, 3, 2, 0]
    # item 0: mean 0.5, sum of squares 1, M = 4 -> sigma^2 = 1 / sqrt(4) = 0.5; q = 0.5 + 0.187 * 0.2
    # item 1: all ones -> 0; q = 0.187 * 0.5; ranked q / sqrt(3)
    # item 2: [1, 0] mean 0.5, SS 0.5, M = 2 -> sigma^2 = 0.5 / sqrt(2); ranked = plug-in variance 0.25
    np.testing.assert_allclose(out["variance"][:3], [0.5, 0.0, 0.5 / np.sqrt(2)])
    np.testing.assert_allclose(out["q"][:3], [0.5374, 0.0935, 0.5 / np.sqrt(2)])
    np.testing.assert_allclose(out["score"][:3], [0.5374 / 2, 0.0935 / np.sqrt(3), 0.25])
    assert np.isnan(out["score"][3])  # no valid model: no score, ranks last


def test_vaw_ranked_score_is_plugin_variance_plus_annealed_tilt() -> None:
    rng = np.random.default_rng(0)
    x = (rng.random((30, 50)) < 0.4).astype(float)
    x[rng.random(x.shape) < 0.1] = np.nan
    delta = rng.random(50) * 0.6
    out = vaw_scores(x, delta, alpha=0.187)
    m = (~np.isnan(x)).sum(axis=0)
    v = np.nanvar(x, axis=0)  # ddof 0, the plug-in variance
    np.testing.assert_allclose(out["score"], v + 0.187 / np.sqrt(m) * delta)  # PRIMEBench F.2 / Eq. 8


def _pool(m: int, pattern: np.ndarray) -> np.ndarray:
    return np.tile(pattern, (m // pattern.shape[0], 1))


def test_vaw_prefers_high_variance_items() -> None:
    rng = np.random.default_rng(1)
    n, m = 400, 30
    p = np.where(np.arange(n) % 2 == 0, 0.5, 0.03)  # even items: variance 0.25; odd: ~0.03
    x = (rng.random((m, n)) < p).astype(float)
    kept = VAWSelector(variant="shares", alpha=0.0, random_state=0).select(x, 100)
    assert np.mean(kept % 2 == 0) >= 0.95


def test_vaw_prefers_vision_dependent_items_at_equal_variance() -> None:
    rng = np.random.default_rng(2)
    col = (rng.random(20) < 0.5).astype(float)
    x = np.repeat(col[:, None], 60, axis=1)  # identical columns: equal variance everywhere
    e_l = rng.standard_normal((60, 8))
    angle = rng.random(60) * 1.2
    # E^VL rotated away from E^L by a known angle in a random orthogonal direction: delta = 1 - cos(angle)
    ortho = rng.standard_normal((60, 8))
    ortho -= (np.einsum("ij,ij->i", ortho, e_l) / np.einsum("ij,ij->i", e_l, e_l))[:, None] * e_l
    u = e_l / np.linalg.norm(e_l, axis=1, keepdims=True)
    w = ortho / np.linalg.norm(ortho, axis=1, keepdims=True)
    e_vl = np.cos(angle)[:, None] * u + np.sin(angle)[:, None] * w
    sel = VAWSelector(variant="shares", random_state=0)
    kept = sel.select(x, 10, embeddings=e_vl, text_embeddings=e_l)
    np.testing.assert_allclose(sel.delta_, 1 - np.cos(angle), atol=1e-12)
    assert set(kept.tolist()) == set(np.argsort(-angle)[:10].tolist())
    # alpha = 0: all scores tie, the choice is the seeded random order
    kept0 = VAWSelector(variant="shares", alpha=0.0, random_state=0).select(
        x, 10, embeddings=e_vl, text_embeddings=e_l
    )
    assert set(kept0.tolist()) != set(kept.tolist())


def _planted_clusters(
    rng: np.random.Generator, sizes: list[int], dim: int = 128
) -> tuple[np.ndarray, np.ndarray]:
    centres = rng.standard_normal((len(sizes), dim)) * 10.0
    labels = np.repeat(np.arange(len(sizes)), sizes)
    emb = centres[labels] + rng.standard_normal((labels.shape[0], dim)) * 0.1
    return emb, labels


def test_cells_cover_planted_clusters_shares_do_not() -> None:
    rng = np.random.default_rng(4)
    sizes = [60, 5, 8, 12, 6, 30, 7, 9, 10, 5]
    emb, truth = _planted_clusters(rng, sizes)
    n = truth.shape[0]
    # The high-variance items all sit in the big cluster 0; the others have low variance.
    p = np.where(truth == 0, 0.5, 0.05)
    x = (rng.random((30, n)) < p).astype(float)
    for seed in range(5):
        sel = VAWSelector(random_state=seed)
        kept = sel.select(x, len(sizes), embeddings=emb)
        assert sorted(truth[kept].tolist()) == list(range(len(sizes)))  # one item per planted cluster
        assert sel.cell_space_ == "vision-text"
        assert list(sel.reasons_) == ["cell"] * len(sizes)
        # each kept item is the best of its planted cluster
        for i in kept:
            members = np.flatnonzero(truth == truth[i])
            assert sel.item_scores_[i] == pytest.approx(np.nanmax(sel.item_scores_[members]))
    kept_shares = VAWSelector(variant="shares", random_state=0).select(x, len(sizes), embeddings=emb)
    assert np.mean(truth[kept_shares] == 0) >= 0.8  # without cells the big cluster takes the budget


def test_text_cells_use_text_embeddings() -> None:
    rng = np.random.default_rng(5)
    sizes = [40, 6, 6, 6]
    emb_t, truth = _planted_clusters(rng, sizes)
    emb_vl = rng.standard_normal(emb_t.shape)  # uninformative vision-text space
    x = (rng.random((30, truth.shape[0])) < np.where(truth == 0, 0.5, 0.05)).astype(float)
    sel = VAWSelector(variant="text-cells", alpha=0.0, random_state=0)
    kept = sel.select(x, 4, embeddings=emb_vl, text_embeddings=emb_t)
    assert sel.cell_space_ == "text"
    assert sorted(truth[kept].tolist()) == [0, 1, 2, 3]


def test_cells_fall_back_to_text_when_no_vision_text() -> None:
    rng = np.random.default_rng(6)
    emb_t, truth = _planted_clusters(rng, [30, 5, 5])
    x = (rng.random((30, truth.shape[0])) < np.where(truth == 0, 0.5, 0.05)).astype(float)
    sel = VAWSelector(random_state=0)
    kept = sel.select(x, 3, text_embeddings=emb_t)
    assert sel.cell_space_ == "text"
    assert np.all(sel.delta_ == 0)
    assert sorted(truth[kept].tolist()) == [0, 1, 2]


def test_items_without_embedding_in_no_cell_and_completion() -> None:
    rng = np.random.default_rng(7)
    n = 10
    x = (rng.random((30, n)) < 0.5).astype(float)
    emb = rng.standard_normal((n, 4))
    text = emb + 0.5 * rng.standard_normal((n, 4))
    emb[3:] = np.nan  # only items 0, 1, 2 have a vision-text embedding
    sel = VAWSelector(random_state=0)
    kept = sel.select(x, 5, embeddings=emb, text_embeddings=text)
    assert np.all(sel.delta_[3:] == 0) and np.all(sel.delta_[:3] > 0)
    assert np.all(sel.cell_labels_[3:] == -1)
    assert sorted(sel.cell_labels_[:3].tolist()) == [0, 1, 2]  # 3 embedded items, 3 cells of one item
    # the three embedded items win their cells; the two others are the best non-embedded items
    expected_rest = 3 + np.argsort(-sel.item_scores_[3:], kind="stable")[:2]
    assert set(kept.tolist()) == {0, 1, 2} | set(expected_rest.tolist())
    reasons = dict(zip(kept.tolist(), sel.reasons_.tolist(), strict=True))
    assert [reasons[i] for i in (0, 1, 2)] == ["cell"] * 3
    assert all(reasons[i] == "completion" for i in expected_rest.tolist())
    row = sel.benchmarks_.iloc[0]
    assert (row["n_embedded"], row["share"], row["n_cells"], row["n_cell_kept"], row["n_completion"]) == (
        3,
        5,
        3,
        3,
        2,
    )


def test_no_embeddings_at_all_is_all_completion() -> None:
    rng = np.random.default_rng(8)
    x = (rng.random((20, 50)) < 0.3).astype(float)
    sel = VAWSelector(random_state=0)
    kept = sel.select(x, 7)
    assert sel.cell_space_ == "none"
    assert list(sel.reasons_) == ["completion"] * 7
    np.testing.assert_array_equal(
        np.sort(kept), np.sort(VAWSelector(variant="shares", random_state=0).select(x, 7))
    )


def test_benchmark_shares_follow_largest_remainder() -> None:
    rng = np.random.default_rng(9)
    meta = pd.DataFrame({"benchmark": ["b"] * 30 + ["a"] * 50 + ["c"] * 20})
    x = rng.random((10, 100))
    sel = VAWSelector(variant="shares", random_state=0)
    kept = sel.select(x, 7, item_meta=meta)
    # quotas: b 2.1, a 3.5, c 1.4 -> 2, 3, 1 and the remaining one to a (remainder .5)
    assert sel.shares_ == {"b": 2, "a": 4, "c": 1}
    counts = meta["benchmark"].iloc[kept].value_counts().to_dict()
    assert counts == {"a": 4, "b": 2, "c": 1}


def test_tie_breaking_is_seeded_and_random() -> None:
    x = np.tile(np.array([[0.0], [1.0]]), (5, 100))  # every item has the same variance
    picks = [tuple(VAWSelector(variant="shares", random_state=s).select(x, 5)) for s in range(6)]
    assert picks[0] == tuple(VAWSelector(variant="shares", random_state=0).select(x, 5))
    assert len(set(picks)) > 1  # different seeds break the ties differently
    assert picks[0] != (0, 1, 2, 3, 4)  # not index order
    # cell winners tie-break through the same seeded order
    labels = np.array([0, 0, 0, 1, 1])
    score = np.array([1.0, 1.0, 0.5, 2.0, 2.0])
    assert cell_winners(labels, score, np.array([4, 2, 0, 1, 3])).tolist() == [1, 3]
    assert cell_winners(labels, score, np.array([0, 2, 1, 3, 1])).tolist() == [0, 4]


def test_cell_winners_nan_ranks_last() -> None:
    labels = np.array([0, 0, 1, 1])
    score = np.array([np.nan, 0.1, np.nan, np.nan])
    assert cell_winners(labels, score, np.arange(4)).tolist() == [1, 2]


def test_seed_determinism_all_variants() -> None:
    rng = np.random.default_rng(10)
    n = 300
    x = (rng.random((15, n)) < rng.random(n)).astype(float)
    emb = rng.standard_normal((n, 100))
    text = emb + 0.3 * rng.standard_normal((n, 100))
    meta = pd.DataFrame({"benchmark": np.where(np.arange(n) < 120, "p", "q")})
    for variant in ("cells", "text-cells", "random-cells", "shares", "dpp"):
        runs = [
            VAWSelector(variant=variant, random_state=3).select(
                x, 30, embeddings=emb, text_embeddings=text, item_meta=meta
            )
            for _ in range(2)
        ]
        np.testing.assert_array_equal(runs[0], runs[1])
        assert runs[0].shape == (30,) and np.all(np.diff(runs[0]) > 0)


def test_random_cells_partition_sizes() -> None:
    rng = np.random.default_rng(11)
    x = rng.random((10, 103))
    sel = VAWSelector(variant="random-cells", random_state=0)
    kept = sel.select(x, 10)
    sizes = np.bincount(sel.cell_labels_)
    assert sizes.shape == (10,) and sizes.min() >= 10 and sizes.max() <= 11
    # each kept item is the best of its random cell
    for i in kept:
        assert sel.item_scores_[i] == np.max(sel.item_scores_[sel.cell_labels_ == sel.cell_labels_[i]])


def test_dpp_picks_diverse_items() -> None:
    # Six equal clusters: a random pair is mostly between clusters, so the median-heuristic bandwidth makes
    # items of one cluster near-duplicates. The high-variance items all sit in cluster 0.
    rng = np.random.default_rng(12)
    sizes = [10] * 6
    emb, truth = _planted_clusters(rng, sizes, dim=16)
    x = (rng.random((30, truth.shape[0])) < np.where(truth == 0, 0.5, 0.1)).astype(float)
    sel = VAWSelector(variant="dpp", random_state=0)
    kept = sel.select(x, 6, embeddings=emb)
    assert sorted(truth[kept].tolist()) == [0, 1, 2, 3, 4, 5]
    assert list(sel.reasons_) == ["dpp"] * 6
    kept_shares = VAWSelector(variant="shares", random_state=0).select(x, 6, embeddings=emb)
    assert np.mean(truth[kept_shares] == 0) >= 0.5


def test_greedy_dpp_matches_brute_force_greedy() -> None:
    rng = np.random.default_rng(13)
    x = rng.standard_normal((25, 3))
    q = rng.random(25) + 0.1
    h = 2.0
    chosen = greedy_dpp(x, q, 6, np.random.default_rng(0), bandwidth=h)
    d2 = ((x[:, None, :] - x[None, :, :]) ** 2).sum(-1)
    big_l = q[:, None] * np.exp(-d2 / h) * q[None, :]
    sel: list[int] = []
    for _ in range(6):  # naive greedy MAP: maximise log det of the chosen submatrix
        best, best_val = -1, -np.inf
        for j in range(25):
            if j in sel:
                continue
            idx = [*sel, j]
            val = np.linalg.slogdet(big_l[np.ix_(idx, idx)])[1]
            if val > best_val:
                best, best_val = j, val
        sel.append(best)
    assert chosen.tolist() == sel


def test_greedy_dpp_stops_on_duplicates_and_zero_quality() -> None:
    x = np.array([[0.0, 0.0], [0.0, 0.0], [5.0, 5.0], [9.0, 0.0]])
    q = np.array([1.0, 1.0, 1.0, 0.0])
    chosen = greedy_dpp(x, q, 4, np.random.default_rng(0), bandwidth=1.0)
    assert len(chosen) == 2 and 2 in chosen.tolist() and 3 not in chosen.tolist()


def test_median_sq_distance() -> None:
    x = np.array([[0.0], [1.0]])
    assert median_sq_distance(x, np.random.default_rng(0), n_pairs=50) == 1.0
    assert median_sq_distance(np.zeros((5, 2)), np.random.default_rng(0)) == 1.0


def test_kmeans_cells_edge_cases() -> None:
    x = np.random.default_rng(0).standard_normal((6, 3))
    assert kmeans_cells(x, 6, 0).tolist() == [0, 1, 2, 3, 4, 5]
    assert kmeans_cells(x, 1, 0).tolist() == [0] * 6
    dup = np.zeros((10, 3))  # fewer distinct points than cells: no warning, the share is completed
    sel = VAWSelector(random_state=0)
    kept = sel.select(np.tile([[0.0], [1.0]], (3, 10)), 4, embeddings=dup)
    assert kept.shape == (4,)
    assert "completion" in sel.reasons_.tolist()


def test_selector_interface_and_registry() -> None:
    sel = VAWSelector(alpha=0.1, variant="dpp", random_state=7)
    assert sel.get_params()["alpha"] == 0.1 and sel.get_params()["random_state"] == 7
    c = clone(sel)
    assert c.get_params() == sel.get_params() and not hasattr(c, "support_")
    assert SELECTORS["vaw"] is VAWSelector and issubclass(VAWSelector, ItemSelector)
    x = np.random.default_rng(0).random((5, 40))
    kept = sel.select(x, 8)
    assert sel.support_.sum() == 8 and np.array_equal(np.flatnonzero(sel.support_), kept)
    assert sel.item_scores_.shape == (40,) and sel.reasons_.shape == (8,)
    est = sel.estimate(x[:, kept])
    np.testing.assert_allclose(est, x[:, kept].mean(axis=1))
    assert VAWSelector().select(x, 100).shape == (40,)  # k larger than the pool: the whole pool


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"variant": "nope"}, "variant"),
        ({"alpha": -1.0}, "alpha"),
        ({"projection_dim": 0}, "projection_dim"),
    ],
)
def test_bad_params(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(InputError, match=match):
        VAWSelector(**kwargs).select(np.zeros((2, 3)), 1)  # type: ignore[arg-type]


def test_bad_inputs() -> None:
    sel = VAWSelector()
    with pytest.raises(InputError, match="scores"):
        sel.select(np.array([[0.5, 2.0]]), 1)
    with pytest.raises(InputError, match="k"):
        sel.select(np.zeros((2, 3)), -1)
    with pytest.raises(InputError, match="embeddings"):
        sel.select(np.zeros((2, 3)), 1, embeddings=np.zeros((4, 2)))
    with pytest.raises(InputError, match="partly NaN"):
        sel.select(np.zeros((2, 3)), 1, embeddings=np.array([[1.0, np.nan], [1, 2], [3, 4]]))
    with pytest.raises(InputError, match="item_meta"):
        sel.select(np.zeros((2, 3)), 1, item_meta=pd.DataFrame({"benchmark": ["a"]}))
