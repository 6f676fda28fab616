"""The score panel: models x items scores with model and item metadata (see :class:`Panel`)."""

from __future__ import annotations

# `from ... import X as X`: internal names the other packages import from here (not public: not in __all__)
from benchsift.panel._panel import CONDITIONS as CONDITIONS
from benchsift.panel._panel import GroupScores, Panel
from benchsift.panel.clusters import ClusterSpec, ItemClusters, item_clusters

__all__ = [
    "ClusterSpec",
    "GroupScores",
    "ItemClusters",
    "Panel",
    "item_clusters",
]
