"""New-model estimates from a released suite (PRIMEBench section 4.4: "the released suite reports only the k
selected category pools").

A new model is evaluated on the suite items only. Its estimated category mean is the NaN-aware mean of its
scores over the category's suite items, its overall score the mean of its category means (each selected
category weighs the same, the rule the suite was selected and validated with), and its rank is
``1 + #(reference models with a higher overall score)`` among the panel's models stored in the suite.

Uncertainty: a bootstrap over suite items, stratified by category (each category resamples its own items, so
no category vanishes from a replicate), with the *same* resampled items for the reference models and the new
ones (paired). For each category the replicate sums are one matrix product with the
:func:`benchsift.stats.bootstrap_weights` matrix, so the cost is ``O(n_boot x n_items x n_models)`` in
BLAS, no loop over replicates. The overall-score interval is the percentile interval of the replicate
scores (linear interpolation). Ranks are integers, so the rank interval takes order statistics instead of
interpolating between them: its ends are the replicate ranks at the :math:`(1-\text{level})/2` quantile
rounded down and at the :math:`(1+\text{level})/2` quantile rounded up (numpy's ``"lower"`` and
``"higher"`` methods), i.e. the outward-rounded percentile interval. A new model with no score on any suite
item has an undefined (NaN) overall score, rank and intervals.

Clustered items (suite items that share an image or a source question: the suite's ``cluster`` column,
written by ``compress`` when the panel had clusters, see :func:`benchsift.panel.item_clusters`): within
each category the bootstrap then resamples the clusters of the category's suite items, whole
(:func:`benchsift.stats.cluster_bootstrap_weights`; Davison & Hinkley 1997, Sec. 3.8); a cluster that
spans two categories is resampled as two, one per category. Without shared clusters it is exactly the item
bootstrap above, the same bytes for the same seed.

Those are scores *on the suite*. What a new model would have scored on the full benchmarks comes from the
suite's fitted full-score estimators (:mod:`benchsift.compression.full_score`, written by ``compress`` as
``full_score.json``): per benchmark, per category and overall, the estimate of the chosen method (picked by
cross-validation on the reference models), a split-conformal interval, the suite-item mean beside it
(labelled as such), and the rank among the reference models on their full scores with its interval.
"""

from __future__ import annotations

import warnings as _warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchsift._inputs import named_hints
from benchsift.compression.full_score import FullScoreEstimates, small_reference_warning
from benchsift.compression.full_score_xbench import known_scores
from benchsift.compression.suite import Suite, load_suite
from benchsift.errors import EstimateWarning, InputError, listed
from benchsift.io import import_panel, read_scores
from benchsift.io.notes import subset_run, warning_lines
from benchsift.panel import ClusterSpec, ItemClusters, Panel, item_clusters
from benchsift.panel.keys import numeric_twins, twins_text
from benchsift.results import Result
from benchsift.stats import (
    SeedLike,
    bootstrap_weights,
    check_random_state,
    cluster_bootstrap_weights,
    percentile_ci,
)
from benchsift.stats.means import group_nan_means, nan_mean
from benchsift.stats.ranks import rank_among

__all__ = ["EstimateResult", "estimate_new_models"]


@dataclass(frozen=True, repr=False)
class EstimateResult(Result):
    """Estimates for the new models (rows in ``models`` order).

    ``category_means`` is ``(n_new, n_categories)``; ``overall_ci`` / ``rank_ci`` are ``(n_new, 2)``
    percentile intervals at ``level``; ``coverage`` the fraction of suite items each model has a score for.
    """

    models: list[str]
    categories: list[str]
    category_means: np.ndarray
    overall: np.ndarray
    overall_ci: np.ndarray
    rank: np.ndarray
    rank_ci: np.ndarray
    n_reference: int
    coverage: np.ndarray
    n_boot: int
    level: float
    n_ignored_rows: int = 0
    notes: list[str] = field(default_factory=list)
    full: FullScoreEstimates | None = None
    warnings: list[str] = field(default_factory=list)
    clusters: dict[str, object] | None = None

    def full_table(self) -> pd.DataFrame:
        """One row per (model, group): the full-pool estimate, its interval and the suite-item mean."""
        if self.full is None:
            raise InputError("this suite has no full-score estimators (written by an older compress)")
        f = self.full
        m = f.method
        rows = []
        for j, name in enumerate(f.models):
            for c, g in enumerate(f.groups):
                rows.append(
                    {
                        "model": name,
                        "group": g,
                        "kind": f.kinds[c],
                        "score": f.score[m][j, c],
                        "low": f.low[m][j, c],
                        "high": f.high[m][j, c],
                        "suite_mean": f.suite_mean[j, c],
                    }
                )
        return pd.DataFrame(rows)

    def to_frame(self) -> pd.DataFrame:
        """One row per new model, the headline first.

        With full-score estimators (suites written by ``compress`` since they exist): per benchmark
        ``BENCHMARK`` / ``BENCHMARK_low`` / ``BENCHMARK_high`` (the estimated full-benchmark score and its
        interval), ``overall`` / ``overall_low`` / ``overall_high`` (the mean over the benchmarks),
        ``rank`` / ``rank_low`` / ``rank_high`` among the reference models on their full scores,
        ``extrapolating`` (the model's ability lies outside the reference models': its interval was
        widened), ``at_edge`` (as able on the suite as the strongest reference models, where a stronger model
        looks the same: the interval's upper end was widened, :mod:`benchsift.compression.extrapolation`),
        ``below_edge`` (as weak on the suite as the weakest reference models, where a weaker model looks the
        same: the interval's lower end was widened),
        ``method`` (the estimator behind the model's headline: the chosen one, or for a model at the edge the
        one the folds that hold out the strongest reference models chose, and with at least 50 reference
        models the stack for a model not at the edge, ``full_score.INSIDE_METHOD``; ``"METHOD+stratified"``
        where it is the mean of that one's and the stratified mean of the model's suite answers,
        :func:`benchsift.compression.extrapolation.stratified_blend`),
        then the means over the suite's items, labelled ``suite_mean_CATEGORY`` and
        ``suite_mean_overall`` (the mean of the category means, PRIMEBench's suite score; the mean of the
        benchmarks' suite means, which stands beside ``overall``, is :meth:`full_table`'s ``suite_mean`` of
        group ``overall``) with ``suite_rank`` (rank on the suite), ``n_reference`` and ``coverage``.
        Without them (an older suite) only the ``suite_mean_*`` columns, never under a benchmark's name.
        A model with no score on any suite item is NaN throughout.
        """
        df = pd.DataFrame({"model": self.models})
        if self.full is not None:
            f = self.full
            m = f.method
            for c, (g, kind) in enumerate(zip(f.groups, f.kinds, strict=True)):
                if kind == "category":
                    continue
                df[g] = f.score[m][:, c]
                df[f"{g}_low"] = f.low[m][:, c]
                df[f"{g}_high"] = f.high[m][:, c]
            df["rank"] = f.rank
            df["rank_low"] = f.rank_interval[:, 0]
            df["rank_high"] = f.rank_interval[:, 1]
            ext = f.extrapolating if f.extrapolating is not None else np.zeros(len(self.models), dtype=bool)
            df["extrapolating"] = ext
            df["at_edge"] = f.at_edge if f.at_edge is not None else np.zeros(len(self.models), dtype=bool)
            none = np.zeros(len(self.models), dtype=bool)
            df["below_edge"] = f.below_edge if f.below_edge is not None else none
            df["method"] = f.estimator if f.estimator is not None else m  # the edge models' may differ
        for c, name in enumerate(self.categories):
            df[f"suite_mean_{name}"] = self.category_means[:, c]
        df["suite_mean_overall"] = self.overall
        df["suite_mean_overall_low"] = self.overall_ci[:, 0]
        df["suite_mean_overall_high"] = self.overall_ci[:, 1]
        df["suite_rank"] = self.rank
        df["n_reference"] = self.n_reference
        df["coverage"] = self.coverage
        return df

    def to_dict(self) -> dict[str, object]:
        """The ``--json`` object of ``benchsift estimate``.

        With full-score estimators (suites written by this version): ``{"method", "level", "n_reference",
        "models": [{"model", "estimates": {BENCHMARK: {"score", "interval", "suite_mean"}}, "categories":
        {CATEGORY: {...}}, "overall": {...}, "rank", "rank_interval", "theta", "extrapolating", "at_edge",
        "below_edge", "estimator", "coverage", "suite": {...}}], "edge_method", "notes"}``
        where ``score`` is the estimated full-pool score and ``suite`` the scores on the suite (category
        means, overall, rank and their bootstrap intervals). ``overall.suite_mean`` is the mean of the
        benchmarks' suite means (each benchmark weighs alike, as in ``overall.score``); ``suite.overall``
        the mean of the category means (each category weighs alike): they differ where a category holds
        several benchmarks or a benchmark several categories. Without them ``method`` is ``"suite_mean"`` and
        each model carries only ``suite``.
        """
        full = self.full.to_dict() if self.full is not None else None
        models = []
        for j, m in enumerate(self.models):
            suite_part = {
                "category_means": dict(zip(self.categories, self.category_means[j].tolist(), strict=True)),
                "overall": float(self.overall[j]),
                "overall_ci": self.overall_ci[j].tolist(),
                "rank": float(self.rank[j]),
                "rank_ci": self.rank_ci[j].tolist(),
            }
            entry: dict[str, object] = {"model": m}
            if full is not None:
                entry.update({k: v for k, v in full["models"][j].items() if k != "model"})
            entry["coverage"] = float(self.coverage[j])
            entry["suite"] = suite_part
            models.append(entry)
        return {
            "method": "suite_mean" if full is None else full["method"],
            "edge_method": None if full is None else full["edge_method"],
            "level": self.level,
            "n_reference": self.n_reference,
            "n_boot": self.n_boot,
            "clusters": self.clusters,
            "categories": self.categories,
            "n_ignored_rows": self.n_ignored_rows,
            "notes": self.notes,
            "warnings": self.warnings,
            "models": models,
        }

    def table(self) -> pd.DataFrame:
        """The same as :meth:`to_frame` (the name the CLI and older code use)."""
        return self.to_frame()


def _scores_on_suite(suite: Suite, new: Panel) -> tuple[list[str], np.ndarray, int]:
    image = new.image_panel()
    key_index = {
        (b, i): j for j, (b, i) in enumerate(zip(suite.items["benchmark"], suite.items["item"], strict=True))
    }
    cols = np.array([key_index.get(k, -1) for k in image.item_keys], dtype=np.int64)
    hit = cols >= 0
    out = np.full((image.n_models, suite.n_items), np.nan)
    out[:, cols[hit]] = image.scores[:, hit]
    return image.model_ids, out, int((~hit).sum())


def _rank_interval(boot_rank: np.ndarray, level: float) -> np.ndarray:
    """``(2, n_new)`` outward-rounded percentile interval of the integer replicate ranks.

    NaN replicates are left out: a replicate rank is NaN when the model has no score on any resampled
    item; a model with no defined replicate gets NaN ends.
    """
    out = np.full((2, boot_rank.shape[0]), np.nan)
    ok = (~np.isnan(boot_rank)).any(axis=1)
    if ok.any():
        q = ((1.0 - level) / 2.0, (1.0 + level) / 2.0)
        out[0, ok] = np.nanquantile(boot_rank[ok], q[0], axis=1, method="lower")
        out[1, ok] = np.nanquantile(boot_rank[ok], q[1], axis=1, method="higher")
    return out


def estimate_new_models(
    suite: Suite | str | Path,
    new_scores: Panel | str | Path,
    *,
    from_format: str | None = None,
    export: str | Path | None = None,
    n_boot: int = 2000,
    level: float = 0.95,
    random_state: SeedLike = 0,
    clusters: ClusterSpec = "auto",
    known: Any = None,
) -> EstimateResult:
    """Estimate new models' category means, overall score and rank from their scores on the suite items.

    Parameters
    ----------
    suite:
        A :class:`~benchsift.compression.suite.Suite` or a suite directory.
    new_scores:
        A panel or a file (see :func:`benchsift.io.read_scores`); rows for items outside the suite are
        ignored (counted in ``n_ignored_rows``), suite items a model lacks are missing (never zero). A run
        that lacks suite items, or holds items outside the suite, is named in ``warnings``.
    from_format:
        Read ``new_scores`` (a file or folder) with this import format (``benchsift.io.import_panel``), for
        example ``"lm-eval"`` or ``"inspect"`` for the log folder of a harness run on an exported suite.
    export:
        The folder ``benchsift export`` wrote for the run (or its ``export.json``): maps the names and ids the
        harness logged back to the suite's where they differ (lmms-eval's subset tasks log documents by
        position; :func:`benchsift.compression.export.map_run_to_suite`).
    n_boot, level, random_state:
        Bootstrap replicates over suite items (stratified by category), interval level, seed.
    clusters:
        Item clusters of the suite items (:func:`benchsift.panel.item_clusters` on the suite's items
        table): ``"auto"`` uses its ``cluster`` column when there is one, ``None`` resamples single items,
        a column name or one label per suite item. ``clusters`` of the result says whether clusters were
        used and how many; a grouping inferred from an image column at compress time is in ``warnings``.
    known:
        The new models' known full scores on some of the suite's benchmarks, used as covariates of the
        full-score estimate of the others (:func:`benchsift.compression.full_score_xbench.adjust_known`):
        ``{"MMMU": 0.61}`` (every model), ``{model: {benchmark: score}}``, a DataFrame or CSV file with
        columns ``model``, ``benchmark``, ``score``, or ``"MMMU=0.61,AI2D=0.8"``. Scores are shares in [0, 1].
    """
    s = suite if isinstance(suite, Suite) else load_suite(suite)
    new, read_warnings = _read_new_scores(new_scores, from_format, export)
    if isinstance(n_boot, bool) or not isinstance(n_boot, int | np.integer) or n_boot < 1:
        raise InputError(f"`n_boot`: expected an int >= 1, got {n_boot!r}")
    if not 0.0 < float(level) < 1.0:
        raise InputError(f"`level`: expected a number in (0, 1), got {level!r}")
    source = "new scores" if isinstance(new_scores, Panel) else str(new_scores)
    models, X_new, n_ignored = _scores_on_suite(s, new)
    warnings = read_warnings + _check_run(s, new, models, X_new, n_ignored, source, export)
    coverage = (~np.isnan(X_new)).sum(axis=1) / X_new.shape[1]
    found = _suite_clusters(s, clusters)
    warnings.extend(found.warnings)
    cats = s.categories
    item_cat = s.items["category"].to_numpy(dtype=object)
    member = [np.flatnonzero(item_cat == c) for c in cats]
    member = [m for m in member if m.size]
    cats = [c for c in cats if (item_cat == c).any()]
    X_ref = s.reference_scores
    X_all = np.vstack([X_ref, X_new])
    n_ref = X_ref.shape[0]
    notes: list[str] = []
    cm_all = group_nan_means(X_all, member)
    overall_all = nan_mean(cm_all, axis=1)
    incomplete = np.isnan(cm_all[n_ref:]).any(axis=1) & ~np.isnan(cm_all[n_ref:]).all(axis=1)
    for j in np.flatnonzero(incomplete):
        notes.append(f"model {models[j]!r} has no score in some suite category; its overall uses the others")
    rank = rank_among(overall_all[:n_ref], overall_all[n_ref:])
    for j in np.flatnonzero(np.isnan(overall_all[n_ref:])):
        notes.append(f"model {models[j]!r} has no score on any suite item: its estimates are undefined")
    overall_ci, rank_ci = _suite_bootstrap(
        X_all, n_ref, member, found, int(n_boot), float(level), random_state
    )
    full = _full_estimates(s, X_new, models, notes, warnings, known)
    return EstimateResult(
        models=models,
        categories=cats,
        category_means=cm_all[n_ref:],
        overall=overall_all[n_ref:],
        overall_ci=np.asarray(overall_ci).T,
        rank=rank,
        rank_ci=np.asarray(rank_ci).T,
        n_reference=n_ref,
        coverage=coverage,
        n_boot=int(n_boot),
        level=float(level),
        n_ignored_rows=n_ignored,
        notes=notes,
        full=full,
        warnings=warnings,
        clusters=found.to_dict(),
    )


def _read_new_scores(
    new_scores: Panel | str | Path, from_format: str | None, export: str | Path | None
) -> tuple[Panel, list[str]]:
    """The new models' panel: given, imported with ``from_format``, or read; mapped through ``export``. With
    the importer's warnings (``"<format> import: <line>"``: a run cut short, a rerun left out, a filter
    chosen ...), but for a run of part of a benchmark, which a run of an exported suite is by design (the
    suite items it lacks are named by :func:`_check_run`)."""
    warnings: list[str] = []
    if isinstance(new_scores, Panel):
        if from_format is not None:
            raise InputError("from_format is for reading a file or folder, not a Panel")
        new = new_scores
    elif from_format is not None:
        notes: list[str] = []
        new = import_panel(from_format, [Path(new_scores)], notes=notes)
        warnings = [f"{from_format} import: {w}" for w in warning_lines(notes) if not subset_run(w)]
    else:
        new = read_scores(new_scores)
    if export is not None:
        from benchsift.compression.export import map_run_to_suite

        new = map_run_to_suite(new, export)
    return new, warnings


def _check_run(
    s: Suite,
    new: Panel,
    models: list[str],
    X_new: np.ndarray,
    n_ignored: int,
    source: str,
    export: str | Path | None,
) -> list[str]:
    """Refuse a run that matches no suite item (or writes its ids another way); the warnings of one that
    lacks suite items, holds others, or holds the suite's reference models."""
    if not models:
        raise InputError(f"{source}: no image-condition model rows")
    suite_keys = list(zip(s.items["benchmark"].astype(str), s.items["item"].astype(str), strict=True))
    twins = numeric_twins(new.image_panel().item_keys, suite_keys)
    if twins:
        raise InputError(
            f"{source}: {len(twins)} item id(s) of the run are suite items written another way "
            f"({twins_text(twins)}); ids are compared as text: write them as in "
            f"{s.path / 'items.csv'}"
        )
    n_scored = (~np.isnan(X_new)).sum(axis=1)
    suite_benches = list(dict.fromkeys(b for b, _ in suite_keys))
    foreign = [b for b in dict.fromkeys(new.image_panel().items["benchmark"]) if b not in suite_benches]
    # a run's benchmark that compress left out is said to be one; any other is named with what it may be
    dropped = [b for b in foreign if s.input_benchmarks is not None and b in s.input_benchmarks]
    unknown = [b for b in foreign if b not in dropped]
    if not (n_scored > 0).any():
        hint = ""
        if export is None and any(str(b).endswith("_benchsift") for b in new.items["benchmark"].unique()):
            hint = "; a run of an lmms-eval export needs export= (its export folder) to map its ids back"
        elif foreign:
            named = ", ".join(
                ([named_hints(unknown, suite_benches)] if unknown else [])
                + ([f"{listed(dropped, 5)} (left out of the suite by compress)"] if dropped else [])
            )
            hint = f"; the run's benchmarks {named}, the suite's {listed(suite_benches)}"
        raise InputError(
            f"{source}: no score matches a suite item; keys are (benchmark, item) as in "
            f"{s.path / 'items.csv'}{hint}"
        )
    warnings = _run_warnings(models, n_scored, s.n_items, n_ignored)
    if dropped:  # its scores are among the items not used
        warnings.append(
            f"the run's benchmark(s) {listed(dropped, 5)} were in the panel the suite was compressed from "
            "but not kept in the suite (Stages 1 and 3 keep representative benchmarks): their scores are "
            "not used"
        )
    if unknown:
        warnings.append(f"the run's benchmark(s) not in the suite: {named_hints(unknown, suite_benches)}")
    reference = set(s.reference_models)
    in_reference = [m for m in models if m in reference]
    if in_reference:
        warnings.append(
            f"{len(in_reference)} of these models are among the suite's {len(s.reference_models)} reference "
            f"models {listed(in_reference)}: the suite was selected on their scores, so their estimates are "
            "in-sample (optimistic) and each is ranked against its own reference row"
        )
    return warnings


def _suite_bootstrap(
    X_all: np.ndarray,
    n_ref: int,
    member: list[np.ndarray],
    found: ItemClusters,
    n_boot: int,
    level: float,
    random_state: SeedLike,
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval of the new models' suite overall (rows after ``n_ref``) and the outward-rounded
    interval of their rank, from the paired bootstrap over suite items (or clusters) within each category."""
    rng = check_random_state(random_state)
    obs_all = ~np.isnan(X_all)
    X0 = np.where(obs_all, X_all, 0.0)
    boot_cm = np.empty((X_all.shape[0], len(member), n_boot))
    for c, idx in enumerate(member):
        if found.used:  # whole clusters within the category (one per item when none is shared)
            W = cluster_bootstrap_weights(found.codes[idx], n_boot, rng)
        else:
            W = bootstrap_weights(int(idx.size), n_boot, rng)  # (n_boot, n_c)
        sums = X0[:, idx] @ W.T
        counts = obs_all[:, idx].astype(np.float64) @ W.T
        boot_cm[:, c, :] = np.nan
        np.divide(sums, counts, out=boot_cm[:, c, :], where=counts > 0)
    boot_overall = nan_mean(boot_cm, axis=1)  # (n_all, n_boot)
    boot_rank = rank_among(boot_overall[:n_ref], boot_overall[n_ref:])  # (n_new, n_boot)
    return percentile_ci(boot_overall[n_ref:], level=level, axis=1), _rank_interval(boot_rank, level)


def _full_estimates(
    s: Suite, X_new: np.ndarray, models: list[str], notes: list[str], warnings: list[str], known: Any = None
) -> FullScoreEstimates | None:
    """The full-score estimates of the suite's estimators (``None`` for a suite without them, said in
    ``notes``), with the new models' ``known`` full scores as covariates; their notes and warnings are
    added, and a model at the edge is warned of as a Python warning too. ``known`` without estimators is
    refused."""
    if s.full_score is None:
        if known is not None:
            raise InputError("known full scores need a suite with full-score estimators; re-run compress")
        notes.append(
            "this suite has no full-score estimators (written before they existed): the scores below are "
            "means over the suite's items, not full-benchmark scores; re-run compress to get them"
        )
        return None
    full = s.full_score.predict(
        X_new, models, reference=s.reference_scores, known=known_scores(known, models)
    )
    notes.extend(n for n in full.notes if n not in notes)
    warnings.extend(full.warnings)
    ranking = ranking_suite_warning(s)
    if ranking is not None:  # shown by a notebook too
        warnings.append(ranking)
        _warnings.warn(ranking, EstimateWarning, stacklevel=3)
    small = small_reference_warning(s.full_score.n_reference, s.full_score.level)
    if small is not None:  # the intervals are not at the level asked: shown by a notebook too
        _warnings.warn(small, EstimateWarning, stacklevel=3)
    flagged = _flagged(full)
    if flagged.any():  # shown by a notebook, not only stored in the result
        blended = sum(str(e).endswith("+stratified") for e in (full.estimator or []))
        _warnings.warn(
            f"{int(flagged.sum())} of {len(models)} new model(s) lie at or beyond the top (or outside) "
            "of the abilities of the suite's reference models: their full-score estimates may be too low "
            "or extrapolate, and their intervals were widened"
            + (
                f"; {blended} score above every reference model on the stratified mean of their own suite "
                "answers: their estimates are its mean with the headline estimator's"
                if blended
                else ""
            )
            + " (see result.warnings)",
            EstimateWarning,
            stacklevel=3,
        )
    below = full.below_edge if full.below_edge is not None else np.zeros(len(models), dtype=bool)
    if below.any():
        _warnings.warn(
            f"{int(below.sum())} of {len(models)} new model(s) are as weak on the suite as the weakest of "
            "the suite's reference models: their full-score estimates may be too high, and their intervals' "
            "lower ends were widened (see result.warnings)",
            EstimateWarning,
            stacklevel=3,
        )
    return full


#: Stage 2 selectors that do not choose the items to rank the build models: ``estimate`` chooses them for
#: the full-score estimate, ``random`` draws them.
NOT_RANKING_SELECTORS = ("estimate", "random")


def ranking_suite_warning(s: Suite) -> str | None:
    """The warning that the suite's items were chosen to rank models (PRIMEBench's VAW and the other
    ranking selectors), not for the full-score estimate, or None. Measured (5 % suites, ``--floor 0``, five
    random 60 / 40 splits, docs/ESTIMATE.md "Suites chosen to rank"): the estimate's error on a VAW suite was
    1.70x / 1.51x / 1.31x that on an ``--selector estimate`` suite on AI2D / MMMU / MMT, and on AI2D 1.26x
    the expected error of a random item subset of the same size (0.74x on the estimate suite)."""
    selector = s.meta.get("parameters", {}).get("selector") if isinstance(s.meta, dict) else None
    if not isinstance(selector, str) or selector in NOT_RANKING_SELECTORS:
        return None
    return (
        f"this suite's items were chosen by the {selector!r} selector to rank models, not to estimate full "
        "scores: its estimates err more than on a suite built for them (`compress --selector estimate`; "
        "1.3-1.7x on AI2D, MMMU and MMT at 5 %, and on AI2D more than a random item subset of the same size)"
    )


def _flagged(full: FullScoreEstimates) -> np.ndarray:
    """Models whose full-score interval was widened for extrapolation: outside the reference abilities or at
    their top edge (:mod:`benchsift.compression.extrapolation`)."""
    none = np.zeros(len(full.models), dtype=bool)
    ext = full.extrapolating if full.extrapolating is not None else none
    return ext | (full.at_edge if full.at_edge is not None else none)


def _suite_clusters(suite: Suite, clusters: ClusterSpec) -> ItemClusters:
    """The suite items' clusters; an inference made at compress time is said again as a warning."""
    found = item_clusters(suite.items, clusters)
    made = suite.meta.get("clusters") if isinstance(suite.meta.get("clusters"), dict) else None
    if found.used and found.column == "cluster" and made and made.get("inferred") and clusters == "auto":
        warnings = [
            f"the suite's item clusters were inferred at compress time from column {made.get('column')!r} "
            f"of the panel: the bootstrap resamples its {found.n_clusters} clusters of suite items whole "
            "(clusters=None resamples single items)"
        ]
        return ItemClusters(found.codes, found.n_clusters, found.column, True, warnings)
    return found


def _run_warnings(models: list[str], n_scored: np.ndarray, n_suite: int, n_ignored: int) -> list[str]:
    """A run is expected to hold exactly the suite's items: say where it does not (estimates use what is
    there: missing items are missing, never zero; items outside the suite are not used)."""
    out = []
    for m, n in zip(models, n_scored, strict=True):
        if n < n_suite:
            out.append(f"model {m!r} has scores for {n} of the suite's {n_suite} items; estimates use those")
    if n_ignored:
        out.append(f"{n_ignored} scored item(s) of the run are not suite items and were not used")
    return out
