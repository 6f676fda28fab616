"""The PRIMEBench pipeline stages, each usable alone (PRIMEBench section 4)."""

from __future__ import annotations

from benchsift.compression.stages.categories import Stage3Result, stage3_select
from benchsift.compression.stages.clean import Stage0Result, stage0_clean
from benchsift.compression.stages.prune import Stage2Result, stage2_prune
from benchsift.compression.stages.representatives import Stage1Result, stage1_select

__all__: list[str] = [
    "Stage0Result",
    "Stage1Result",
    "Stage2Result",
    "Stage3Result",
    "stage0_clean",
    "stage1_select",
    "stage2_prune",
    "stage3_select",
]
