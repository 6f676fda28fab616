"""A panel's fingerprint: what a suite, a section of a page or a result records of the panel it was computed
on, so that a reader can tell whether another panel is the same one (the report links item views only to
the panel of the fingerprint a table's files record)."""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from benchsift.panel._panel import Panel


def panel_fingerprint(panel: Panel) -> str:
    """sha256 of the panel's scores and keys: ``(model, condition)`` rows and ``(benchmark, item)`` columns.

    NaN is canonicalised (one bit pattern), so two panels with the same scores and keys share a fingerprint
    whatever produced them; metadata other than the keys does not enter it.
    """
    h = hashlib.sha256()
    models = panel.models
    items = panel.items
    for col in (models["model"], models["condition"], items["benchmark"], items["item"]):
        h.update(json.dumps(col.tolist()).encode())
    s = np.ascontiguousarray(panel.scores, dtype="<f8").copy()
    s[np.isnan(s)] = np.nan
    h.update(str(s.shape).encode())
    h.update(s.tobytes())
    return h.hexdigest()
