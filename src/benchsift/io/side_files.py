"""How a models side file (``--models FILE``) matches a panel's models: a row whose model id has a typo
describes nobody, and its family and release date silently stay missing (DIF by family or era, shelf life and
the era spectra then see fewer models). :func:`side_file_warnings` says so when a panel is imported."""

from __future__ import annotations

from typing import Any

import pandas as pd

from benchsift._suggest import did_you_mean
from benchsift.errors import listed
from benchsift.panel import Panel

__all__ = ["match_models_table", "side_file_warnings"]


def match_models_table(panel: Panel, table: pd.DataFrame) -> dict[str, Any]:
    """Which rows of a models side table (``model`` column) match a model of ``panel``: the matched count,
    the table's rows that match no model (``row`` is the data-row index), and the panel's models that no
    row describes."""
    names = table["model"].astype(str).str.strip()
    known = set(panel.models["model"].astype(str))
    unmatched = [{"row": int(i), "model": m} for i, m in enumerate(names) if m not in known]
    described = set(names)
    return {
        "n_rows": len(table),
        "n_matched": len(table) - len(unmatched),
        "unmatched_rows": unmatched,
        "models_without_row": sorted(m for m in known if m not in described),
    }


def side_file_warnings(panel: Panel, match: dict[str, Any], path: str) -> list[str]:
    """The warnings of ``match`` (:func:`match_models_table` of ``panel`` and the file ``path``): rows that
    match no model (the first with the closest model ids), and the panel's models the file does not
    describe."""
    out: list[str] = []
    if match["unmatched_rows"]:
        names = [r["model"] for r in match["unmatched_rows"]]
        hint = did_you_mean(names[0], sorted(set(panel.models["model"].astype(str))))
        first = f" -- {names[0]!r}{hint}" if hint else ""
        out.append(f"{path}: {len(names)} row(s) match no model of the panel: {listed(names)}{first}")
    missing = match["models_without_row"]
    if missing:
        n_models = panel.models["model"].nunique()
        out.append(
            f"{path}: {len(missing)} of the panel's {n_models} models have no row in it (their family, "
            f"release date and size come from the results alone): {listed(missing)}"
        )
    return out
