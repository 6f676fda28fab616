"""Number formats shared by the tables: ``n/a`` (or ``-``) for a missing value, fixed digits otherwise."""

from __future__ import annotations

import math
from typing import Any

__all__ = ["fmt", "fmt_dash", "fmt_rank"]


def fmt(v: Any, digits: int = 3) -> str:
    """``v`` with ``digits`` decimals; ``n/a`` for ``None``, NaN or infinity."""
    f = float("nan") if v is None else float(v)
    return "n/a" if not math.isfinite(f) else f"{f:.{digits}f}"


def fmt_dash(v: float) -> str:
    """``v`` with three decimals; ``-`` for NaN."""
    return "-" if v != v else f"{v:.3f}"


def fmt_rank(v: float) -> str:
    """A rank (no decimals); ``-`` for NaN."""
    return "-" if v != v else f"{v:.0f}"
