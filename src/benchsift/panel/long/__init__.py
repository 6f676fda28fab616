"""The one builder of a panel from a long table (one row per score), and the way back.

Every long table takes this path, whatever its source: the ``long`` importer's files
(:mod:`benchsift.io._long_sources`), the sample importers' per-file frames (:mod:`benchsift.io._coded_frames`)
and the DataFrame given to :meth:`benchsift.panel.Panel.from_long`. Their columns become pyarrow record
batches, coded column by column into int32 codes (:mod:`~benchsift.panel.long._columns`), and one builder
checks the codes and fills the panel with numpy (:mod:`~benchsift.panel.long._coded`; the metadata rules
in :mod:`~benchsift.panel.long._coded_meta`). The names below are what the importers use; a notebook user
calls :meth:`~benchsift.panel.Panel.from_long` and :meth:`~benchsift.panel.Panel.to_long`.
"""

from __future__ import annotations

from benchsift.panel.long._coded import IDS as IDS
from benchsift.panel.long._coded import MAX_CELLS_PER_ROW as MAX_CELLS_PER_ROW
from benchsift.panel.long._coded import MAX_DENSE_CELLS as MAX_DENSE_CELLS
from benchsift.panel.long._coded import REQUIRED as REQUIRED
from benchsift.panel.long._coded import Coded as Coded
from benchsift.panel.long._coded import CodedLong as CodedLong
from benchsift.panel.long._coded import assemble_coded as assemble_coded
from benchsift.panel.long._coded import check_density as check_density
from benchsift.panel.long._coded import long_keys as long_keys
from benchsift.panel.long._coded import merge_side as merge_side
from benchsift.panel.long._coded import owned_matrix as owned_matrix
from benchsift.panel.long._coded import panel_from_parts as panel_from_parts
from benchsift.panel.long._coded import panel_to_long as panel_to_long
from benchsift.panel.long._coded import split_metadata as split_metadata
from benchsift.panel.long._coded_meta import PREDICTION as PREDICTION
from benchsift.panel.long._coded_meta import Extra as Extra
from benchsift.panel.long._coded_meta import answer_labels as answer_labels
from benchsift.panel.long._coded_meta import text_dtype as text_dtype
from benchsift.panel.long._columns import BATCH as BATCH
from benchsift.panel.long._columns import Column as Column
from benchsift.panel.long._columns import arrow_column as arrow_column
from benchsift.panel.long._columns import code_batches as code_batches
from benchsift.panel.long._columns import is_text as is_text
from benchsift.panel.long._columns import panel_from_frame as panel_from_frame
