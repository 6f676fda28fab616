"""``benchsift export SUITE --to TOOL -o DIR``: the files a harness reads to run exactly the suite's items.

Calls :func:`benchsift.compression.export.export_suite`; ``--json`` prints :meth:`ExportResult.to_dict`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from benchsift.cli._common import ForceOpt, JsonOpt, SuiteArg, emit, opt, outputs, unique_pairs
from benchsift.compression.export import TOOLS, export_suite
from benchsift.report.tables.panel import render_export


def export_command(
    suite_dir: SuiteArg,
    to: Annotated[str, opt(f"The harness: {', '.join(TOOLS)}.", "--to")],
    out: Annotated[Path, opt("Output directory.", "--out", "-o")],
    dataset_tsv: Annotated[
        list[str] | None,
        opt(
            "vlmevalkit: BENCHMARK=PATH of the benchmark's dataset TSV (repeat per benchmark).",
            "--dataset-tsv",
        ),
    ] = None,
    dataset_class: Annotated[
        list[str] | None,
        opt(
            "vlmevalkit: BENCHMARK=CLASS, the vlmeval.dataset class that runs it (e.g. MMMUDataset).",
            "--dataset-class",
        ),
    ] = None,
    task_yaml: Annotated[
        list[str] | None,
        opt(
            "lmms-eval: TASK=PATH of the task's own YAML file, which the subset task includes (repeat).",
            "--task-yaml",
        ),
    ] = None,
    ids_from: Annotated[
        str | None,
        opt(
            "The tool whose ids the suite's items are, for a suite built from a plain table (a suite "
            "built from a harness's logs records it).",
            "--ids-from",
        ),
    ] = None,
    json_output: JsonOpt = False,
    force: ForceOpt = False,
) -> None:
    """Write what the harness (--to) needs to run exactly the suite's items, and the command to run them."""
    outputs(force, dirs=[out], pages=False)  # no index.html
    res = export_suite(
        suite_dir,
        to,
        out,
        dataset_tsv=unique_pairs(dataset_tsv, "--dataset-tsv"),
        dataset_class=unique_pairs(dataset_class, "--dataset-class"),
        task_yaml=unique_pairs(task_yaml, "--task-yaml"),
        ids_from=ids_from,
    )
    then = f"then: benchsift estimate {suite_dir} RUNS --from {to}"
    then += f" --export {res.out_dir}" if to == "lmms-eval" else ""
    emit(
        json_output,
        res,
        lambda: render_export(res, to),
        warnings=res.warnings,
        after=["run (MODEL and RUNS are yours to fill in):"],
        verbatim=[*(f"  {c}" for c in res.commands), then],
    )
