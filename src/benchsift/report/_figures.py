"""Figure plumbing shared by every report: a pyplot-free Agg figure and an atomic multi-format save."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from benchsift._fileio import atomic_path

FORMATS: tuple[str, ...] = ("png", "svg")


def new_figure(width: float, height: float) -> Figure:
    """A constrained-layout :class:`~matplotlib.figure.Figure` on the Agg canvas (no global pyplot state)."""
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def save_figure(fig: Figure, stem: Path, formats: Sequence[str] = FORMATS, dpi: int = 150) -> list[Path]:
    """Write ``fig`` as ``stem.<fmt>`` for each format, atomically; return the paths written.

    SVG files carry no creation date, so the same figure gives the same bytes. The layout is solved once, on
    the first format, and reused for the others.
    """
    paths: list[Path] = []
    for fmt in formats:
        target = stem.with_name(f"{stem.name}.{fmt}")
        meta = {"Date": None} if fmt == "svg" else {}
        with atomic_path(target) as tmp:
            fig.savefig(tmp, format=fmt, dpi=dpi, metadata=meta)
        paths.append(target)
        fig.set_layout_engine("none")
    return paths
