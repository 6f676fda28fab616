"""Importers: each turns one tool's result files into a :class:`~benchsift.panel.Panel`.

One module per source (``long``, ``wide``, ``lmms_eval``, ``lm_eval``, ``vlmevalkit``, ``inspect_logs``,
``aggregate``, ``eee``, ``lighteval``, ``helm``), the rescaling rules in :mod:`benchsift.io.rescale` and the
name -> reader table in :mod:`benchsift.io.registry`; the multi-axis verdict table of PRISM-VLM in
:mod:`benchsift.io.verdicts` (read by :mod:`benchsift.prism`, written by :mod:`benchsift.simulate`).
Importers only make panels and verdict tables; nothing here imports a method package.
"""

from __future__ import annotations

# `from ... import X as X`: internal names the other packages import from here (not public: not in __all__)
from benchsift.io._common import check_field_counts as check_field_counts
from benchsift.io.aggregate import read_aggregate
from benchsift.io.answers import read_answers
from benchsift.io.eee import read_eee, write_eee
from benchsift.io.helm import read_helm
from benchsift.io.inspect_logs import read_inspect
from benchsift.io.lighteval import read_lighteval
from benchsift.io.lm_eval import read_lm_eval
from benchsift.io.lmms_eval import read_lmms_eval
from benchsift.io.long import read_long
from benchsift.io.registry import import_panel
from benchsift.io.scores import read_scores
from benchsift.io.vlmevalkit import read_vlmevalkit
from benchsift.io.wide import read_wide

__all__ = [
    "import_panel",
    "read_aggregate",
    "read_answers",
    "read_eee",
    "read_helm",
    "read_inspect",
    "read_lighteval",
    "read_lm_eval",
    "read_lmms_eval",
    "read_long",
    "read_scores",
    "read_vlmevalkit",
    "read_wide",
    "write_eee",
]
