"""Item selectors: one scikit-learn-style interface (see :mod:`benchsift.compression.selectors.base`).

``SELECTORS`` maps a selector's short name (the CLI's ``--selector``) to its class; each new selector
registers itself here.
"""

from __future__ import annotations

from benchsift.compression.selectors.anchorpoints import AnchorPointsSelector
from benchsift.compression.selectors.auto import AutoSelector
from benchsift.compression.selectors.base import ItemSelector, SelectorInput
from benchsift.compression.selectors.disco import DiscoSelector
from benchsift.compression.selectors.irt2pl import IRT2PLSelector
from benchsift.compression.selectors.pointbiserial import PointBiserialSelector
from benchsift.compression.selectors.random import RandomSelector
from benchsift.compression.selectors.registry import available_selectors, make_selector
from benchsift.compression.selectors.tinybench import TinyBenchmarksSelector
from benchsift.compression.selectors.variance import IndexTieVarianceSelector, VarianceSelector
from benchsift.compression.selectors.vaw import VAWSelector


def clear_memos() -> None:
    """Empty the selectors' in-process memos (the IRT 2PL fits, VAW's k-means cells): results never depend
    on them, only the time does; benchmarks call this before each timed run."""
    from benchsift.compression.selectors._cells import clear_cell_memo
    from benchsift.compression.selectors.irt2pl import clear_fit_memo

    clear_fit_memo()
    clear_cell_memo()


#: Name -> class of every registered selector (the registry, :mod:`~.registry`, is the one list).
SELECTORS: dict[str, type[ItemSelector]] = available_selectors()

__all__ = [
    "AnchorPointsSelector",
    "AutoSelector",
    "DiscoSelector",
    "IRT2PLSelector",
    "IndexTieVarianceSelector",
    "ItemSelector",
    "PointBiserialSelector",
    "RandomSelector",
    "TinyBenchmarksSelector",
    "VarianceSelector",
    "SelectorInput",
    "VAWSelector",
    "available_selectors",
    "make_selector",
]
