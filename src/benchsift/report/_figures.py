"""Figure plumbing shared by every report: a pyplot-free Agg figure and an atomic multi-format save."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import matplotlib as mpl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from benchsift._fileio import atomic_path

FORMATS: tuple[str, ...] = ("png", "svg")


def new_figure(width: float, height: float) -> Figure:
    """A constrained-layout :class:`~matplotlib.figure.Figure` on the Agg canvas (no global pyplot state)."""
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


#: Salt of the ids matplotlib gives SVG elements (clip paths, markers): fixed, so that the same figure gives
#: the same bytes (matplotlib draws a random salt per file when ``svg.hashsalt`` is unset).
SVG_HASH_SALT = "benchsift"


def save_figure(
    fig: Figure,
    stem: Path,
    formats: Sequence[str] = FORMATS,
    dpi: int = 150,
    caption: str | None = None,
) -> list[Path]:
    """Write ``fig`` as ``stem.<fmt>`` for each format, atomically; return the paths written.

    SVG files carry no creation date and fixed element ids, so the same figure gives the same bytes. The
    layout is solved once, on the first format, and reused for the others. ``caption`` (what the marks,
    bands and abbreviations mean, and which data) is stored in the file's metadata (SVG
    ``dc:description``, PNG ``Description``), where :mod:`benchsift.report.html` reads it back for the
    figure's caption in ``index.html``.
    """
    paths: list[Path] = []
    for fmt in formats:
        target = stem.with_name(f"{stem.name}.{fmt}")
        meta: dict[str, str | None] = {"Date": None} if fmt == "svg" else {}
        if caption and fmt in ("svg", "png"):
            meta["Description"] = caption
        with atomic_path(target) as tmp, mpl.rc_context({"svg.hashsalt": SVG_HASH_SALT}):
            fig.savefig(tmp, format=fmt, dpi=dpi, metadata=meta)
        paths.append(target)
        fig.set_layout_engine("none")
    return paths
