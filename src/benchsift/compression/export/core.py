"""One entry point, :func:`export_suite`, and the result it returns."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from benchsift._fileio import atomic_dir
from benchsift._inputs import check_choice, existing_file
from benchsift._jsonutil import loads_bounded
from benchsift._params import ConstraintLike, Options, check_param
from benchsift.compression.export import inspect_task, lm_eval, lmms_eval, vlmevalkit
from benchsift.compression.suite import Suite, load_suite
from benchsift.errors import FormatError, InputError
from benchsift.io.registry import ID_SOURCE
from benchsift.panel import Panel
from benchsift.results import Result

#: The tools a suite can be exported to.
TOOLS: tuple[str, ...] = ("lm-eval", "lmms-eval", "inspect", "vlmevalkit")
#: The record of an export inside its output directory (read back by ``benchsift estimate``).
EXPORT_FILE = "export.json"
EXPORT_FORMAT = "benchsift-export/1"


@dataclass(frozen=True, repr=False)
class ExportResult(Result):
    """What :func:`export_suite` wrote.

    Attributes
    ----------
    tool : str
        The harness exported to.
    out_dir : Path
        The output directory.
    files : list of str
        Files written, relative to ``out_dir`` (``export.json`` included).
    items : dict of str to list of str
        Per suite benchmark, the item ids the harness will run, in the order written.
    harness_names : dict of str to str
        Per suite benchmark, the name the harness will log its results under.
    commands : list of str
        The command lines to run (``MODEL`` and ``RUNS`` are placeholders to fill in).
    warnings : list of str
        Defaults that changed what was asked for.
    """

    tool: str
    out_dir: Path
    files: list[str]
    items: dict[str, list[str]]
    harness_names: dict[str, str]
    commands: list[str]
    warnings: list[str] = field(default_factory=list)

    @property
    def n_items(self) -> int:
        return sum(len(v) for v in self.items.values())

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"tool", "out_dir", "files", "benchmarks": {NAME: {"n_items", "harness_name"}},
        "n_items", "commands", "warnings"}``."""
        return {
            "tool": self.tool,
            "out_dir": str(self.out_dir),
            "files": list(self.files),
            "benchmarks": {
                b: {"n_items": len(ids), "harness_name": self.harness_names[b]}
                for b, ids in self.items.items()
            },
            "n_items": self.n_items,
            "commands": list(self.commands),
            "warnings": list(self.warnings),
        }

    def to_frame(self) -> pd.DataFrame:
        """One row per benchmark: its name, the name the harness logs it under, its number of items."""
        return pd.DataFrame(
            {
                "benchmark": list(self.items),
                "harness_name": [self.harness_names[b] for b in self.items],
                "n_items": [len(v) for v in self.items.values()],
            }
        )


#: the options only one tool's export reads
_TOOL_OPTIONS = {"dataset_tsv": "vlmevalkit", "dataset_class": "vlmevalkit", "task_yaml": "lmms-eval"}

#: what ``ids_from`` accepts
_IDS_FROM: list[ConstraintLike] = [Options(TOOLS), None]


def _check_id_source(suite: Suite, to: str, ids_from: str | None, warnings: list[str]) -> None:
    """Refuse to select ``to``'s documents by ids another tool numbered, or by ids of unknown origin."""
    check_param("ids_from", ids_from, _IDS_FROM)  # after `to`'s check, whose message names a close match
    recorded = set()
    if ID_SOURCE in suite.items.columns:
        recorded = {str(v) for v in suite.items[ID_SOURCE] if str(v)}
    if recorded:
        if len(recorded) > 1 or (ids_from is not None and recorded != {ids_from}):
            raise InputError(
                f"{suite.path / 'items.csv'}: the items were numbered by {sorted(recorded)}"
                + (f", not {ids_from!r} as `ids_from` says" if ids_from is not None else "")
            )
        source = recorded.pop()
    elif ids_from is None:
        raise InputError(
            f"{suite.path}: the suite does not record which tool numbered its items (its panel came from a "
            f"plain table, not a harness's logs): {to} would run whatever its own ids name; if they are "
            f"{to}'s ids, say so with `ids_from` {to}"
        )
    else:
        source = ids_from
        warnings.append(
            f"the suite does not record which tool numbered its items; taken as {ids_from}'s ids, as "
            "`ids_from` says"
        )
    if source != to:
        raise InputError(
            f"{suite.path}: the suite's items are {source}'s ids; {to} numbers its documents its own way, so "
            f"they would select other documents: build the suite from {to}'s logs of the same benchmarks"
        )


def _items_by_benchmark(suite: Suite) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for bench, item in zip(
        suite.items["benchmark"].astype(str), suite.items["item"].astype(str), strict=True
    ):
        out.setdefault(bench, []).append(item)
    for bench, ids in out.items():
        if len(set(ids)) != len(ids):
            dup = sorted({i for i in ids if ids.count(i) > 1})[:3]
            raise InputError(f"{suite.path / 'items.csv'}: benchmark {bench!r} lists item(s) {dup} twice")
    return out


def export_suite(
    suite: Suite | str | Path,
    to: str,
    out_dir: str | Path,
    *,
    dataset_tsv: Mapping[str, str | Path] | None = None,
    dataset_class: Mapping[str, str] | None = None,
    task_yaml: Mapping[str, str | Path] | None = None,
    ids_from: str | None = None,
) -> ExportResult:
    """Write the file(s) ``to`` reads to run exactly the suite's items, and the command lines to run them.

    Parameters
    ----------
    suite : Suite or path
        A suite (or its directory) written by ``benchsift compress``.
    to : {"lm-eval", "lmms-eval", "inspect", "vlmevalkit"}
        The harness.
    out_dir : path
        Output directory (created; files benchsift did not write are never replaced).
    dataset_tsv : mapping of benchmark to path, optional
        VLMEvalKit only, required: the benchmark's dataset TSV (as in ``$LMUData``), whose rows for the
        suite's items are written to the subset TSV.
    dataset_class : mapping of benchmark to str, optional
        VLMEvalKit only, required: the ``vlmeval.dataset`` class that runs the benchmark (for example
        ``MMMUDataset`` for ``MMMU_DEV_VAL``), so the subset is prompted and scored as the full benchmark.
    task_yaml : mapping of benchmark to path, optional
        lmms-eval only, required: the task's own YAML file, which the derived subset task includes.
    ids_from : str, optional
        The tool whose ids the suite's items are, for a suite that does not record it (its panel came from
        a plain table). A suite built from a harness's logs records it (``id_source`` in ``items.csv``), and
        an export to another tool is refused: the ids would select other documents.

    Returns
    -------
    ExportResult

    Raises
    ------
    InputError
        An unknown tool, a missing dataset option, items another tool numbered (or of unknown origin without
        ``ids_from``), or items the tool cannot select unambiguously.
    """
    s = suite if isinstance(suite, Suite) else load_suite(suite)
    check_choice("`to`", to, TOOLS, what="export target")
    warnings: list[str] = []
    _check_id_source(s, to, ids_from, warnings)
    items = _items_by_benchmark(s)
    given = {"dataset_tsv": dataset_tsv, "dataset_class": dataset_class, "task_yaml": task_yaml}
    for option, value in given.items():
        if value and _TOOL_OPTIONS[option] != to:
            raise InputError(f"`{option}` is for {_TOOL_OPTIONS[option]}, not {to}")
    out = Path(out_dir)
    with atomic_dir(out) as tmp:
        if to == "lm-eval":
            written = lm_eval.write(items, tmp, out)
        elif to == "inspect":
            written = inspect_task.write(items, tmp, out)
        elif to == "lmms-eval":
            written = lmms_eval.write(items, tmp, out, dict(task_yaml or {}))
        else:
            written = vlmevalkit.write(items, tmp, out, dict(dataset_tsv or {}), dict(dataset_class or {}))
        record = {
            "format": EXPORT_FORMAT,
            "tool": to,
            "suite": {
                "path": str(s.path),
                "fingerprint_sha256": s.meta.get("input", {}).get("fingerprint_sha256"),
                "n_items": s.n_items,
            },
            "benchmarks": {
                b: {
                    "harness_name": written.harness_names[b],
                    "logged_ids": "position" if written.logged_by_position else "item",
                    "items": ids,
                }
                for b, ids in written.items.items()
            },
            "commands": written.commands,
        }
        (tmp / EXPORT_FILE).write_text(json.dumps(record, indent=2) + "\n")
    return ExportResult(
        tool=to,
        out_dir=out,
        files=sorted([*written.files, EXPORT_FILE]),
        items=written.items,
        harness_names=written.harness_names,
        commands=written.commands,
        warnings=[*warnings, *written.warnings],
    )


def load_export(path: str | Path) -> dict[str, Any]:
    """The ``export.json`` record of an export directory (or the file itself)."""
    p = Path(path)
    f = p / EXPORT_FILE if p.is_dir() else p
    existing_file(f, "a folder written by benchsift export")
    try:
        record = loads_bounded(f.read_bytes(), str(f))
    except json.JSONDecodeError as exc:
        raise FormatError(f"{f}: not valid JSON ({exc})") from None
    got = record.get("format") if isinstance(record, dict) else None
    if got != EXPORT_FORMAT:
        raise FormatError(f"{f}: format {got!r}, expected {EXPORT_FORMAT!r}")
    return dict(record)


def map_run_to_suite(panel: Panel, export: str | Path | dict[str, Any]) -> Panel:
    """A harness run of an export, with its items named as the suite names them.

    For a benchmark the harness logs under another name (lmms-eval's ``<task>_benchsift`` subset tasks),
    rows of that name become the suite's benchmark; where it logs the ``k``-th document as ``k``
    (``logged_ids: "position"`` in ``export.json``), item ``k`` becomes the suite's ``k``-th item. A logged
    position outside the export is refused: the run was not of this export. Other rows pass unchanged.
    """
    record = export if isinstance(export, dict) else load_export(export)
    by_name = {
        str(spec["harness_name"]): (str(bench), spec)
        for bench, spec in record.get("benchmarks", {}).items()
        if spec.get("logged_ids") == "position" or str(spec["harness_name"]) != str(bench)
    }
    if not by_name:
        return panel
    # each benchmark's item ids once (built per row, a run of 16,000 rows took 4.3 s: rows x items)
    ids_of = {
        b: [str(x) for x in spec["items"]]
        for b, (_, spec) in by_name.items()
        if spec.get("logged_ids") == "position"
    }
    items = panel.items.copy()
    bench_col = items["benchmark"].astype(str).tolist()
    item_col = items["item"].astype(str).tolist()
    for r, (b, i) in enumerate(zip(bench_col, item_col, strict=True)):
        if b not in by_name:
            continue
        suite_bench, spec = by_name[b]
        bench_col[r] = suite_bench
        if b in ids_of:
            ids = ids_of[b]
            if not i.isdigit() or int(i) >= len(ids):
                raise InputError(
                    f"run item {b}/{i}: the export logs the {len(ids)} documents of {suite_bench!r} by "
                    f"position 0..{len(ids) - 1}; this run is not of that export"
                )
            item_col[r] = ids[int(i)]
    items["benchmark"] = bench_col
    items["item"] = item_col
    return Panel(panel.scores, panel.models, items)
