"""Stage 3 CIs on an item-level panel with clustered items: the two-stage bootstrap (item clusters within
benchmarks, then models) against a per-replicate loop; unchanged without clusters."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from benchsift.compression.diagnostics import aggregate_stage3
from benchsift.compression.diagnostics.aggregate_stage3 import stratified_bootstrap_indices
from benchsift.errors import InputError
from benchsift.panel import item_clusters
from benchsift.simulate import SimulationConfig, simulate_panel
from benchsift.stats import stratified_cluster_bootstrap_weights


def _panel(per_image: int):  # type: ignore[no-untyped-def]
    cfg = SimulationConfig.small(
        n_models=14,
        n_benchmarks=4,
        n_categories=2,
        items_per_benchmark=60,
        min_items_per_benchmark=40,
        missing_rate=0.05,
        items_per_image=per_image,
        image_response_sd=1.0 if per_image > 1 else 0.0,
    )
    return simulate_panel(cfg, 2).panel


def test_without_clusters_the_interval_is_the_model_only_one() -> None:
    p = _panel(1)
    a = aggregate_stage3(p, ks=(1, 2), n_boot=200, min_coverage=1)
    b = aggregate_stage3(p, ks=(1, 2), n_boot=200, min_coverage=1, clusters=None)
    assert a.rows == b.rows and a.items_resampled is False and a.clusters is not None
    assert a.clusters["used"] is False and a.warnings == []
    with pytest.raises(InputError, match="aggregate matrix has no items"):
        aggregate_stage3(np.random.default_rng(0).random((6, 3)), ks=(1,), n_boot=10, resample_items=True)


def test_two_stage_bootstrap_matches_a_loop() -> None:
    p = _panel(3)
    B = 30
    res = aggregate_stage3(p, ks=(2,), n_boot=B, min_coverage=1, random_state=5)
    assert res.items_resampled and res.clusters is not None and res.clusters["inferred"]
    assert any("column 'image'" in w for w in res.warnings)
    assert any("two-stage" in n for n in res.notes)
    # the loop: same generator, model draws first (family strata), then the item-cluster weights
    image = p.image_panel()
    S = np.asarray(image.scores)
    bench = image.items["benchmark"].to_numpy()
    names = list(dict.fromkeys(bench))
    b_codes = np.array([names.index(b) for b in bench])
    codes = item_clusters(image.items).codes
    rng = np.random.default_rng(5)
    fam = image.models["family"].tolist()
    idx = stratified_bootstrap_indices(fam, B, rng)
    W = stratified_cluster_bootstrap_weights(codes, b_codes, B, rng)
    pos = [names.index(b) for b in res.rows[0]["selected"]]
    rhos = []
    for r in range(B):
        means = np.empty((S.shape[0], len(names)))
        for j in range(len(names)):
            cols = b_codes == j
            x, w = S[:, cols], W[r, cols]
            ok = ~np.isnan(x)
            means[:, j] = (np.where(ok, x, 0) * w).sum(axis=1) / (ok * w).sum(axis=1)
        Z = stats.zscore(means, axis=0)
        ref, score = Z.mean(axis=1), Z[:, pos].mean(axis=1)
        rhos.append(stats.spearmanr(ref[idx[r]], score[idx[r]]).statistic)
    lo, hi = np.quantile(rhos, [0.025, 0.975])
    assert res.rows[0]["ci_low"] == pytest.approx(lo, abs=1e-9)
    assert res.rows[0]["ci_high"] == pytest.approx(hi, abs=1e-9)
    # Table 18's model-only interval on the same panel is narrower
    only = aggregate_stage3(p, ks=(2,), n_boot=400, min_coverage=1, clusters=None)
    both = aggregate_stage3(p, ks=(2,), n_boot=400, min_coverage=1)
    width = lambda r: r.rows[0]["ci_high"] - r.rows[0]["ci_low"]  # noqa: E731
    assert width(both) > width(only)
