"""The result rows every protocol reports: one per (selector, retention)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["RESULT_KEYS", "result_records", "summary_frame"]

#: The keys of one ``results`` row of ``benchsift validate --json`` (every protocol).
RESULT_KEYS: tuple[str, ...] = ("selector", "retention", "rho_mean", "rho_sd", "rho_min", "rho_max", "wins")


def summary_frame(
    selectors: Sequence[str],
    retentions: Sequence[float],
    stats: dict[str, np.ndarray],
    **extra: np.ndarray,
) -> pd.DataFrame:
    """One row per (selector, retention) from :func:`~.stage2_heldout.split_summary` output ``stats``.

    Columns ``selector, retention, rho_mean, rho_sd, rho_min, rho_max, wins`` and then each ``extra``
    ``(n_selectors, n_retentions)`` array under its keyword name (floats, or ints for integer arrays).
    """
    rows = []
    for s, name in enumerate(selectors):
        for j, r in enumerate(retentions):
            row: dict[str, Any] = {
                "selector": name,
                "retention": r,
                "rho_mean": float(stats["mean"][s, j]),
                "rho_sd": float(stats["sd"][s, j]),
                "rho_min": float(stats["min"][s, j]),
                "rho_max": float(stats["max"][s, j]),
                "wins": int(stats["wins"][s, j]),
            }
            for key, values in extra.items():
                v = np.asarray(values)[s, j]
                row[key] = int(v) if np.issubdtype(np.asarray(values).dtype, np.integer) else float(v)
            rows.append(row)
    return pd.DataFrame(rows)


def result_records(summary: pd.DataFrame, keys: Sequence[str] = RESULT_KEYS) -> list[dict[str, Any]]:
    """The rows of a summary frame restricted to ``keys`` (the JSON ``results`` list)."""
    return [{k: row[k] for k in keys} for row in summary.to_dict(orient="records")]
