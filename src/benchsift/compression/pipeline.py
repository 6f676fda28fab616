"""The PRIMEBench pipeline: Stages 0-3 chained (PRIMEBench section 4, Table 2).

Every stage is also usable alone (:func:`~benchsift.compression.stages.clean.stage0_clean`,
:func:`~benchsift.compression.stages.representatives.stage1_select`,
:func:`~benchsift.compression.stages.prune.stage2_prune`,
:func:`~benchsift.compression.stages.categories.stage3_select`); :func:`run_pipeline` runs them in order and
"stops at any stage to match the compute budget" (``stop_after``, ``retention=None`` = no Stage 2,
``k=None`` = no Stage 3).

Conventions
-----------
* Items without a category use their benchmark as their own category. A panel with a single category skips
  Stages 1 and 3 (noted in the result, not an error): its pool is the whole cleaned panel.
* **Reference ranking** (PRIMEBench D.3, "end-to-end comparison": "the category means over all Stage
  0-cleaned benchmarks", which "replaces the benchmark mean of Section 3 by the mean of the category
  means"): the mean over categories of the category means on the Stage 0-cleaned pool, a category mean
  being the mean of its benchmarks' mean scores (each benchmark of a category weighs the same, as the
  paper's model scores do: "model scores weight benchmarks equally", App. I.2; each category weighs the
  same; NaN-aware).
* After Stage 1, 2 and 3 a model's score is the mean over the (kept) categories of its **item-pooled** mean
  over the category's pool: the pooled score of App. C.2 ("the item-pooled score of the supplemented
  pool"), the pruned category scores of Eq. 7, and exactly what evaluating a new model on the released
  suite gives. The two rules differ on purpose, as in the paper: the reference weighs the original
  benchmarks, the compressed scores are what the suite can measure. With ``stop_after=0`` the "suite" is
  the cleaned pool scored by the pooled rule, so its rho against the reference is below 1 when benchmark
  sizes differ.
* ``rho`` of every stage is the Spearman correlation across the image-condition models between that
  stage's scores and the reference. ``rho_stage`` is the stage's own figure of PRIMEBench Table 2, and
  ``rho_stage_is`` says which: the correlation between the raw and the cleaned reference (Stage 0), the
  median pooled category correlation (Stage 1), the mean over categories of the correlation between the
  pool mean and the pruned mean **on the same models that selected the items** (Stage 2; the paper's
  Table 2 reports it on held-out models, which the protocols in ``compression.protocols`` compute), and
  the correlation of the k selected categories against all pruned categories (Stage 3).
* ``rho_no_stage3``: the rho against the reference of all pruned categories without Stage 3 (the "No
  Stage 3" column of PRIMEBench Table 12), reported whenever Stage 3 runs.
"""

from __future__ import annotations

import dataclasses
import warnings as _warnings
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from benchsift._jsonutil import to_jsonable
from benchsift._params import renamed_attribute, renamed_params
from benchsift.compression.full_score import (
    CHOICE_MIN_REFERENCE,
    MAX_FULL_SCORE_ITEMS,
    MIN_REFERENCE_MODELS,
    FullScoreModel,
    fit_full_score,
    one_se_choice,
)
from benchsift.compression.selectors.registry import check_selector_name
from benchsift.compression.selectors.vaw import check_variant
from benchsift.compression.stages.categories import Stage3Result, stage3_select
from benchsift.compression.stages.clean import Stage0Result, stage0_clean
from benchsift.compression.stages.means import stage_means, stage_row_means
from benchsift.compression.stages.prune import Stage2Result, stage2_prune
from benchsift.compression.stages.representatives import (
    Stage1Result,
    pair_codes,
    stage1_select,
)
from benchsift.errors import MIN_MODELS, FloorWarning, InputError, require_at_least, warn_each
from benchsift.panel import Panel
from benchsift.panel.fingerprint import panel_fingerprint  # (re-exported: compress records it)
from benchsift.progress import ProgressFn, Ticker
from benchsift.results import Result
from benchsift.stats import spearman
from benchsift.stats.means import group_nan_sums

__all__ = [
    "CompressionConfig",
    "CompressionResult",
    "StageSummary",
    "benchmark_weighted_category_means",
    "panel_fingerprint",
    "pooled_category_means",
    "run_pipeline",
]


#: PRIMEBench's Stage 2 item floor (section 4.3), the default of ``CompressionConfig.floor``.
DEFAULT_FLOOR = 100
#: how the warning that the item floor kept more than the retention begins in ``warnings``
_FLOOR_LINE = "stage 2: the item floor of"
#: With ``selector="estimate"``: the suite designs (share of each category's budget taken by the information
#: strata, :func:`~benchsift.compression.selectors.estimation.estimation_items`) whose full-score estimators
#: are fitted and cross-validated; the suite kept is the first design unless another's headline has a
#: cross-validated error (:meth:`~benchsift.compression.full_score.FullScoreModel.selection_error`) lower by
#: more than :data:`DESIGN_SE` standard errors of the paired difference over the reference models'
#: random-fold errors (:func:`~benchsift.compression.full_score.one_se_choice`), named in ``notes``; with
#: fewer than ``CHOICE_MIN_REFERENCE`` (50) reference models the designs are :data:`SMALL_PANEL_DESIGNS`.
#: The design None is Stage 2's own suite (the selector's ``INFO_SHARE``, half strata and half anchors; the
#: strata information strata, a quarter of the budget difficulty strata instead where the benchmark shows a
#: guessing floor, :mod:`~benchsift.compression.selectors.estimation`), chosen from Stage 2's pool; a number
#: is the same budgets re-chosen with that share from every item of each kept category (the Stage 0-cleaned
#: ones too: a full run counts them), on every reference model. ``0.0`` is the correctness anchors alone
#: (tinyBenchmarks' anchor points, Polo et al. 2024, section 3.1). The anchors come first: they won the
#: random splits of MMT and AI2D, and Stage 2's design must beat them by two standard errors
#: (docs/ESTIMATE.md, issue 31, "Anchors first"; measured with ``bench_estimate_peers.py``, 10 random and 3
#: strongest-40 % splits: the nine random cells of the three VLM panels 0.941 -> 0.919 of the better peer,
#: AI2D 2 % 0.0289 -> 0.0267 against gp-IRT's 0.0271; on seeds 10-19, run after the choice, 0.955 -> 0.949 and
#: AI2D 2 % a tie, 0.0288 against 0.0287; the strongest split a little worse, MMT 5 % 0.0306 -> 0.0342).
ESTIMATE_DESIGNS: tuple[float | str | None, ...] = (0.0, None)
#: The design ``"stratified"``: a stratified random sample of every kept category's items (all of them, not
#: only Stage 2's pool: the Stage 0-cleaned items count in a full run too), strata by the build models' mean
#: score, one item per stratum (:func:`~benchsift.compression.selectors.estimation.difficulty_strata`), with
#: design-based anchor weights (``fit_full_score(stratified=True)``). It needs no item parameters to choose
#: its items, where the other designs' information strata and correctness anchors are only as good as
#: the 2PL and k-means fitted on the reference models.
STRATIFIED = "stratified"
#: The designs weighed with fewer than ``CHOICE_MIN_REFERENCE`` reference models (at least
#: ``MIN_REFERENCE_MODELS``): Stage 2's suite and the stratified sample, the latter kept when its
#: cross-validated error is lower by more than :data:`DESIGN_SE` standard errors. Measured in the
#: docs/ESTIMATE.md, "A stratified sample for small build panels". (Before, only Stage 2's design was fitted
#: below 50 reference models: the anchors-only alternative had lost on the LLM panels.)
SMALL_PANEL_DESIGNS: tuple[float | str | None, ...] = (None, STRATIFIED)
#: Standard errors by which a later design must beat the first to be kept. The paired standard error over
#: reference models that share training folds is too small (Bengio and Grandvalet 2004), the more so with
#: 25-30 models; measured on the three LLM panels (the choices' criteria logged on the same splits, 10
#: random and 3 strongest-40 % seeds x 3 shares): with one SE the mean ratio to the better peer over the
#: nine random cells was 0.853 and over the strongest ones 0.984, with two 0.844 and 0.971 (Stage 2's design
#: alone: 0.840 and 0.972); on MMLU-Pro the stratified sample won by 8-13 SE (seeds 0-1), kept either way.
#: On the VLM panels (anchors first) two SE gave AI2D 2 % 0.0267 where one gave 0.0273 (the same splits).
DESIGN_SE = 2.0


@dataclass(frozen=True)
class CompressionConfig:
    """Parameters of :func:`run_pipeline` (defaults: the released PRIMEBench setting).

    retention: Stage 2 retention ``r`` (None = no Stage 2). alpha: VAW tilt. tau: Stage 0 threshold.
    floor: Stage 2 category floor (100; where it keeps more than ``r`` of a category, ``run_pipeline`` says
    so in ``warnings`` and, at this default, as a :class:`~benchsift.errors.FloorWarning`; 0 keeps ``r``).
    target: Stage 1 supplementation target. selector / variant: Stage 2 selector name and VAW cell variant
    (``selector="estimate"``: the suite chosen for the new-model estimate,
    :mod:`benchsift.compression.selectors.estimation`). k: Stage 3 category count (None = no Stage 3; above
    the categories left after Stage 0 it keeps all of them, with a warning). stage3_method /
    max_combinations: Stage 3 search. random_state: the seed of every random choice (an int >= 0; was
    ``seed``, accepted with a :class:`FutureWarning` until 0.3; the suite file and the CLI's ``--seed``
    keep the name ``seed``). stop_after: last stage to run (0-3).
    full_score / full_score_folds: fit the full-pool score estimators of
    :mod:`benchsift.compression.full_score` on the input panel (cross-validated over ``full_score_folds``
    folds of its image models), so that ``estimate`` reports what a new model would have scored on the
    whole benchmarks, not only its mean over the suite's items.
    """

    retention: float | None = 0.05
    k: int | None = 5
    alpha: float = 0.187
    tau: float = 2.0 / 3.0
    floor: int = DEFAULT_FLOOR
    target: float = 0.95
    selector: str = "vaw"
    variant: str = "cells"
    stage3_method: str = "auto"
    max_combinations: int = 1_000_000
    supplement: bool = True
    random_state: int = 0
    stop_after: int = 3
    full_score: bool = True
    full_score_folds: int = 10

    def __post_init__(self) -> None:
        if self.retention is not None and not (0.0 < float(self.retention) <= 1.0):
            raise InputError(f"`retention`: expected a fraction in (0, 1], got {self.retention!r}")
        if self.k is not None and (isinstance(self.k, bool) or int(self.k) < 1):
            raise InputError(f"`k`: expected a positive number of categories, got {self.k!r}")
        if not 0 <= int(self.stop_after) <= 3:
            raise InputError(f"stop_after: expected a stage number 0-3, got {self.stop_after!r}")
        rs = self.random_state
        if isinstance(rs, bool) or not isinstance(rs, int | np.integer) or rs < 0:
            raise InputError(f"`random_state`: expected an int >= 0, got {rs!r}")
        if isinstance(self.selector, str):  # before any stage runs: a typo is not found after Stage 0
            check_selector_name(self.selector)
        check_variant(self.variant)
        if float(self.alpha) < 0:
            raise InputError(f"`alpha`: expected a number >= 0, got {self.alpha!r}")
        if isinstance(self.full_score_folds, bool) or int(self.full_score_folds) < 2:
            raise InputError(f"full_score_folds: expected an int >= 2, got {self.full_score_folds!r}")

    seed = renamed_attribute("CompressionConfig", "seed", "random_state", until="0.3")

    def to_dict(self) -> dict[str, Any]:
        """The parameters as the suite file writes them (``random_state`` under its file name ``seed``)."""
        return {("seed" if k == "random_state" else k): v for k, v in dataclasses.asdict(self).items()}


# `CompressionConfig(seed=...)` still works until 0.3, with a FutureWarning naming the new keyword
CompressionConfig.__init__.__name__ = "CompressionConfig"
CompressionConfig.__init__ = renamed_params({"seed": "random_state"}, until="0.3")(  # type: ignore[method-assign]
    CompressionConfig.__init__
)


@dataclass(frozen=True)
class StageSummary:
    """One row of the stage table (PRIMEBench Table 2)."""

    stage: int
    name: str
    items_in: int
    items_out: int
    rho: float
    rho_stage: float
    note: str = ""
    rho_stage_is: str = ""

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True, repr=False)
class CompressionResult(Result):
    """Everything :func:`run_pipeline` computed.

    ``suite_items`` are positions in the *input* panel (sorted), with ``suite_category``, ``suite_role``
    (Stage 1 role) and ``suite_reason`` (Stage 2 reason) aligned with them. ``model_ids`` are the
    image-condition models; ``reference`` their Stage 0 reference scores and ``suite_scores`` their scores on
    the suite. ``categories``, ``selected_categories`` and ``suite_category`` are the compression's groups:
    an item's category, or its benchmark's name where it has none
    (:attr:`Panel.category_or_benchmark <benchsift.panel.Panel.category_or_benchmark>`).
    """

    config: CompressionConfig
    fingerprint: str
    stage0: Stage0Result
    stage1: Stage1Result | None
    stage2: Stage2Result | None
    stage3: Stage3Result | None
    stages: list[StageSummary]
    categories: list[str]
    selected_categories: list[str]
    suite_items: np.ndarray
    suite_category: np.ndarray
    suite_role: np.ndarray
    suite_reason: np.ndarray
    model_ids: list[str]
    reference: np.ndarray
    suite_scores: np.ndarray
    rho_suite_vs_stage0: float
    notes: list[str] = field(default_factory=list)
    rho_no_stage3: float = float("nan")
    full_score: FullScoreModel | None = None
    warnings: list[str] = field(default_factory=list)
    holdout: Any = None  # compress --holdout: a benchsift.compression.holdout.HoldoutResult

    @property
    def n_items_suite(self) -> int:
        return int(self.suite_items.size)

    def stage_table(self) -> pd.DataFrame:
        return pd.DataFrame([s.to_dict() for s in self.stages])

    _repr_fields = ("n_items_suite", "selected_categories", "rho_suite_vs_stage0")

    def to_frame(self) -> pd.DataFrame:
        """The stage table (PRIMEBench Table 2): one row per stage (with ``selector="auto"`` the Stage 2
        row's ``note`` says what it picked; :meth:`selector_evidence` has the inner evidence)."""
        return self.stage_table()

    def selector_evidence(self) -> pd.DataFrame:
        """With ``selector="auto"``: one row per (category, candidate) of Stage 2's inner cross-validation
        (:meth:`~benchsift.compression.stages.prune.Stage2Result.selector_evidence`); empty otherwise."""
        if self.stage2 is None:
            return pd.DataFrame()
        return self.stage2.selector_evidence()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the ``--json`` object of ``benchsift compress`` (:meth:`summary`)."""
        return to_jsonable(self.summary())

    def summary(self) -> dict[str, Any]:
        """The ``--json`` object of ``benchsift compress``."""
        return {
            "stages": [
                {
                    "stage": s.stage,
                    "name": s.name,
                    "items_in": s.items_in,
                    "items_out": s.items_out,
                    "rho": s.rho,
                    "rho_stage": s.rho_stage,
                    "rho_stage_is": s.rho_stage_is,
                    "note": s.note,
                }
                for s in self.stages
            ],
            "categories_selected": list(self.selected_categories),
            "n_items_suite": self.n_items_suite,
            "rho_suite_vs_stage0": self.rho_suite_vs_stage0,
            "rho_no_stage3": self.rho_no_stage3,
            "full_score": None if self.full_score is None else self.full_score.summary(),
            "holdout": None if self.holdout is None else self.holdout.to_dict(),
            "selector_choices": [] if self.stage2 is None else self.stage2.selector_choices(),
            "notes": list(self.notes),
            "warnings": list(self.warnings),
        }


def pooled_category_means(panel: Panel, categories: list[str] | None = None) -> tuple[np.ndarray, list[str]]:
    """Per image-condition model and category: the NaN-aware mean over the category's items.

    ``categories`` fixes the column order (a category absent from the panel gives a NaN column).
    """
    image = panel.image_rows
    cats = panel.category_or_benchmark
    names = list(pd.unique(pd.Series(cats, dtype=object))) if categories is None else list(categories)
    index = {c: j for j, c in enumerate(names)}
    codes = np.array([index.get(c, -1) for c in cats], dtype=np.int64)
    sums, counts = group_nan_sums(panel.scores[image], codes, len(names))
    return stage_means(sums, counts), [str(c) for c in names]


def benchmark_weighted_category_means(panel: Panel) -> tuple[np.ndarray, list[str]]:
    """Per image-condition model and category: the mean of the category's benchmark means (NaN-aware).

    The category means of the Stage 0 reference ranking (PRIMEBench D.3).
    """
    image = panel.image_rows
    bench = panel.items["benchmark"].to_numpy(dtype=object)
    return _benchmark_weighted(panel.scores[image], panel.category_or_benchmark, bench)


def _benchmark_weighted(
    scores: np.ndarray, cats: np.ndarray, bench: np.ndarray
) -> tuple[np.ndarray, list[str]]:
    codes, pairs = pair_codes(cats, bench)
    sums, counts = group_nan_sums(scores, codes, len(pairs))
    pair_means = stage_means(sums, counts)
    names = list(dict.fromkeys(c for c, _ in pairs))
    out = np.full((pair_means.shape[0], len(names)), np.nan)
    for j, c in enumerate(names):
        cols = [p for p, (pc, _) in enumerate(pairs) if pc == c]
        out[:, j] = stage_row_means(pair_means[:, cols])
    return out, [str(c) for c in names]


def _rho(x: np.ndarray, ref: np.ndarray) -> float:
    return float(spearman(x, ref))


def _with_categories(panel: Panel) -> Panel:
    """The panel with every missing category replaced by the item's benchmark."""
    items = panel.items
    if not items["category"].isna().any():
        return panel
    items["category"] = panel.category_or_benchmark
    return Panel(panel.scores, panel.models, items)


def _n_steps(cfg: CompressionConfig) -> int:
    """The steps the progress bar counts: Stage 0, each later stage the configuration runs, the
    full-score estimators."""
    return (
        1
        + int(cfg.stop_after >= 1)
        + int(cfg.stop_after >= 2 and cfg.retention is not None)
        + int(cfg.stop_after >= 3 and cfg.k is not None and cfg.selector != "estimate")
        + int(bool(cfg.full_score))
    )


def _stage0_summary(work: Panel, s0: Any, reference: np.ndarray) -> StageSummary:
    """Stage 0's row: the raw panel's category-mean ranking against the cleaned reference."""
    raw_cat, _ = _benchmark_weighted(
        work.scores[work.image_rows],
        work.category_or_benchmark,
        work.items["benchmark"].to_numpy(dtype=object),
    )
    return StageSummary(
        0,
        "cleaning",
        s0.n_in,
        s0.n_out,
        1.0,
        _rho(stage_row_means(raw_cat), reference),
        "defines the reference ranking",
        "raw vs cleaned reference",
    )


def _stage3_share_warning(
    cfg: CompressionConfig, kept: int, n_categories: int, n_suite: int, n_pool: int
) -> list[str]:
    """Stage 3 drops whole categories, so the suite is a smaller share of the pool than ``retention`` asked
    for: the warning says by how much and how to keep every category (none when every category is kept)."""
    if cfg.retention is None or kept >= n_categories:
        return []
    return [
        f"stage 3 kept {kept} of {n_categories} categories: the suite has {n_suite:,} items, "
        f"{n_suite / n_pool:.1%} of the {n_pool:,}, where the retention asked {float(cfg.retention):.1%}; "
        f"--k {n_categories} (Python: k=None) keeps every category"
    ]


def _runs_stage3(cfg: CompressionConfig, n_categories: int) -> bool:
    """Whether Stage 3 (category-count pruning) runs: asked for (``k``), several categories, and a suite for
    ranking. The ``estimate`` selector's suite stands for the whole pool, every category of it: on
    MMLU-Pro (14 categories, 17 build models, 10 random 60/40 splits) Stage 3's default k=5 cut a 2 / 5 /
    10 % suite to 0.7 / 1.8 / 3.6 % of the items and the estimate's MAE was 0.0271 / 0.0262 / 0.0201, without
    it (the share asked for) 0.0206 / 0.0180 / 0.0141 (a random subset of that size: 0.0197 / 0.0153 /
    0.0133, docs/ESTIMATE.md)."""
    return cfg.stop_after >= 3 and cfg.k is not None and n_categories > 1 and cfg.selector != "estimate"


def _category_warnings(cfg: CompressionConfig, n_categories: int) -> list[str]:
    """Stages that will not run as asked: a ``k`` above the categories left, Stage 3 under the ``estimate``
    selector, or one category only."""
    single = n_categories == 1
    out = []
    if cfg.k is not None and cfg.stop_after >= 3 and not single and cfg.selector == "estimate":
        out.append(
            f"stage 3 skipped: the estimate selector's suite stands for all {n_categories} categories "
            f"(k={cfg.k} would keep fewer, and a smaller share of the pool than the retention asks); "
            "--selector vaw runs it"
        )
    elif cfg.k is not None and cfg.stop_after >= 3 and not single and int(cfg.k) > n_categories:
        # as the end-to-end protocol does: more categories asked for than there are keeps all of them
        out.append(
            f"k={cfg.k} exceeds the {n_categories} categories left after Stage 0: Stage 3 keeps all of them"
        )
    if single:
        out.append("the panel has one category: Stages 1 and 3 are skipped")
    return out


def _stage1_step(
    clean: Panel,
    cfg: CompressionConfig,
    categories: list[str],
    reference: np.ndarray,
    kept_pos: np.ndarray,
    role: np.ndarray,
    notes: list[str],
    stages: list[StageSummary],
) -> tuple[Stage1Result, np.ndarray, Panel]:
    """Stage 1 on the cleaned panel: its notes, the items' roles (written into ``role``) and its stage
    row appended; the Stage 1 result, the pool's positions in the input panel and the pool panel."""
    s1 = stage1_select(clean, target=cfg.target, supplement=cfg.supplement)
    notes.extend(f"stage 1: {n}" for n in s1.notes)
    role[kept_pos] = s1.item_roles()
    pooled, _ = pooled_category_means(s1.panel, categories)
    stages.append(
        StageSummary(
            1,
            "category representatives",
            s1.n_in,
            s1.n_out,
            _rho(stage_row_means(pooled), reference),
            s1.median_rho,
            rho_stage_is="median pooled category rho (C.2)",
        )
    )
    return s1, kept_pos[s1.pool], s1.panel


def _stage2_step(
    pool_panel: Panel,
    pool_pos: np.ndarray,
    cfg: CompressionConfig,
    embeddings: Any,
    categories: list[str],
    reference: np.ndarray,
    reason: np.ndarray,
    said: tuple[list[str], list[str]],
    stages: list[StageSummary],
) -> tuple[Stage2Result, np.ndarray, Panel]:
    """Stage 2 on the pool: its notes and warnings added to ``said`` = (notes, warnings) (the default
    floor's warning also issued as a :class:`FloorWarning`), the kept items' reasons written into
    ``reason`` and its stage row appended; the Stage 2 result, the kept items' positions in the input
    panel and the pruned panel."""
    notes, warnings = said
    s2, kept_in_pool, reasons = _run_stage2(pool_panel, cfg, embeddings)
    notes.extend(f"stage 2: {n}" for n in s2.notes)
    warnings.extend(f"stage 2: {w}" for w in s2.warnings)
    for w in s2.warnings:
        # the default floor changes what was asked: said where a notebook shows it (a floor the caller
        # set is a choice: in ``warnings`` only)
        if f"stage 2: {w}".startswith(_FLOOR_LINE) and int(cfg.floor) == DEFAULT_FLOOR:
            _warnings.warn(f"stage 2: {w}", FloorWarning, stacklevel=3)  # the caller of run_pipeline
    pruned_pos = pool_pos[kept_in_pool]
    reason[pruned_pos] = reasons
    pruned_panel = pool_panel.subset(items=kept_in_pool)
    pool_means, _ = pooled_category_means(pool_panel, categories)
    pruned_means, _ = pooled_category_means(pruned_panel, categories)
    per_cat = np.array([spearman(pool_means[:, j], pruned_means[:, j]) for j in range(len(categories))])
    finite = per_cat[np.isfinite(per_cat)]
    stages.append(
        StageSummary(
            2,
            f"item pruning ({cfg.selector})",
            pool_panel.n_items,
            pruned_panel.n_items,
            _rho(stage_row_means(pruned_means), reference),
            float(finite.mean()) if finite.size else float("nan"),
            _choice_note(s2),
            rho_stage_is="mean category rho, in-panel (not held-out)",
        )
    )
    return s2, pruned_pos, pruned_panel


def _stage3_step(
    pool_panel: Panel,
    cfg: CompressionConfig,
    categories: list[str],
    reference: np.ndarray,
    stages: list[StageSummary],
) -> tuple[Stage3Result, np.ndarray, float]:
    """Stage 3 on the pruned pool: the Stage 3 result, the mask of the pool's items in the selected
    categories and the rho without Stage 3; its stage row appended."""
    X, _ = pooled_category_means(pool_panel, categories)
    rho_no_stage3 = _rho(stage_row_means(X), reference)
    k = min(int(cfg.k), len(categories))  # type: ignore[arg-type]
    s3 = stage3_select(
        X,
        k,
        categories=categories,
        method=cfg.stage3_method,
        max_combinations=cfg.max_combinations,
        sweep=True,
    )
    keep = np.isin(pool_panel.category_or_benchmark, list(s3.selected))
    stages.append(
        StageSummary(
            3,
            "category-count pruning",
            pool_panel.n_items,
            int(keep.sum()),
            _rho(stage_row_means(X[:, list(s3.positions)]), reference),
            s3.rho,
            f"k={k}, {s3.method}",
            "k selected vs all pruned categories",
        )
    )
    return s3, keep, rho_no_stage3


def _estimators(
    work: Panel,
    suite_items: np.ndarray,
    cfg: CompressionConfig,
    s2: Stage2Result | None,
    stage2_pool: tuple[np.ndarray, np.ndarray],
    selected: list[str],
    messages: tuple[list[str], list[str]],
) -> tuple[Any, np.ndarray, str]:
    """``(model, suite items, reason)``: the full-score estimators of the suite (:func:`fit_full_score`), or
    ``None`` with a warning when the panel has too many items or too few reference models. With the
    ``estimate`` selector every design of :data:`ESTIMATE_DESIGNS` (with fewer than ``CHOICE_MIN_REFERENCE``
    reference models, of :data:`SMALL_PANEL_DESIGNS`) is fitted and the one the standard-error rule keeps
    (:data:`DESIGN_SE`) is returned with its suite (a note names the designs' errors and the one kept) and
    its items' reason (``"anchor"``, ``"stratum"``; ``""`` for Stage 2's own suite)."""
    notes, warnings = messages
    image = work.scores[work.image_rows]
    ref_scores = image[np.isfinite(image).any(axis=1)]  # the reference models: image runs with a score
    n_image = ref_scores.shape[0]
    if work.n_items > MAX_FULL_SCORE_ITEMS:
        warnings.append(
            f"full-score estimators not fitted: the panel has {work.n_items:,} items, more than the "
            f"{MAX_FULL_SCORE_ITEMS:,} they are measured up to (time and memory grow with the items); "
            "estimate will report suite means only"
        )
        return None, suite_items, ""
    if n_image < MIN_REFERENCE_MODELS:
        warnings.append(
            f"full-score estimators not fitted: they need at least {MIN_REFERENCE_MODELS} image models "
            f"with scores to cross-validate, the panel has {n_image}; estimate will report suite means "
            "only"
        )
        return None, suite_items, ""
    if _estimate_budgets(s2, selected) is None:
        designs: tuple[float | str | None, ...] = (None,)  # another selector's suite: nothing to re-choose
    else:
        designs = ESTIMATE_DESIGNS if n_image >= CHOICE_MIN_REFERENCE else SMALL_PANEL_DESIGNS
    frame = (np.arange(work.n_items), work.category_or_benchmark)  # every item (Stage 0-cleaned too)
    fits: list[tuple[Any, np.ndarray]] = []
    for share in designs:
        pool = stage2_pool if share is None else frame
        reselect = _estimate_reselect(s2, pool, selected, cfg.random_state, share)
        items = suite_items
        if reselect is not None and share is not None:  # another design: its suite on the reference models
            items = reselect(ref_scores)
        model = fit_full_score(
            work,
            items,
            n_folds=cfg.full_score_folds,
            random_state=cfg.random_state,
            reselect=reselect,
            stratified=share == STRATIFIED,
        )
        fits.append((model, items))
    if len(fits) == 1:
        return (*fits[0], _design_reason(designs[0]))
    names = [_design_name(d) for d in designs]
    errors = {n: m.selection_error() for n, (m, _) in zip(names, fits, strict=True)}
    losses = {n: m.reference_losses() for n, (m, _) in zip(names, fits, strict=True)}
    kept = one_se_choice(names[0], errors, {n: [losses[n] - losses[names[0]]] for n in names}, DESIGN_SE)
    best = names.index(kept)
    shown = ", ".join(f"{n} {errors[n]:.4f}" + (" (kept)" if n == kept else "") for n in names)
    notes.append(
        f"estimate suite design chosen by the full-score cross-validation (random folds' plus strongest "
        f"fold's MAE of the headline; another design than the first only if lower by more than {DESIGN_SE:g} "
        f"standard error(s) of the paired difference, {fits[best][0].method} kept): {shown}"
    )
    return (*fits[best], _design_reason(designs[best]))


def _design_reason(share: float | str | None) -> str:
    """The suite items' reason (after ``estimate:``) of a design other than Stage 2's own (None: ``""``)."""
    return "" if share is None else "stratum" if share == STRATIFIED else "anchor"


def _swap_design(
    work: Panel, chosen: np.ndarray, why: str, reason: np.ndarray, selected: list[str], reference: np.ndarray
) -> tuple[np.ndarray, np.ndarray, float]:
    """Another design's suite in place of Stage 2's (its items' reason ``estimate:WHY``, WHY ``anchor`` or
    ``stratum``), with its pooled scores and their rho against the reference."""
    items = np.asarray(chosen, dtype=np.int64)
    reason[items] = f"estimate:{why}"
    return (items, *_suite_scores(work.subset(items=items), selected, reference))


def _suite_scores(suite: Panel, selected: list[str], reference: np.ndarray) -> tuple[np.ndarray, float]:
    """The suite's pooled scores over the kept categories and their rho against the reference."""
    means, _ = pooled_category_means(suite, selected)
    scores = stage_row_means(means)
    return scores, _rho(scores, reference)


def _design_name(share: float | str | None) -> str:
    """``"anchors only"`` / ``"strata 50 % + anchors"`` (``"difficulty strata ..."`` or ``"information strata
    ..."`` where the selector's ``STRATA`` fixes the kind) / ``"stratified sample"`` for a design of
    ``ESTIMATE_DESIGNS`` or ``SMALL_PANEL_DESIGNS``."""
    from benchsift.compression.selectors.estimation import INFO_SHARE, STRATA

    if share == STRATIFIED:
        return "stratified sample"
    if share is None:
        share = INFO_SHARE
    kind = "" if STRATA == "auto" else f"{STRATA} "
    return "anchors only" if share == 0 else f"{kind}strata {float(share) * 100:g} % + anchors"


def run_pipeline(
    panel: Panel,
    config: CompressionConfig | None = None,
    *,
    embeddings: Any = None,
    progress: ProgressFn | None = None,
) -> CompressionResult:
    """Run PRIMEBench Stages 0-3 on ``panel`` (see the module docstring for the conventions).

    Parameters
    ----------
    panel:
        Image-condition runs plus optional text-only runs (for the blind filter).
    config:
        :class:`CompressionConfig` (default: r = 5 %, k = 5, alpha = 0.187, tau = 2/3, VAW, seed 0).
    embeddings:
        Item embeddings for Stage 2 (an :class:`~benchsift.compression.embeddings.ItemEmbeddings`); None lets
        Stage 2 use its built-in offline text embedding.
    progress:
        ``progress(done, total)`` (:mod:`benchsift.progress`) after each stage the configuration runs
        (Stages 0-3, the full-score estimators); a stage a one-category panel skips counts as done at the
        end. None: silent.
    """
    result = pipeline_result(panel, config, embeddings=embeddings, progress=progress)
    # the floor's line was issued as a FloorWarning (default floor) or is a choice (floor set): not again
    warn_each((w for w in result.warnings if not w.startswith(_FLOOR_LINE)), "run_pipeline")
    return result


def pipeline_result(
    panel: Panel,
    config: CompressionConfig | None = None,
    *,
    embeddings: Any = None,
    progress: ProgressFn | None = None,
) -> CompressionResult:
    """:func:`run_pipeline` without raising its result's ``warnings`` as Python warnings (the default
    floor's :class:`FloorWarning` still is): for callers that build a suite as one step of their own
    computation (``adaptive simulate``'s static comparator, once per split) and report what matters
    themselves."""
    Panel.check(panel, "run_pipeline")
    cfg = config if config is not None else CompressionConfig()
    tick = Ticker(progress, _n_steps(cfg))
    notes: list[str] = []
    warnings: list[str] = []
    messages = (notes, warnings)
    fingerprint = panel_fingerprint(panel)
    work = _with_categories(panel)
    if work is not panel:
        notes.append("items without a category use their benchmark as their own category")

    image_scores = work.scores[work.image_rows]
    require_at_least(
        int(np.isfinite(image_scores).any(axis=1).sum()),
        MIN_MODELS,
        "compress: image-condition models with scores",
        "every stage ranks models by Spearman rho, which is +-1 or undefined on fewer than 3",
    )
    s0 = stage0_clean(work, tau=cfg.tau)
    notes.extend(f"stage 0: {n}" for n in s0.notes)
    warnings.extend(f"stage 0: {w}" for w in s0.warnings)
    clean = s0.panel
    require_at_least(
        clean.n_items, 1, "run_pipeline: items left after Stage 0", "all-correct or blind-solvable"
    )
    ref_cat, categories = benchmark_weighted_category_means(clean)
    reference = stage_row_means(ref_cat)
    model_ids = clean.model_ids
    stages = [_stage0_summary(work, s0, reference)]
    single = len(categories) == 1
    warnings.extend(_category_warnings(cfg, len(categories)))

    # positions of the current pool in the input panel, with per-item Stage 1 role
    kept_pos = s0.kept_positions
    role = np.full(work.n_items, "cleaned", dtype=object)
    s1: Stage1Result | None = None
    pool_pos, pool_panel = kept_pos, clean
    if cfg.stop_after >= 1 and not single:
        tick()
        s1, pool_pos, pool_panel = _stage1_step(
            clean, cfg, categories, reference, kept_pos, role, notes, stages
        )

    s2 = None
    reason = np.full(work.n_items, "", dtype=object)
    pruned_pos = pool_pos
    stage2_pool = (pool_pos, pool_panel.category_or_benchmark)  # for re-choosing the suite in each CV fold
    if cfg.stop_after >= 2 and cfg.retention is not None:
        tick()
        s2, pruned_pos, pool_panel = _stage2_step(
            pool_panel, pool_pos, cfg, embeddings, categories, reference, reason, messages, stages
        )

    s3: Stage3Result | None = None
    selected = list(categories)
    rho_no_stage3 = float("nan")
    if _runs_stage3(cfg, len(categories)):
        tick()
        s3, keep, rho_no_stage3 = _stage3_step(pool_panel, cfg, categories, reference, stages)
        selected = list(s3.selected)
        pruned_pos = pruned_pos[keep]
        pool_panel = pool_panel.subset(items=keep)

    suite_scores, rho_suite = _suite_scores(pool_panel, selected, reference)
    order = np.argsort(pruned_pos, kind="stable")
    suite_items = pruned_pos[order]
    full_score, chosen, why = None, suite_items, ""
    if cfg.full_score:
        tick()
        full_score, chosen, why = _estimators(work, suite_items, cfg, s2, stage2_pool, selected, messages)
    if why:  # the estimate selector's other design won
        suite_items, suite_scores, rho_suite = _swap_design(work, chosen, why, reason, selected, reference)
    warnings += _stage3_share_warning(cfg, len(selected), len(categories), suite_items.size, work.n_items)
    tick(tick.total - tick.done)
    return CompressionResult(
        config=cfg,
        fingerprint=fingerprint,
        stage0=s0,
        stage1=s1,
        stage2=s2,
        stage3=s3,
        stages=stages,
        categories=categories,
        selected_categories=selected,
        suite_items=suite_items,
        suite_category=work.category_or_benchmark[suite_items],
        suite_role=role[suite_items],
        suite_reason=reason[suite_items],
        model_ids=model_ids,
        reference=reference,
        suite_scores=suite_scores,
        rho_suite_vs_stage0=rho_suite,
        notes=notes,
        rho_no_stage3=rho_no_stage3,
        full_score=full_score,
        warnings=warnings,
    )


def _estimate_budgets(s2: Stage2Result | None, selected: list[str]) -> list[tuple[str, int]] | None:
    """With the ``estimate`` selector: ``(category, Stage 2 budget)`` of each kept category; else None."""
    if s2 is None or s2.params.get("selector") != "estimate":
        return None
    keep = set(selected)
    return [(str(r.category), int(r.budget)) for r in s2.categories.itertuples() if str(r.category) in keep]


def _estimate_reselect(
    s2: Stage2Result | None,
    pool: tuple[np.ndarray, np.ndarray],
    selected: list[str],
    seed: int,
    info_share: float | str | None = None,
) -> Any:
    """With the ``estimate`` selector: the suite's choice as a function of the build rows' scores (each kept
    category's items in ``pool`` and its Stage 2 budget,
    :func:`~benchsift.compression.selectors.estimation.estimation_items` with ``info_share``; for
    :data:`STRATIFIED`, difficulty strata over the whole budget), so that the full-score cross-validation
    re-chooses the items in every fold; else None."""
    budgets = _estimate_budgets(s2, selected)
    if budgets is None:
        return None
    from benchsift.compression.selectors.estimation import estimation_items

    pos, cats = pool
    stratified = info_share == STRATIFIED
    share = 1.0 if stratified else None if info_share is None else float(info_share)
    strata: Literal["difficulty"] | None = "difficulty" if stratified else None

    def reselect(X: np.ndarray) -> np.ndarray:
        out = [np.empty(0, dtype=np.int64)]
        for c, budget in budgets:
            cols = pos[cats == c]
            kept, _ = estimation_items(X[:, cols], budget, random_state=seed, info_share=share, strata=strata)
            out.append(cols[kept])
        return np.sort(np.concatenate(out))

    return reselect


def _choice_note(s2: Stage2Result) -> str:
    """``"picked pointbiserial (3 categories), irt2pl (1)"`` for a selector that picks selectors; else ""."""
    picks = [str(c["choice"]) for c in s2.selector_choices() if c["choice"] is not None]
    if not picks:
        return ""
    counts = {p: picks.count(p) for p in sorted(set(picks), key=lambda p: (-picks.count(p), p))}
    shown = ", ".join(f"{p} ({n} {'category' if n == 1 else 'categories'})" for p, n in counts.items())
    return f"picked {shown} by inner cross-validation"


def _run_stage2(
    pool: Panel, cfg: CompressionConfig, embeddings: Any
) -> tuple[Stage2Result, np.ndarray, np.ndarray]:
    """Call Stage 2 on the pooled panel; returns (result, kept positions in the pool, reasons)."""
    res = stage2_prune(
        pool,
        retention=float(cfg.retention),  # type: ignore[arg-type]
        alpha=cfg.alpha,
        floor=cfg.floor,
        selector=cfg.selector,
        embeddings=embeddings,
        variant=cfg.variant,
        random_state=cfg.random_state,
    )
    kept = np.asarray(res.kept, dtype=np.int64)
    reasons = np.array([f"{cfg.selector}:{w}" for w in res.why[kept]], dtype=object)
    return res, kept, reasons
