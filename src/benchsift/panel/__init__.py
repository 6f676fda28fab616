"""The score panel: models x items scores with model and item metadata (see :class:`Panel`)."""

from __future__ import annotations

from benchsift.panel._panel import CONDITIONS, GroupScores, Panel

__all__ = ["CONDITIONS", "GroupScores", "Panel"]
