"""Protocols (b) end-to-end (PRIMEBench D.3, Table 12) and (c) same-model (H.2, Table 17)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from benchsift.compression.protocols import end_to_end, same_model
from benchsift.compression.protocols.same_model import same_model_budget
from benchsift.errors import DegenerateError
from benchsift.panel import Panel
from benchsift.simulate import SimulationConfig, simulate_panel


@pytest.fixture(scope="module")
def sim_panel() -> Panel:
    cfg = SimulationConfig.small(n_models=30, items_per_benchmark=120, min_items_per_benchmark=40)
    return simulate_panel(cfg, 0).panel


def test_without_pruning_end_to_end_equals_stage3_only(sim_panel: Panel) -> None:
    res = end_to_end(sim_panel, selectors=["random"], retentions=[1.0], k=2, n_splits=3, floor=0)
    assert np.allclose(res.rho[:, 0, 0], res.rho_stage3_only)
    assert res.k == 2 and all(len(v) == 2 for v in res.selected.values())


def test_keeping_every_category_equals_no_stage3(sim_panel: Panel) -> None:
    res = end_to_end(sim_panel, selectors=["variance", "random"], retentions=[0.1, 0.3], k=99, n_splits=2)
    assert res.k == 3
    # k=99 asked, 3 kept: a default that changes what was asked is a warning, not a note
    assert "k=99 exceeds the 3 categories: Stage 3 keeps all of them" in res.warnings
    assert not any("exceeds" in n for n in res.notes)
    assert np.allclose(res.rho, res.rho_no_stage3, equal_nan=True)
    summ = res.summary()
    assert summ.shape[0] == 4 and set(summ.columns) >= {"no_stage3", "beats_stage3_only", "wins"}
    assert np.all((res.rho >= -1) & (res.rho <= 1))


def test_same_model_budget_rounds_half_up() -> None:
    assert same_model_budget(50, 0.05) == 3  # 2.5 -> 3
    assert same_model_budget(100, 0.01) == 1
    assert same_model_budget(10, 0.01) == 1  # at least one item
    assert same_model_budget(1050, 0.02) == 21


def test_same_model_scores_per_benchmark(sim_panel: Panel) -> None:
    res = same_model(sim_panel, selectors=["variance", "random"], retentions=[0.1, 1.0])
    assert res.rho.shape == (2, 2, len(sim_panel.benchmarks))
    assert np.allclose(res.rho[:, 1], 1.0)  # all items kept
    # hand check of one benchmark for Variance: the top round(r N) plug-in variances
    image = sim_panel.image_panel()
    b = sim_panel.benchmarks[0]
    cols = np.flatnonzero(image.items["benchmark"].to_numpy() == b)
    S = image.scores[:, cols]
    k = same_model_budget(cols.size, 0.1)
    var = np.nanvar(S, axis=0)
    if np.unique(np.round(var, 12)).size == var.size:  # no ties: the choice is unique
        top = np.argsort(-var)[:k]
        full = np.nanmean(S, axis=1)
        kept = np.nanmean(S[:, top], axis=1)
        ok = np.isfinite(full) & np.isfinite(kept)
        assert res.rho[0, 0, 0] == pytest.approx(stats.spearmanr(full[ok], kept[ok]).statistic, abs=1e-9)


def test_end_to_end_needs_ten_heldout_models(sim_panel: Panel) -> None:
    from benchsift.compression.protocols import Split

    small = Split("small", np.arange(21), np.arange(21, 30))  # 9 held out: every rho undefined (D.3)
    # refused: before, a table of NaN with a note, exit 0 and files written (audit s32; before that, without
    # a word)
    with pytest.raises(DegenerateError, match=r"every split holds out fewer than min_heldout=10 models \(at"):
        end_to_end(sim_panel, selectors=["random"], retentions=[0.5], k=2, splits=[small], floor=0)
    big = Split("big", np.arange(15), np.arange(15, 30))  # one split of two too small: said in a note
    res = end_to_end(sim_panel, selectors=["random"], retentions=[0.5], k=2, splits=[small, big], floor=0)
    assert np.isnan(res.rho[0]).all() and np.isfinite(res.rho[1]).all()
    assert "1 split(s) hold out fewer than 10 models: every rho is undefined" in res.notes
    ok = end_to_end(
        sim_panel, selectors=["random"], retentions=[0.5], k=2, splits=[small], floor=0, min_heldout=9
    )
    assert np.isfinite(ok.rho).all() and np.isfinite(ok.rho_stage3_only).all()
    assert not any("hold out fewer" in n for n in ok.notes)


def test_logged_answers_follow_stage0_in_end_to_end(sim_panel: Panel) -> None:
    """Answers that only relabel the scores leave DISCO's choices unchanged (it counts distinct outcomes
    either way), which holds only if they are carried onto Stage 0's cleaned pool cell for cell; answers
    that disagree elsewhere change them."""
    kw = {"selectors": ["disco"], "retentions": [0.05, 0.2], "k": 2, "n_splits": 3, "floor": 0}
    plain = end_to_end(sim_panel, **kw)
    S = sim_panel.scores
    # the outcomes DISCO counts without answers (scores at 6 decimals), spelled as text labels
    steps = np.round(np.nan_to_num(S) * 1e6).astype(np.int64)
    labels = np.array([f"outcome {v}" for v in steps.ravel()], dtype=object).reshape(S.shape)
    labels[np.isnan(S)] = None
    relabelled = end_to_end(sim_panel, predictions=labels, **kw)
    assert np.array_equal(plain.rho, relabelled.rho, equal_nan=True)
    assert plain.selected == relabelled.selected
    noisy = np.random.default_rng(1).choice(list("ABCD"), size=S.shape).astype(object)
    other = end_to_end(sim_panel, predictions=noisy, **kw)
    assert not np.array_equal(plain.rho, other.rho, equal_nan=True)
    with pytest.raises(Exception, match="predictions: expected one logged answer per panel cell"):
        end_to_end(sim_panel, predictions=labels[:, :10], **kw)


def test_end_to_end_warns_when_stage0_skips_its_blind_filter(sim_panel: Panel) -> None:
    image_only = sim_panel.image_panel()
    res = end_to_end(image_only, selectors=["random"], retentions=[0.5], k=2, n_splits=2, floor=0)
    assert any(
        w.startswith("stage 0: no text-only runs in the panel: the blind-solvability filter was skipped")
        for w in res.warnings
    )
    with_text = end_to_end(sim_panel, selectors=["random"], retentions=[0.5], k=2, n_splits=2, floor=0)
    assert (sim_panel.conditions == "text-only").any()
    assert not any(w.startswith("stage 0:") for w in with_text.warnings)
