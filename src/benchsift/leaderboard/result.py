"""The results of :func:`benchsift.leaderboard.compare` and :func:`benchsift.leaderboard.compare_suite`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from benchsift._jsonutil import to_jsonable
from benchsift.results import Result

__all__ = ["ComparisonResult", "SuiteComparison", "tie_label"]


def tie_label(lo: int, hi: int, models: list[str]) -> str:
    """``"1-3: A, B, C (not separable)"``, or ``"4: D"`` for a group of one (positions are 1-based; the
    group's first model is its leader, from which no other member is separated:
    :func:`benchsift.stats.tie_groups`)."""
    ranks = f"{lo}" if lo == hi else f"{lo}-{hi}"
    names = ", ".join(models)
    return f"{ranks}: {names}" + (" (not separable)" if len(models) > 1 else "")


@dataclass(repr=False)
class ComparisonResult(Result):
    """An honest leaderboard of a panel (:func:`benchsift.leaderboard.compare`).

    Attributes
    ----------
    leaderboard:
        One row per (section, model), best first within a section: ``section`` (a benchmark, or
        ``overall``), ``model``, ``score`` (mean over the model's answered items), ``n_items``, its
        bootstrap interval ``score_low`` / ``score_high``, ``rank`` (1 = best; ties share the mean rank),
        its interval ``rank_low`` / ``rank_high`` (marginal per model, from the pairwise bootstrap
        comparisons: :func:`benchsift.stats.rank_interval_pairwise`), ``group`` (tie group, 1 = top) and
        ``group_ranks`` (the positions the group spans, ``"1-3"``).
    pairs:
        One row per (section, pair of models), ``model_a`` the higher-scoring: ``n_common`` items both
        answered, ``delta`` (mean of ``a - b`` on them), bootstrap ``se``, ``low`` / ``high`` (interval of
        ``delta``), ``p`` (bootstrap Wald p), ``p_percentile``, ``p_holm``, ``p_bh``, ``separated`` (by the
        chosen correction at ``alpha``), the paired t test ``t`` / ``p_t``, for 0/1 scores McNemar's
        ``only_a`` / ``only_b`` / ``p_mcnemar`` (NaN otherwise), ``mdd`` (minimum detectable difference of
        the pair) and ``items_needed`` (items that detect the observed ``delta`` at ``power``).
    resolution:
        One row per section: ``n_items``, ``n_models``, ``n_pairs``, ``mdd`` (median over pairs),
        ``mdd_adjacent`` (median over neighbours on the leaderboard), the shares of pairs separated raw,
        after Holm and after BH, ``n_groups``, ``largest_group``.
    ties:
        ``{section: ["1-3: A, B, C (not separable)", "4: D", ...]}``.
    pair_power:
        With ``pair=(A, B)``: one row per section for that pair: ``delta``, ``se``, ``power`` (at a true
        difference equal to ``delta``), ``items_needed`` at the requested ``power``, ``n_common``.
    """

    leaderboard: pd.DataFrame
    pairs: pd.DataFrame
    resolution: pd.DataFrame
    ties: dict[str, list[str]]
    pair_power: pd.DataFrame | None = None
    warnings: list[str] = field(default_factory=list)
    parameters: dict[str, Any] = field(default_factory=dict)
    clusters: dict[str, Any] | None = None

    _repr_fields: ClassVar[tuple[str, ...]] = ("sections", "n_models")

    @property
    def sections(self) -> list[str]:
        return [str(s) for s in pd.unique(self.leaderboard["section"])]

    @property
    def n_models(self) -> int:
        return int(self.leaderboard["model"].nunique())

    def section(self, name: str) -> pd.DataFrame:
        """The leaderboard rows of one section (a benchmark or ``overall``)."""
        return self.leaderboard[self.leaderboard["section"] == name].reset_index(drop=True)

    def to_frame(self) -> pd.DataFrame:
        """The leaderboard table (:attr:`leaderboard`)."""
        return self.leaderboard.copy()

    def to_dict(self) -> dict[str, Any]:
        """``{"sections": {name: {"leaderboard": [...], "ties": [...], "resolution": {...}, "pairs": [...]}},
        "pair_power": [...] or None, "clusters", "warnings", "parameters"}`` (NaN as ``None``)."""
        sections: dict[str, Any] = {}
        res = self.resolution.set_index("section")
        for name in self.sections:
            board = self.section(name).drop(columns="section")
            pairs = self.pairs[self.pairs["section"] == name].drop(columns="section")
            sections[name] = {
                "leaderboard": board.to_dict(orient="records"),
                "ties": list(self.ties.get(name, [])),
                "resolution": res.loc[name].to_dict(),
                "pairs": pairs.to_dict(orient="records"),
            }
        doc = {
            "sections": sections,
            "pair_power": None if self.pair_power is None else self.pair_power.to_dict(orient="records"),
            "clusters": self.clusters,
            "warnings": list(self.warnings),
            "parameters": dict(self.parameters),
        }
        out: dict[str, Any] = to_jsonable(doc)
        return out


@dataclass(repr=False)
class SuiteComparison(Result):
    """What a compressed suite can and cannot resolve between new models
    (:func:`benchsift.leaderboard.compare_suite`).

    Attributes
    ----------
    models:
        One row per (group, new model): ``group`` (a benchmark or ``overall``), ``model``, ``estimate``
        (the full-score estimate of ``benchsift estimate``, or its suite mean when the suite has no
        full-score estimators), ``low`` / ``high`` (its interval), ``half_width``, ``se`` (half-width /
        the interval's normal quantile), ``mdd_vs_known`` (the smallest difference to a model whose full
        score is known, e.g. a reference model, detected at ``power``), ``rank`` / ``rank_low`` /
        ``rank_high`` among the suite's reference models (overall rows).
    pairs:
        One row per (group, pair of new models), ``model_a`` the higher estimate: ``delta``, ``se``
        (:math:`\\sqrt{se_a^2 + se_b^2}`), ``p``, ``p_holm``, ``p_bh``, ``resolved`` (separated by the
        chosen correction), ``mdd``.
    resolution:
        One row per group: ``n_models``, ``n_pairs``, ``mdd`` (median over pairs; with one new model the
        ``mdd_vs_known``), ``n_resolved``, ``n_unresolved``.
    """

    models: pd.DataFrame
    pairs: pd.DataFrame
    resolution: pd.DataFrame
    method: str
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    parameters: dict[str, Any] = field(default_factory=dict)

    _repr_fields: ClassVar[tuple[str, ...]] = ("method",)

    def to_frame(self) -> pd.DataFrame:
        """The per-model table (:attr:`models`)."""
        return self.models.copy()

    def to_dict(self) -> dict[str, Any]:
        """``{"method", "models": [...], "pairs": [...], "resolution": [...], "notes", "warnings",
        "parameters"}`` (NaN and inf as ``None``)."""
        doc = {
            "method": self.method,
            "models": self.models.to_dict(orient="records"),
            "pairs": self.pairs.replace([np.inf], np.nan).to_dict(orient="records"),
            "resolution": self.resolution.to_dict(orient="records"),
            "notes": list(self.notes),
            "warnings": list(self.warnings),
            "parameters": dict(self.parameters),
        }
        out: dict[str, Any] = to_jsonable(doc)
        return out
