"""Format name -> importer function, and one entry point that checks the options a format accepts.

=============  ==========================================  ==============================================
format         reader                                      input
=============  ==========================================  ==============================================
``long``       :func:`benchsift.io.long.read_long`         one row per score (CSV / parquet / TSV / Excel)
``wide``       :func:`benchsift.io.wide.read_wide`         one row per item, one column per model
``lmms-eval``  :func:`benchsift.io.lmms_eval.read_lmms_eval`  ``<date>_samples_<task>.jsonl`` (+ results json)
``lm-eval``    :func:`benchsift.io.lm_eval.read_lm_eval`   ``samples_<task>_<date>.jsonl`` (+ results json)
``vlmevalkit`` :func:`benchsift.io.vlmevalkit.read_vlmevalkit`  ``*_result.xlsx|csv|tsv``, ``hit``/``score``
``inspect``    :func:`benchsift.io.inspect_logs.read_inspect`  inspect_ai ``.eval`` / ``.json`` logs
``aggregate``  :func:`benchsift.io.aggregate.read_aggregate`  models x benchmarks table, OpenVLM JSON
``eee``        :func:`benchsift.io.eee.read_eee`            Every Eval Ever ``<uuid>_samples.jsonl``
``lighteval``  :func:`benchsift.io.lighteval.read_lighteval`  ``details_<task>_<date>.parquet``
``helm``       :func:`benchsift.io.helm.read_helm`          HELM run folders (``per_instance_stats.json``)
=============  ==========================================  ==============================================

Every reader takes the input path(s) first and keyword options after; all accept ``condition``,
``rescale``, ``scales`` and ``notes`` (a list that collects one-line remarks: rescaling, collapsed
duplicates, failed answers, chosen metric).
"""

from __future__ import annotations

import csv
import inspect
import os
import zipfile
import zlib
from collections.abc import Callable
from typing import Any

from benchsift._params import Options, check_param
from benchsift.errors import BenchsiftError, FormatError, InputError
from benchsift.io._common import Paths
from benchsift.io.aggregate import read_aggregate
from benchsift.io.eee import read_eee
from benchsift.io.helm import read_helm
from benchsift.io.inspect_logs import read_inspect
from benchsift.io.lighteval import read_lighteval
from benchsift.io.lm_eval import read_lm_eval
from benchsift.io.lmms_eval import read_lmms_eval
from benchsift.io.long import read_long
from benchsift.io.vlmevalkit import read_vlmevalkit
from benchsift.io.wide import read_wide
from benchsift.panel import CONDITIONS, Panel

Reader = Callable[..., Panel]

READERS: dict[str, Reader] = {
    "long": read_long,
    "wide": read_wide,
    "lmms-eval": read_lmms_eval,
    "lm-eval": read_lm_eval,
    "vlmevalkit": read_vlmevalkit,
    "inspect": read_inspect,
    "aggregate": read_aggregate,
    "eee": read_eee,
    "lighteval": read_lighteval,
    "helm": read_helm,
}
FORMATS: tuple[str, ...] = tuple(READERS)
#: Item column recording which harness numbered a panel's items (``import_panel`` of a harness format sets
#: it): a suite keeps it, so ``benchsift export`` can refuse to select one tool's documents by another's ids.
ID_SOURCE = "id_source"
#: The formats whose item ids are a harness's own (document index, sample id, dataset index). An Every Eval
#: Ever file keeps the ids of whichever harness it was converted from, so it records none.
HARNESS_FORMATS: tuple[str, ...] = ("lm-eval", "lmms-eval", "inspect", "vlmevalkit", "lighteval", "helm")


def get_reader(name: str) -> Reader:
    """The reader of format ``name``; an unknown name is a :class:`FormatError` listing the known ones."""
    try:
        return READERS[name]
    except KeyError:
        raise FormatError(f"unknown format {name!r}; expected one of {list(FORMATS)}") from None


def reader_options(name: str) -> tuple[str, ...]:
    """The keyword options the reader of format ``name`` accepts."""
    sig = inspect.signature(get_reader(name))
    return tuple(p.name for p in sig.parameters.values() if p.kind is inspect.Parameter.KEYWORD_ONLY)


def import_panel(name: str, paths: Paths, **options: Any) -> Panel:
    """Read ``paths`` with the reader of format ``name``.

    Options left at ``None`` are dropped; an option the format does not take is an :class:`InputError`
    (e.g. ``orient`` for ``lm-eval``). A harness format's panel records the harness in the item column
    ``id_source`` (:data:`ID_SOURCE`).
    """
    reader = get_reader(name)
    condition = options.get("condition")
    check_param("condition", condition, [Options(CONDITIONS), None])
    accepted = set(reader_options(name))
    given = {k: v for k, v in options.items() if v is not None}
    unknown = sorted(set(given) - accepted)
    if unknown:
        raise InputError(f"format {name!r} does not take option(s) {unknown}; it takes {sorted(accepted)}")
    shown = paths if isinstance(paths, str | os.PathLike) else ", ".join(map(str, paths))  # in messages
    try:
        panel = reader(paths, **given)
    except BenchsiftError:
        raise
    except (ValueError, UnicodeError, EOFError, zipfile.BadZipFile, csv.Error, zlib.error) as err:
        # a damaged or foreign file the reader could not parse (JSON, CSV, zip, parquet, Excel): one line
        # naming the input, never a traceback (issue 12)
        detail = " ".join(f"{type(err).__name__}: {err}".split())[:160]
        raise FormatError(f"{shown}: not a readable {name} input ({detail})") from None
    if panel.n_models == 0 or panel.n_items == 0:
        raise FormatError(
            f"{shown}: nothing to import ({panel.n_models} models x {panel.n_items} items were read)"
        )
    if name in HARNESS_FORMATS and ID_SOURCE not in panel.items.columns:
        items = panel.items.copy()
        items[ID_SOURCE] = name
        panel = Panel(panel.scores, panel.models, items)
    return panel
