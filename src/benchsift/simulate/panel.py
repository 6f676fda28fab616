"""Simulate a score panel with known ground truth (:func:`simulate_panel`).

Generative model (multidimensional 2PL; PRIMEBench sections 3-4 give the scale and the structure):

1. Benchmarks and categories, models and item parameters (:mod:`benchsift.simulate.structure`).
2. Image-condition scores: ``p_mi = sigmoid(a_i (eta_mi - b_i))`` (``eta`` is computed once per benchmark
   dimension group, whose items share traits and loadings, then gathered). Binary benchmarks draw
   ``x_mi ~ Bernoulli(p_mi)``; graded ones take ``round(sigmoid(logit(p_mi) + graded_noise * z), 3)``.
3. Planted all-correct items are set to 1 for every image-condition model. Any *other* item on which every
   scored image-condition model got 1 by chance has the score of its lowest-``p`` scored model set to 0, so
   the all-correct items of the panel are exactly the planted ones (PRIMEBench section 4.1, first filter).
4. Missing data: a model skips a whole benchmark with probability ``missing_benchmark_rate`` (every
   benchmark keeps at least ``max(2, ceil(M / 2))`` models); then cells go missing at ``missing_rate``
   (never on planted all-correct items; an item left with fewer than two scored models gets its cells back).
5. Text-only rows (the image-free runs of PRIMEBench section 4.1, second filter) for ``n_text_only_models``
   models: ``p^text_mi = sigmoid(logit(q_i) + 0.5 z_m)`` with ``q_i`` about 0.9 on blind-solvable items and
   below ``nonblind_beta_max`` elsewhere (lower for vision-dependent items), ``z_m`` the model's standardised
   general ability. Binary scores are then repaired by the fewest flips so that the mean text-only score
   ``beta_i`` is ``>= blind_beta_min`` on blind-solvable items and ``<= nonblind_beta_max`` on the others;
   graded ones are drawn inside those ranges.
6. Embeddings and question text (:mod:`benchsift.simulate.embeddings`).
7. Shared images (``items_per_image > 1``): consecutive items of a benchmark share an image (item column
   ``image``, ``truth.item_image``); its items share a difficulty offset (``image_difficulty_sd``) and,
   per model, a logit effect (``image_response_sd``) added in step 2, so they are not independent and a
   bootstrap must resample images (:func:`benchsift.panel.item_clusters` infers them from ``image``).

Audit plants (step 2, before the draws; none by default): a share ``mislabel_rate`` of the binary items that
are neither planted all-correct nor blind-solvable gets its key flipped, ``logit p_mi = -a_i (eta_mi - b_i)``
(stronger models answer it less often); a disjoint share ``contamination_rate`` is contaminated:
``contamination_boost`` is added to the logit of the contaminated models (the newest
``contaminated_model_share`` of release dates, or the largest family) only, an advantage their ability does
not explain. ``truth.mislabelled``, ``truth.contaminated`` and ``truth.contaminated_models`` hold them.

Panel layout: rows ``0 .. n_models - 1`` are the image-condition models (row ``m`` = ``truth.abilities[m]``),
followed by the text-only rows in ``truth.text_only_models`` order; item column ``i`` is entry ``i`` of every
per-item truth array. Items are grouped by benchmark, benchmarks by category.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from benchsift.panel import Panel
from benchsift.simulate.config import SimulationConfig
from benchsift.simulate.embeddings import simulate_embeddings, simulate_questions
from benchsift.simulate.structure import (
    BenchmarkStructure,
    ItemStructure,
    ModelStructure,
    make_benchmarks,
    make_items,
    make_models,
)
from benchsift.simulate.truth import GroundTruth
from benchsift.stats import check_random_state

BINARY_GUESS = 0.25  # text-only success rate of a non-blind multiple-choice item with no vision dependence
BLIND_TEXT_P = 0.9  # typical text-only success rate of a blind-solvable item


@dataclass(frozen=True, eq=False)
class SimulatedPanel:
    """A simulated :class:`~benchsift.panel.Panel` and the :class:`GroundTruth` behind it."""

    panel: Panel
    truth: GroundTruth

    def summary(self) -> dict[str, Any]:
        """Sizes and planted structure (what ``benchsift simulate`` prints): models, text-only runs, items,
        benchmarks, categories, all-correct and blind-solvable items, graded benchmarks, and over the
        image-condition runs the missing fraction and the NaN-aware mean score; the central benchmark of
        each category."""
        panel, gt = self.panel, self.truth
        image = panel.scores[: gt.n_models]
        return {
            "n_models": gt.n_models,
            "n_text_only_runs": len(gt.text_only_models),
            "n_items": panel.n_items,
            "n_benchmarks": len(panel.benchmarks),
            "n_categories": len(panel.categories),
            "n_all_correct": int(gt.all_correct.sum()),
            "n_blind_solvable": int(gt.blind_solvable.sum()),
            "graded_benchmarks": gt.graded_benchmarks,
            "missing_fraction": float(np.isnan(image).mean()),
            "mean_score": float(np.nanmean(image)),
            "central_benchmark": gt.central_benchmark,
            **self._plant_summary(),
        }

    def _plant_summary(self) -> dict[str, Any]:
        """The audit plants' counts (mislabelled and contaminated items, contaminated models); empty when
        nothing is planted, so a plain simulation's summary is unchanged."""
        gt = self.truth
        if not (gt.mislabelled.any() or gt.contaminated.any()):
            return {}
        return {
            "n_mislabelled": int(gt.mislabelled.sum()),
            "n_contaminated": int(gt.contaminated.sum()),
            "n_contaminated_models": len(gt.contaminated_models),
        }


def _sigmoid_inplace(x: np.ndarray) -> np.ndarray:
    np.negative(x, out=x)
    np.exp(x, out=x)
    x += 1.0
    np.reciprocal(x, out=x)
    return x


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return np.log(p) - np.log1p(-p)


@dataclass(frozen=True)
class _Defects:
    """The audit plants: item masks and the contaminated image-condition rows."""

    mislabelled: np.ndarray
    contaminated: np.ndarray
    contaminated_rows: np.ndarray


def _plant_defects(
    cfg: SimulationConfig,
    bench: BenchmarkStructure,
    models: ModelStructure,
    items: ItemStructure,
    rng: np.random.Generator,
) -> _Defects:
    """Choose the mislabelled and contaminated items and the contaminated models (draws nothing when both
    rates are 0, so the rest of the panel is the same as without the plants)."""
    n = items.benchmark.size
    mislabelled = np.zeros(n, dtype=bool)
    contaminated = np.zeros(n, dtype=bool)
    rows = np.zeros(0, dtype=np.int64)
    if cfg.mislabel_rate == 0 and cfg.contamination_rate == 0:
        return _Defects(mislabelled, contaminated, rows)
    pool = np.flatnonzero(~bench.graded[items.benchmark] & ~items.all_correct & ~items.blind_solvable)
    k_mis = min(int(round(cfg.mislabel_rate * n)), pool.size)
    k_con = min(int(round(cfg.contamination_rate * n)), pool.size - k_mis)
    chosen = rng.permutation(pool)
    mislabelled[chosen[:k_mis]] = True
    contaminated[chosen[k_mis : k_mis + k_con]] = True
    if cfg.contamination_by == "era":
        dates = models.release_date.astype(np.int64)
        n_new = int(round(cfg.contaminated_model_share * dates.size))
        rows = np.sort(np.argsort(-dates, kind="stable")[:n_new])
    else:
        names, counts = np.unique(np.asarray(models.family, dtype=object), return_counts=True)
        largest = names[int(np.argmax(counts))]
        rows = np.flatnonzero(np.asarray(models.family, dtype=object) == largest)
    return _Defects(mislabelled, contaminated, rows.astype(np.int64))


def _image_scores(
    cfg: SimulationConfig,
    bench: BenchmarkStructure,
    models: ModelStructure,
    items: ItemStructure,
    rng: np.random.Generator,
    defects: _Defects | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Return ``(scores, p, image_response)`` for the image-condition models, ``(M, N)`` each (steps 2-3;
    ``image_response`` the (M, n_images) model x image effects of step 7, or None; the audit plants
    ``defects`` act on the whole logit)."""
    theta = models.abilities
    # items of one benchmark dimension group share their traits and loadings: compute each group's
    # effective ability once, then gather one (M, N) matrix
    key = np.concatenate([items.trait_index, items.trait_loading], axis=1)
    uniq, inverse = np.unique(key, axis=0, return_inverse=True)
    idx = uniq[:, :3].astype(np.int64)
    latent = np.einsum("mgk,gk->mg", theta[:, idx], uniq[:, 3:])
    eta = latent[:, inverse.ravel()]
    eta -= items.difficulty
    eta *= items.discrimination  # eta now holds the logit a (eta - b)
    response = None
    if items.image is not None and cfg.image_response_sd > 0:  # model x image effect, shared by an image
        n_images = int(items.image.max()) + 1
        response = cfg.image_response_sd * rng.standard_normal((theta.shape[0], n_images))
        eta += response[:, items.image]
    if defects is not None:
        eta[:, defects.mislabelled] *= -1.0
        if defects.contaminated.any() and defects.contaminated_rows.size:
            cols = np.flatnonzero(defects.contaminated)
            eta[np.ix_(defects.contaminated_rows, cols)] += cfg.contamination_boost
    graded_items = bench.graded[items.benchmark]
    logit_graded = eta[:, graded_items] + cfg.graded_noise * rng.standard_normal(
        (theta.shape[0], int(graded_items.sum()))
    )
    p = _sigmoid_inplace(eta)
    scores = (rng.random(p.shape) < p).astype(np.float64)
    scores[:, graded_items] = np.round(_sigmoid_inplace(logit_graded), 3)
    scores[:, items.all_correct] = 1.0
    return scores, p, response


def _apply_missing(
    cfg: SimulationConfig,
    bench: BenchmarkStructure,
    items: ItemStructure,
    scores: np.ndarray,
    rng: np.random.Generator,
) -> None:
    """Step 4, in place."""
    m, n = scores.shape
    u_bench = rng.random((m, len(bench.names)))
    need = min(m, max(2, -(-m // 2)))
    # a model keeps a benchmark if its draw is above the rate, or if it is among the `need` highest draws
    rank_desc = np.argsort(np.argsort(-u_bench, axis=0, kind="stable"), axis=0, kind="stable")
    skip_bench = (u_bench < cfg.missing_benchmark_rate) & (rank_desc >= need)
    cell_missing = rng.random((m, n)) < cfg.missing_rate
    cell_missing[:, items.all_correct] = False
    bench_missing = skip_bench[:, items.benchmark]
    missing = bench_missing | cell_missing
    too_few = (m - missing.sum(axis=0)) < min(2, m)
    if too_few.any():
        missing[:, too_few] = bench_missing[:, too_few]
    scores[missing] = np.nan


def _break_chance_all_correct(items: ItemStructure, scores: np.ndarray, p: np.ndarray) -> None:
    """Step 3, second half, in place: no unplanted item is all-correct among its scored image models."""
    observed = ~np.isnan(scores)
    all_one = np.all(np.where(observed, scores == 1.0, True), axis=0) & ~items.all_correct
    cols = np.flatnonzero(all_one)
    if cols.size:
        p_obs = np.where(observed[:, cols], p[:, cols], np.inf)
        rows = np.argmin(p_obs, axis=0)
        scores[rows, cols] = 0.0


def _text_only_scores(
    cfg: SimulationConfig,
    bench: BenchmarkStructure,
    models: ModelStructure,
    items: ItemStructure,
    text_rows: np.ndarray,
    rng: np.random.Generator,
) -> np.ndarray:
    """Step 5: ``(T, N)`` text-only scores."""
    t, n = text_rows.size, items.benchmark.size
    if t == 0:
        return np.empty((0, n))
    graded = bench.graded[items.benchmark]
    blind = items.blind_solvable
    guess = np.where(graded, 0.0, BINARY_GUESS)
    lo, hi = cfg.blind_beta_min, cfg.nonblind_beta_max
    q_non = guess + (hi - guess) * 0.6 * (1.0 - items.vision_dependence)
    q_blind = BLIND_TEXT_P + 0.08 * (1.0 - items.vision_dependence)
    q = np.where(blind, q_blind, np.maximum(q_non, 0.02))
    general = models.abilities[:, 0]
    z = (general[text_rows] - general.mean()) / max(float(general.std()), 1e-12)
    p = _sigmoid_inplace(_logit(q)[None, :] + 0.5 * z[:, None])
    u = rng.random((t, n))
    x = (u < p).astype(np.float64)

    # binary repair: fewest flips, chosen at random, so that beta_i lands on the planted side
    keys = rng.random((t, n))
    s = x.sum(axis=0)
    need = int(np.ceil(lo * t - 1e-9))
    cap = int(np.floor(hi * t + 1e-9))
    deficit = np.where(blind & ~graded, np.maximum(need - s, 0), 0)
    excess = np.where(~blind & ~graded, np.maximum(s - cap, 0), 0)
    zero_rank = np.argsort(np.argsort(np.where(x == 0, keys, np.inf), axis=0), axis=0)
    one_rank = np.argsort(np.argsort(np.where(x == 1, keys, np.inf), axis=0), axis=0)
    x[(x == 0) & (zero_rank < deficit)] = 1.0
    x[(x == 1) & (one_rank < excess)] = 0.0

    g = np.flatnonzero(graded)
    if g.size:
        pg = p[:, g]
        val = np.where(
            blind[g], np.maximum(np.round(lo + (1 - lo) * pg, 3), lo), np.minimum(np.round(hi * pg, 3), hi)
        )
        x[:, g] = val
    return x


def _models_frame(models: ModelStructure, text_rows: np.ndarray) -> pd.DataFrame:
    release = models.release_date.copy()
    release[models.undated] = np.datetime64("NaT")
    params = np.where(models.unknown_params, np.nan, models.params)
    rows = np.concatenate([np.arange(len(models.names)), text_rows])
    return pd.DataFrame(
        {
            "model": [models.names[r] for r in rows],
            "condition": ["image"] * len(models.names) + ["text-only"] * text_rows.size,
            "family": [models.family[r] for r in rows],
            "release_date": release[rows],
            "params": params[rows],
        }
    )


def _items_frame(
    cfg: SimulationConfig, bench: BenchmarkStructure, items: ItemStructure, questions: np.ndarray
) -> pd.DataFrame:
    width = max(4, len(str(int(bench.sizes.max()) - 1)))
    names = np.array(bench.names, dtype=object)
    cats = np.array(bench.category_names, dtype=object)
    item_ids = np.strings.add("q", np.strings.zfill(items.local_index.astype(np.str_), width))
    frame = {
        "benchmark": names[items.benchmark],
        "item": item_ids.astype(object),
        "category": cats[bench.category[items.benchmark]],
        "question": questions.astype(object),
    }
    if cfg.n_dimensions > 0:
        frame["dimension"] = np.strings.add("dim", items.dimension.astype(np.str_)).astype(object)
    if items.image is not None:  # the shared image file, relative to the benchmark's image folder
        local_image = items.local_index // cfg.items_per_image
        frame["image"] = np.strings.add(
            np.strings.add("img", np.strings.zfill(local_image.astype(np.str_), width)), ".png"
        ).astype(object)
    return pd.DataFrame(frame)


def simulate_panel(
    config: SimulationConfig | None = None, random_state: int | np.random.Generator | None = 0
) -> SimulatedPanel:
    """Simulate a panel with known ground truth (model in the module docstring).

    Parameters
    ----------
    config:
        Sizes and rates; :meth:`SimulationConfig.small` when omitted.
    random_state:
        Seed (int), ``numpy.random.Generator`` or None; the same int gives identical arrays.

    Returns
    -------
    SimulatedPanel
        ``.panel`` (scores in [0, 1], NaN missing, image rows then text-only rows) and ``.truth``.
    """
    cfg = config if config is not None else SimulationConfig.small()
    cfg.validate()
    rng = check_random_state(random_state)
    bench = make_benchmarks(cfg, rng)
    items = make_items(cfg, bench, rng)
    models = make_models(cfg, bench, items, rng)

    defects = _plant_defects(cfg, bench, models, items, rng)
    scores, p, response = _image_scores(cfg, bench, models, items, rng, defects)
    _apply_missing(cfg, bench, items, scores, rng)
    _break_chance_all_correct(items, scores, p)
    del p
    text_rows = np.sort(rng.choice(cfg.n_models, size=cfg.n_text_only_models, replace=False))
    text_scores = _text_only_scores(cfg, bench, models, items, text_rows, rng)

    cluster_bench = np.repeat(np.arange(len(bench.names)), cfg.clusters_per_benchmark)
    emb_vl, emb_text = simulate_embeddings(
        rng,
        items.cluster,
        cluster_bench,
        bench.category,
        items.vision_dependence,
        cfg.embedding_dim,
        cfg.embedding_noise,
    )
    questions = simulate_questions(rng, items.cluster, cluster_bench.size, cfg.question_words)

    panel = Panel(
        np.concatenate([scores, text_scores], axis=0) if text_rows.size else scores,
        _models_frame(models, text_rows),
        _items_frame(cfg, bench, items, questions),
    )
    bench_names = bench.names
    dimension_groups: dict[str, dict[str, int]] = {}
    if cfg.n_dimensions > 0:
        for b, name in enumerate(bench_names):
            if not bench.central[b]:
                dimension_groups[name] = {
                    f"dim{d}": int(items.dimension_group[b, d]) for d in range(cfg.n_dimensions)
                }
    config_dict = cfg.to_dict()
    config_dict["random_state"] = int(random_state) if isinstance(random_state, numbers.Integral) else None
    truth = GroundTruth(
        trait_names=models.trait_names,
        abilities=models.abilities,
        factor_abilities=models.factor_abilities,
        category_factor_loading=models.category_factor_loading,
        release_date_true=models.release_date,
        params_true=models.params,
        text_only_models=[models.names[r] for r in text_rows],
        item_discrimination=items.discrimination,
        item_difficulty=items.difficulty,
        item_trait_index=items.trait_index,
        item_trait_loading=items.trait_loading,
        item_cluster=items.cluster,
        item_image=items.image,
        image_response=response,
        vision_dependence=items.vision_dependence,
        all_correct=items.all_correct,
        blind_solvable=items.blind_solvable,
        embeddings_vl=emb_vl,
        embeddings_text=emb_text,
        benchmark_category={
            name: bench.category_names[bench.category[b]] for b, name in enumerate(bench_names)
        },
        central_margin=models.central_margin,
        central_benchmark={
            bench.category_names[bench.category[b]]: name
            for b, name in enumerate(bench_names)
            if bench.central[b]
        },
        benchmark_specific_weight={
            name: float(bench.specific_weight[b]) for b, name in enumerate(bench_names)
        },
        graded_benchmarks=[name for b, name in enumerate(bench_names) if bench.graded[b]],
        dimension_groups=dimension_groups,
        config=config_dict,
        mislabelled=defects.mislabelled,
        contaminated=defects.contaminated,
        contaminated_models=[models.names[r] for r in defects.contaminated_rows],
    )
    return SimulatedPanel(panel=panel, truth=truth)
