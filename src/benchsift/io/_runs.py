"""Which run of a task is the current one, as the tool itself decides it (re-runs, retries).

A folder written by a real evaluation often holds the same task of the same model twice: a failed
inspect log and the log ``inspect eval-retry`` wrote after it, the attempts of an eval set run with
``retry_cleanup=False``, or lm-eval run twice into one output folder. Imported side by side they are
conflicting duplicate scores. Each tool has its own notion of the current result, and the importers follow
it:

* inspect (``inspect_ai/_eval/evalset.py``, ``latest_completed_task_eval_logs``): the logs of one
  ``eval.task_id`` (``eval_retry`` reuses the failed log's ``task_id``; every eval-set attempt of a task has
  the same one) are one task, and its newest log is the current one; inspect orders them by the file's
  modification time, which a copy or a checkout changes, so here by the log's own start time
  ``eval.created`` (then its ``eval_id``).
* lm-eval (``lm_eval/utils.py``, ``get_latest_filename`` as ``EvaluationTracker.recreate_metadata_card``
  uses it): of the sample files of one task in one model's output folder, the one with the latest
  ``<date>`` in its name.

* lighteval (``lighteval/logging/evaluation_tracker.py``: ``_get_details_sub_folder("last")`` reads the
  newest ``<date_id>`` folder of a model, and the details dataset card's ``latest`` split of each task is
  its newest run's file): of the details files of one task in one ``details/<model>/`` folder, the one of
  the latest ``<date_id>``.

* VLMEvalKit (``run.py`` links each dataset's files from the newest ``<model>/<eval_id>/`` run folder that
  evaluated it into ``<model>/``; ``vlmeval/smp/file.py`` ``list_eval_run_dirs`` / ``select_reuse_run`` take
  run folders newest first): of the result files of one dataset of one model folder, those of the newest
  ``<eval_id>`` (``T%Y%m%d-%H%M%S``, by its date and time; a file lying in ``<model>/`` itself, without a
  run folder, is older than any run).
* lmms-eval (``EvaluationTracker.recreate_metadata_card``: the latest datetime per model and task; its
  files are ``<date>_samples_<task>.jsonl``): as lm-eval, of the sample files of one task in one model's
  output folder, the one with the latest ``<date>``.

The superseded files are not read; a warning names each and the file that superseded it. ``keep_all_runs``
reads every file and makes each run its own model run, named ``<model> (run <id>)``: with lm-eval, lmms-eval
and lighteval every file of a model that ran more than once into the folder (the run is the ``<date>``; with
VLMEvalKit, every file of a model folder holding more than one run of a dataset: the run is the
``<eval_id>``), with inspect every log of a task that ran more than once (the run is the log's
``eval.created``: eval-set attempts share one ``run_id``).

Runs the tool's own rule does not join (two inspect ``eval`` calls of one task and model, each with its own
``eval.task_id``; one lm-eval model run into two output folders; one lighteval model in two output folders)
are not chosen between: their scores meet in the panel, where identical ones collapse and differing ones
are an error. Each file's ``clash`` key (the model and benchmark as the panel names them) finds them:
``keep_all_runs`` labels them by run as above, and :func:`explain_conflicts` adds to the conflict error
which runs clash and how to proceed.

:func:`candidate_files` lists the files an import would read (the given files, and the files a walk of
the given folders would find), so that the choice is made before any file is read in full.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from benchsift.errors import InputError
from benchsift.io._walk import find_files, root_of

#: the model name of a run kept by ``keep_all_runs``
RUN_LABEL = "{model} (run {run})"


@dataclass(frozen=True)
class RunFile:
    """One result file: its ``task`` (the key its tool groups runs by), ``order`` (larger is newer),
    ``run`` (the id of the run that wrote it), what the warning says of it (``about``), ``owner``: the
    model whose files ``keep_all_runs`` labels by run when it ran more than once (default: the task), and
    ``clash``: ``(model, benchmark)`` as the panel will name them (None: not known), which files of other
    runs must not share (module docstring)."""

    path: Path
    task: Hashable
    order: tuple[Any, ...]
    run: str
    about: str
    owner: Hashable = None
    clash: tuple[str, str] | None = None

    @property
    def model_key(self) -> Hashable:
        return self.task if self.owner is None else self.owner


def candidate_files(given: Sequence[Path], patterns: Sequence[str]) -> list[Path]:
    """The given files and the files below the given folders that match ``patterns`` (inside them)."""
    return [path for path, _ in rooted_candidates(given, patterns)]


def rooted_candidates(given: Sequence[Path], patterns: Sequence[str]) -> list[tuple[Path, Path]]:
    """:func:`candidate_files`, each with the root its reader reads other files in
    (:func:`benchsift.io._walk.root_of` the path given)."""
    out: list[tuple[Path, Path]] = []
    for path in given:
        if path.is_dir():
            root = root_of(path)
            out.extend((p, root) for p in find_files(path, patterns)[0])
        elif path.is_file():
            out.append((path, root_of(path)))
    return out


def superseded(runs: Sequence[RunFile]) -> dict[Path, RunFile]:
    """Each superseded file (resolved) -> the newest run of its task (module docstring)."""
    groups: dict[Hashable, list[RunFile]] = {}
    seen: set[Path] = set()
    for r in runs:
        real = r.path.resolve()
        if real not in seen:  # a file linked twice (VLMEvalKit-style links) is one run
            seen.add(real)
            groups.setdefault(r.task, []).append(r)
    out: dict[Path, RunFile] = {}
    for group in groups.values():
        if len(group) < 2:
            continue
        newest = max(group, key=lambda r: r.order)
        for r in group:  # the newest run's own files stay (VLMEvalKit: several per dataset)
            if r.order < newest.order:
                out[r.path.resolve()] = newest
    return out


def _unique(runs: Sequence[RunFile]) -> list[RunFile]:
    """``runs`` without a file seen already (resolved: a file linked twice is one run)."""
    seen: set[Path] = set()
    out = []
    for r in runs:
        real = r.path.resolve()
        if real not in seen:
            seen.add(real)
            out.append(r)
    return out


def clashes(runs: Sequence[RunFile]) -> dict[tuple[str, str], list[RunFile]]:
    """``(model, benchmark)`` -> its files, for each that the files of more than one run share."""
    groups: dict[tuple[str, str], list[RunFile]] = {}
    for r in _unique(runs):
        if r.clash is not None:
            groups.setdefault(r.clash, []).append(r)
    return {k: g for k, g in groups.items() if len({r.run for r in g}) > 1}


def conflict_hint(runs: Sequence[RunFile]) -> str | None:
    """What to do when runs that the tool's rule does not join give one cell two scores: the runs that
    clash among the files read by default (the superseded left out) and the choices; None when none clash.
    (With ``keep_all_runs`` every such run is its own model run, so they cannot clash.)"""
    newer = superseded(runs)
    found = clashes([r for r in runs if r.path.resolve() not in newer])
    if not found:
        return None
    (model, benchmark), group = next(iter(found.items()))
    files = ", ".join(f"{r.path} (run {r.run})" for r in group[:3]) + (", ..." if len(group) > 3 else "")
    more = f" (and {len(found) - 1} more model/benchmark pair(s) so)" if len(found) > 1 else ""
    return (
        f"model {model!r} ran {benchmark!r} in {len({r.run for r in group})} separate runs here ({files})"
        f"{more}: --keep-all-runs (keep_all_runs=True) keeps each run as its own model run; to keep one run, "
        "import only its file(s) or folder"
    )


@contextmanager
def explain_conflicts(runs: Sequence[RunFile], *, keep_all_runs: bool) -> Iterator[None]:
    """Re-raise the panel's "conflicting duplicate scores" error with :func:`conflict_hint` added when
    runs clash and ``keep_all_runs`` is off (module docstring)."""
    try:
        yield
    except InputError as exc:
        if keep_all_runs or "conflicting duplicate" not in str(exc):
            raise
        hint = conflict_hint(runs)
        if hint is None:
            raise
        raise InputError(f"{exc}; {hint}") from None


def choose_runs(
    runs: Sequence[RunFile],
    read: Callable[[Path, list[str] | None, Path], pd.DataFrame | None],
    *,
    keep_all_runs: bool,
    tool: str,
) -> Callable[[Path, list[str] | None, Path], pd.DataFrame | None]:
    """``read`` that skips superseded files with a warning, or, with ``keep_all_runs``, labels the model
    of every file whose task ran more than once, or whose model and benchmark another run's file has too
    (:func:`clashes`), with its run (``RUN_LABEL``)."""
    by_path = {r.path.resolve(): r for r in runs}
    newer = superseded(runs)
    rerun = {by_path[p].model_key for p in newer}
    rerun |= {r.model_key for group in clashes(runs).values() for r in group}
    repeated = {p for p, r in by_path.items() if r.model_key in rerun}  # every file of a model run again

    def one(path: Path, notes: list[str] | None, root: Path) -> pd.DataFrame | None:
        real = path.resolve()
        if real in newer and not keep_all_runs:
            if notes is not None:
                old, new = by_path[real], newer[real]
                notes.append(
                    f"warning: {path}: superseded by {new.path.name} ({new.about}), the newer run of the "
                    f"same task as {tool} takes it; not read ({old.about}; --keep-all-runs imports every "
                    "run as its own model run)"
                )
            return None
        frame = read(path, notes, root)
        if frame is not None and keep_all_runs and real in repeated:
            run = by_path[real].run
            frame = frame.assign(model=[RUN_LABEL.format(model=m, run=run) for m in frame["model"]])
            if notes is not None:
                notes.append(f"{path.name}: kept as its own model run (run {run}; --keep-all-runs)")
        return frame

    return one
