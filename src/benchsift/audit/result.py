"""The result of :func:`benchsift.audit.audit`: per-item signals and flags, per-benchmark summaries."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import pandas as pd

from benchsift._jsonutil import to_jsonable
from benchsift._params import Options, check_param
from benchsift.results import Result

__all__ = ["FLAGS", "AuditResult"]

#: every flag an item can carry, in the order they are listed
FLAGS: tuple[str, ...] = (
    "negative-discrimination",
    "low-discrimination",
    "all-correct",
    "all-wrong",
    "near-ceiling",
    "blind-solvable",
    "duplicate-responses",
    "duplicate-text",
    "dif",
)

#: per-item columns written into the JSON entry of a flagged item (besides benchmark, item, flags)
_ITEM_FIELDS = (
    "n_models",
    "mean_score",
    "discrimination",
    "discrimination_low",
    "discrimination_high",
    "p_negative",
    "q_negative",
    "blind_mean",
    "dif_coef",
    "dif_p",
    "dif_q",
    "dif_group",
    "duplicate_of",
)


@dataclass(repr=False)
class AuditResult(Result):
    """Benchmark health audit of a panel (:func:`benchsift.audit.audit`).

    Attributes
    ----------
    items:
        One row per audited item: ``benchmark``, ``item``, ``n_models``, ``mean_score``, the
        discrimination signal (``discrimination`` = item-rest correlation, its Fisher-z interval
        ``discrimination_low`` / ``discrimination_high``, ``p_negative`` and its adjusted ``q_negative``;
        with ``discrimination="2pl"`` the fitted 2PL slope, its Wald interval and p-value instead),
        saturation (``all_correct``, ``all_wrong``, ``near_ceiling``, ``blind_mean``, ``blind_solvable``),
        DIF (``dif_coef`` log odds ratio, ``dif_p``, ``dif_q``, ``dif_group``), ``duplicate_of`` (the other
        items of its duplicate pairs) and
        ``flags`` (a tuple of :data:`FLAGS`). NaN where a signal is undefined or was skipped.
    benchmarks:
        One row per benchmark: sizes, ``mean_score`` (the mean of its items' ``mean_score``, each item
        weighing alike: with missing cells not the mean over scored cells nor over the models' means), the
        saturation shares, signal-to-noise (``snr``, ``reliability``, ``mean_se``, ``mdd``) and the count of
        each flag.
    duplicates:
        One row per duplicate pair: ``benchmark``, ``item_a``, ``item_b``, ``kind`` (``responses`` or
        ``text``), ``similarity``, ``n_models``.
    warnings:
        Every signal skipped or default changed, one sentence each.
    parameters:
        The settings the audit ran with.
    """

    items: pd.DataFrame
    benchmarks: pd.DataFrame
    duplicates: pd.DataFrame
    warnings: list[str] = field(default_factory=list)
    parameters: dict[str, Any] = field(default_factory=dict)

    _repr_fields: ClassVar[tuple[str, ...]] = ("n_flagged", "flag_counts")

    @property
    def flagged(self) -> pd.DataFrame:
        """The items with at least one flag (panel order)."""
        return self.items[self.items["flags"].map(len) > 0].reset_index(drop=True)

    @property
    def n_flagged(self) -> int:
        return int((self.items["flags"].map(len) > 0).sum())

    @property
    def flag_counts(self) -> dict[str, int]:
        """How many items carry each flag (every flag of :data:`FLAGS`, zeros included)."""
        counts = dict.fromkeys(FLAGS, 0)
        for flags in self.items["flags"]:
            for f in flags:
                counts[f] += 1
        return counts

    def ranked(self, flag: str = "negative-discrimination") -> pd.DataFrame:
        """Items carrying ``flag``, most confident first: by ``p_negative`` for the discrimination flags,
        ``dif_p`` for ``dif``, ``mean_score`` (highest first) for the saturation flags, panel order else."""
        check_param("flag", flag, [Options(FLAGS)], owner="ranked")
        rows = self.items[self.items["flags"].map(lambda f: flag in f)]
        if flag in ("negative-discrimination", "low-discrimination"):
            rows = rows.sort_values(["p_negative", "discrimination"], kind="stable", na_position="last")
        elif flag == "dif":
            rows = rows.sort_values("dif_p", kind="stable")
        elif flag in ("near-ceiling", "all-correct", "blind-solvable"):
            rows = rows.sort_values("mean_score", ascending=False, kind="stable")
        return rows.reset_index(drop=True)

    def to_dict(self) -> dict[str, Any]:
        """``{"benchmarks": {name: summary}, "items": [one entry per flagged item], "duplicates": [...],
        "flag_counts": {...}, "warnings": [...], "parameters": {...}}``; an item entry holds ``benchmark``,
        ``item``, ``flags`` and the item's signals (NaN as ``None``)."""
        bench = {
            str(row["benchmark"]): {k: v for k, v in row.items() if k != "benchmark"}
            for row in self.benchmarks.to_dict(orient="records")
        }
        entries = []
        for row in self.flagged.to_dict(orient="records"):
            entry: dict[str, Any] = {
                "benchmark": row["benchmark"],
                "item": row["item"],
                "flags": list(row["flags"]),
            }
            for k in _ITEM_FIELDS:
                v = row[k]
                entry[k] = list(v) if isinstance(v, tuple) else v
            entries.append(entry)
        out = {
            "benchmarks": bench,
            "items": entries,
            "duplicates": self.duplicates.to_dict(orient="records"),
            "flag_counts": self.flag_counts,
            "warnings": list(self.warnings),
            "parameters": dict(self.parameters),
        }
        result: dict[str, Any] = to_jsonable(out)
        return result

    def to_frame(self) -> pd.DataFrame:
        """The per-item table (:attr:`items`) with ``flags`` and ``duplicate_of`` as ``", "``-joined text."""
        frame = self.items.copy()
        frame["flags"] = frame["flags"].map(", ".join)
        frame["duplicate_of"] = frame["duplicate_of"].map(", ".join)
        return frame
