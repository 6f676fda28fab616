"""``benchsift export SUITE --to TOOL -o DIR``: the files a harness reads to run exactly the suite's items.

Calls :func:`benchsift.compression.export.export_suite`; ``--json`` prints :meth:`ExportResult.to_dict`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from benchsift.cli._common import ForceOpt, console, err_console, outputs, print_json
from benchsift.compression.export import TOOLS, export_suite
from benchsift.errors import InputError
from benchsift.report.tables.panel import render_export


def _pairs(values: list[str] | None, option: str) -> dict[str, str]:
    """``BENCH=VALUE`` options as a dict (one line naming the option when one has no ``=``)."""
    out: dict[str, str] = {}
    for v in values or []:
        bench, sep, value = v.partition("=")
        if not sep or not bench or not value:
            raise InputError(f"{option} {v!r}: expected BENCHMARK=VALUE")
        if bench in out:
            raise InputError(f"{option}: benchmark {bench!r} given twice")
        out[bench] = value
    return out


def export_command(
    suite_dir: Annotated[Path, typer.Argument(help="A suite directory written by `benchsift compress`.")],
    to: Annotated[str, typer.Option("--to", help=f"The harness: {', '.join(TOOLS)}.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output directory.")],
    dataset_tsv: Annotated[
        list[str] | None,
        typer.Option(
            "--dataset-tsv",
            help="vlmevalkit: BENCHMARK=PATH of the benchmark's dataset TSV (repeat per benchmark).",
        ),
    ] = None,
    dataset_class: Annotated[
        list[str] | None,
        typer.Option(
            "--dataset-class",
            help="vlmevalkit: BENCHMARK=CLASS, the vlmeval.dataset class that runs it (e.g. MMMUDataset).",
        ),
    ] = None,
    task_yaml: Annotated[
        list[str] | None,
        typer.Option(
            "--task-yaml",
            help="lmms-eval: TASK=PATH of the task's own YAML file, which the subset task includes (repeat).",
        ),
    ] = None,
    ids_from: Annotated[
        str | None,
        typer.Option(
            "--ids-from",
            help="The tool whose ids the suite's items are, for a suite built from a plain table (a suite "
            "built from a harness's logs records it).",
        ),
    ] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    force: ForceOpt = False,
) -> None:
    """Write what TOOL needs to run exactly the suite's items, and print the command line to run them."""
    outputs(force, dirs=[out])
    res = export_suite(
        suite_dir,
        to,
        out,
        dataset_tsv=_pairs(dataset_tsv, "--dataset-tsv"),
        dataset_class=_pairs(dataset_class, "--dataset-class"),
        task_yaml=_pairs(task_yaml, "--task-yaml"),
        ids_from=ids_from,
    )
    if json_output:
        print_json(res.to_dict())
        return
    for w in res.warnings:
        err_console.print(f"[yellow]warning: {w}[/]")
    table = render_export(res, to)
    console.print(table)
    console.print("run (MODEL and RUNS are yours to fill in):")
    for c in res.commands:
        console.print(f"  {c}", markup=False, soft_wrap=True)
    then = f"then: benchsift estimate {suite_dir} RUNS --from {to}"
    if to == "lmms-eval":
        then += f" --export {res.out_dir}"
    console.print(then, markup=False, soft_wrap=True)
