"""VLMEvalKit run folders: which run of a dataset is current, and which datasets a run left unfinished.

``run.py`` writes each invocation into ``outputs/<model>/<eval_id>/`` (``build_eval_id``:
``T%Y%m%d-%H%M%S``; older ``T<date>_G<hash>``) and, after each dataset, links that dataset's files (and the
run's ``status.json``) into ``outputs/<model>/``, replacing the links of an earlier run; its reuse
(``vlmeval/smp/file.py`` ``list_eval_run_dirs`` / ``select_reuse_run``) takes run folders newest first. So
the current result of a dataset is the one of the newest run folder that evaluated it: of the result files
of one dataset in one model folder, those of the newest ``<eval_id>`` (by the date and time in its name, not
the folder's modification time, which a copy changes) are read, the others skipped with a warning naming
their run folder (:mod:`benchsift.io._runs`). A file lying in ``<model>/`` itself that is not a link into a
run folder (VLMEvalKit before run folders) is older than any run.

``status.json`` (``vlmeval/smp/status_report.py`` ``upsert_dataset_status``) records per dataset its
``status`` (``pending``, ``infer``, ``eval``, ``done``) and, when evaluation raised, ``error_message``
(``run.py`` sets ``status='done', error_message=str(e)``). :func:`unfinished_datasets` reads the
``status.json`` files inside the folders given (resolved first; up to :data:`MAX_STATUS_BYTES`) and warns,
per model and dataset, when the newest run that lists the dataset left it unfinished or failed, naming any
partial prediction pickle ``<rank><world_size>_<dataset>.pkl`` that ``infer_data`` left beside it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchsift._jsonutil import loads_bounded
from benchsift.io._runs import RunFile
from benchsift.io._walk import find_files, inside

EVAL_ID_RE = re.compile(r"^T(\d{8})-(\d{6})$|^T(\d{8})_G[0-9a-fA-F]+$")  # vlmeval/smp/file.py
STATUS_NAME = "status.json"
#: largest ``status.json`` read (VLMEvalKit's holds a few dozen lines per dataset)
MAX_STATUS_BYTES = 4 << 20
UNFINISHED = ("pending", "infer", "eval")


def run_id(real: Path) -> str:
    """The ``<eval_id>`` run folder a (resolved) file lies in, or ``""`` for none."""
    return real.parent.name if EVAL_ID_RE.match(real.parent.name) else ""


def run_order(run: str) -> tuple[str, str, str]:
    """Sort key of a run folder name, oldest first: its date, its time (none for a legacy id), its name."""
    m = EVAL_ID_RE.match(run)
    if m is None:
        return ("", "", run)
    return (m.group(1) or m.group(3), m.group(2) or "", run)


def model_folder(real: Path) -> Path:
    """``outputs/<model>`` of a (resolved) file in it or in one of its run folders."""
    return real.parent.parent if run_id(real) else real.parent


def shown_path(path: Path, root: Path) -> Path:
    """Where ``path`` really lies, spelt from the folder the user gave: a link VLMEvalKit made in
    ``<model>/`` is named by its target in the run folder."""
    real = path.resolve()
    try:
        return root / real.relative_to(root.resolve())
    except (ValueError, OSError):
        return path


def result_runs(
    paths: Sequence[tuple[Path, Path]],
    name_of: Any,
    *,
    model: str | None = None,
    benchmark: str | None = None,
) -> list[RunFile]:
    """Each result file (``paths``: ``(file, root)``) as a run of its dataset (module docstring).
    ``name_of(path)`` gives ``(model or None, dataset)`` from the file name; ``model`` and ``benchmark``
    override them as the panel will."""
    runs = []
    for path, root in paths:
        if not inside(path, root):
            continue
        real = path.resolve()
        try:
            file_model, bench = name_of(path)
        except (OSError, ValueError):
            continue
        name = model or file_model
        if name is None:
            continue
        run = run_id(real)
        folder = model_folder(real)
        key = (folder, name, benchmark or bench)
        about = f"run folder {run}" if run else f"no run folder: directly in {folder.name}/"
        runs.append(
            RunFile(
                shown_path(path, root),
                key,
                run_order(run),
                run or "-",
                about,
                owner=key[:2],
                clash=(name, benchmark or bench),
            )
        )
    return runs


def _status(path: Path) -> dict[str, Any] | None:
    try:
        if path.stat().st_size > MAX_STATUS_BYTES:
            return None
        data = loads_bounded(path.read_bytes(), str(path))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("datasets"), dict) else None


def unfinished_datasets(given: Sequence[Path], imported: set[tuple[str, str]]) -> list[str]:
    """Warnings for the datasets whose newest run (by the ``status.json`` files inside the folders
    ``given``) left them unfinished or failed (module docstring); ``imported``: the ``(model, dataset)``
    pairs that have scores in the panel."""
    newest: dict[tuple[Path, str, str], tuple[tuple[str, str, str], Path, dict[str, Any]]] = {}
    seen: set[Path] = set()
    for root in given:
        if not root.is_dir():
            continue
        for found in find_files(root, [STATUS_NAME])[0]:  # only those resolving inside root
            real = found.resolve()
            if real in seen or found.name != STATUS_NAME:
                continue
            seen.add(real)
            data = _status(real)
            if data is None:
                continue
            folder = model_folder(real)
            name = data.get("model_name")
            name = name if isinstance(name, str) and name else folder.name
            order = run_order(run_id(real))
            for dataset, entry in data["datasets"].items():
                if not isinstance(entry, dict):
                    continue
                key = (folder, name, str(dataset))
                if key not in newest or newest[key][0] < order:
                    newest[key] = (order, root / real.relative_to(root.resolve()), entry)
    out = []
    for (_folder, name, dataset), (order, shown, entry) in sorted(
        newest.items(), key=lambda kv: str(kv[1][1])
    ):
        state = entry.get("status")
        error = entry.get("error_message")
        if error is None and state not in UNFINISHED:
            continue
        run = order[2] or shown.parent.name
        if error is not None:
            what = f"its evaluation failed ({str(error)[:120] or 'an error without a message'})"
        else:
            what = f"it is unfinished (status {state!r})"
        pickle = re.compile(rf"^\d+_{re.escape(dataset)}\.pkl$")  # infer_data's <rank><world_size>_<dataset>
        partial = sorted(p.name for p in shown.parent.iterdir() if pickle.match(p.name))
        if partial:
            what += f"; partial predictions {partial}"
        held = (
            "its scores in the panel come from a result file found"
            if (name, dataset) in imported
            else "it is left out of the panel"
        )
        out.append(f"warning: {shown}: dataset {dataset!r} of model {name!r} in run {run}: {what}; {held}")
    return out
