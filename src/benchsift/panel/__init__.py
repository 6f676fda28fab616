"""The score panel: models x items scores with model and item metadata (see :class:`Panel`)."""

from __future__ import annotations

from benchsift.panel._panel import CONDITIONS, GroupScores, Panel
from benchsift.panel.clusters import ClusterSpec, ItemClusters, item_clusters

__all__ = ["CONDITIONS", "ClusterSpec", "GroupScores", "ItemClusters", "Panel", "item_clusters"]
