"""Figure plumbing shared by every report: a pyplot-free Agg figure and an atomic multi-format save."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib as mpl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.category import StrCategoryFormatter
from matplotlib.figure import Figure
from matplotlib.layout_engine import ConstrainedLayoutEngine
from matplotlib.text import Text as MplText
from matplotlib.ticker import FixedFormatter, FuncFormatter

from benchsift._fileio import atomic_path
from benchsift.report.console import printable

FORMATS: tuple[str, ...] = ("png", "svg")


def new_figure(width: float, height: float) -> Figure:
    """A constrained-layout :class:`~matplotlib.figure.Figure` on the Agg canvas (no global pyplot state)."""
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


#: Salt of the ids matplotlib gives SVG elements (clip paths, markers): fixed, so that the same figure gives
#: the same bytes (matplotlib draws a random salt per file when ``svg.hashsalt`` is unset).
SVG_HASH_SALT = "benchsift"

#: matplotlib settings while a figure is written: the fixed SVG salt, and no mathtext in texts made then.
SAVE_RC: dict[Any, Any] = {"svg.hashsalt": SVG_HASH_SALT, "text.parse_math": False}


#: Font size and colour of the footer that names the data on every figure.
FOOTER_SIZE = 7.0
FOOTER_COLOR = "dimgrey"


def add_footer(fig: Figure, text: str) -> None:
    """Write ``text`` (what data the figure shows) at the bottom-left of ``fig``, below the axes.

    The constrained layout is told to keep that strip free, so the footer never covers tick labels.
    Wrapped to the figure's width (about 17 characters per inch at 7 pt).
    """
    lines = textwrap.wrap(text, width=max(30, int(fig.get_figwidth() * 17)))
    height = (len(lines) * FOOTER_SIZE * 1.35 / 72.0 + 0.06) / fig.get_figheight()
    engine = fig.get_layout_engine()
    if isinstance(engine, ConstrainedLayoutEngine):
        engine.set(rect=(0.0, height, 1.0, 1.0 - height))
    fig.text(
        0.01,
        0.02 / fig.get_figheight(),
        "\n".join(lines),
        ha="left",
        va="bottom",
        fontsize=FOOTER_SIZE,
        color=FOOTER_COLOR,
    )


def _printable_ticks(formatter: Any) -> Any:
    """A tick function giving ``formatter``'s labels with their control characters escaped."""

    def label(x: Any, pos: Any = None) -> str:
        return printable(str(formatter(x, pos)))

    return label


def save_figure(
    fig: Figure,
    stem: Path,
    formats: Sequence[str] = FORMATS,
    dpi: int = 150,
    caption: str | None = None,
    data: str | None = None,
) -> list[Path]:
    """Write ``fig`` as ``stem.<fmt>`` for each format, atomically; return the paths written.

    SVG files carry no creation date and fixed element ids, so the same figure gives the same bytes. The
    layout is solved once, on the first format, and reused for the others. ``caption`` (what the marks,
    bands and abbreviations mean, and which data) is stored in the file's metadata (SVG
    ``dc:description``, PNG ``Description``), where :mod:`benchsift.report.html` reads it back for the
    figure's caption in ``index.html``. ``data`` (a file name, or "simulated ...") is written on the figure
    itself as a footer ``Data: ...`` (:func:`add_footer`). Every text of the figure is drawn as written,
    not as mathtext: model and benchmark names with two ``$`` signs would print in math italics, less the
    signs.
    """
    if data:
        add_footer(fig, f"Data: {data}")
    for text in fig.findobj(MplText):  # names are text: a benchmark 'price$5$' is not math ('price5')
        text.set_parse_math(False)
        text.set_text(printable(text.get_text()))  # a name's ESC or BEL is drawn as \x1b, \x07
    for ax in fig.axes:  # tick labels are made at draw time: names (fixed or categorical ticks) escaped too
        for axis in (ax.xaxis, ax.yaxis):
            named = axis.get_major_formatter()
            if isinstance(named, FixedFormatter | StrCategoryFormatter | FuncFormatter):
                axis.set_major_formatter(FuncFormatter(_printable_ticks(named)))
    paths: list[Path] = []
    for fmt in formats:
        target = stem.with_name(f"{stem.name}.{fmt}")
        meta: dict[str, str | None] = {"Date": None} if fmt == "svg" else {}
        if caption and fmt in ("svg", "png"):
            meta["Description"] = caption
        with atomic_path(target) as tmp, mpl.rc_context(SAVE_RC):
            fig.savefig(tmp, format=fmt, dpi=dpi, metadata=meta)
        paths.append(target)
        fig.set_layout_engine("none")
    return paths
