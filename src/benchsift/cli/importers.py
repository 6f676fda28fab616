"""``benchsift import FORMAT INPUT... -o PANEL``: read result files into a panel file.

One sub-command per format of :mod:`benchsift.io.registry`. Each reads its inputs, writes the panel with
``Panel.save`` (atomic: nothing is written when the input is bad) and prints a short summary (or, with
``--json``, one JSON object). Bad input is a one-line error on stderr and exit code 2.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import typer
from rich.markup import escape
from typer.core import TyperGroup

from benchsift._fileio import atomic_path
from benchsift.cli._common import FORCE, console, fail, outputs, print_json
from benchsift.errors import BenchsiftError, InputError
from benchsift.io.registry import FORMATS, import_panel
from benchsift.io.rescale import RESCALE_MODES, parse_scales
from benchsift.report.panel_summary import panel_summary, summary_table

WARNING = "warning: "  # importers' notes that start so are warnings (also listed under "warnings" in --json)


class ImportGroup(TyperGroup):
    """``benchsift import``: an unknown format is a one-line error (exit 2), like every other input error."""

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        name = args[0] if args else None
        if name is not None and not name.startswith("-") and self.get_command(ctx, name) is None:
            inputs = [a for a in args[1:] if not a.startswith("-")][:1]
            where = f"{inputs[0]}: " if inputs else ""
            raise fail(f"{where}unknown format {name!r}; expected one of {list(FORMATS)}")
        return super().resolve_command(ctx, args)


app = typer.Typer(
    cls=ImportGroup,
    help="Import evaluation results into a panel file (parquet).",
    no_args_is_help=True,
    add_completion=False,
)

INPUTS = typer.Argument(..., help="Input file(s).", show_default=False)
OUTPUT = typer.Option(..., "--output", "-o", help="Panel file to write (parquet).")
CONDITION = typer.Option(None, "--condition", help="Condition of the runs: image (default) or text-only.")
RESCALE = typer.Option(
    "auto", "--rescale", help="Out-of-range scores: auto (known scales + percentages), known, none."
)
SCALE = typer.Option(
    None, "--scale", help="Declare a benchmark's full scale, NAME=MAX (e.g. MMStar=100; '*=100' for all)."
)
JSON = typer.Option(False, "--json", help="Print one JSON object instead of tables.")
MODEL = typer.Option(None, "--model", help="Model name, where the files do not say it (overrides them).")
BENCHMARK = typer.Option(None, "--benchmark", help="Benchmark name (default: taken from the file).")
MODELS = typer.Option(None, "--models", help="Side file models.csv: model, family, release_date, params.")
ITEMS = typer.Option(None, "--items", help="Side file items.csv: benchmark, item, category, question, ...")
METRIC = typer.Option(None, "--metric", help="Per-sample metric to use (default: the task's first).")
ANSWERS_OUT = typer.Option(
    None,
    "--answers-out",
    help="Also write the models' logged answers (long table, .parquet or .csv) for validate --answers.",
)


def _run(
    fmt: str,
    inputs: list[Path],
    output: Path,
    *,
    json_output: bool,
    force: bool = False,
    rescale: str,
    scale: list[str] | None,
    answers_out: Path | None = None,
    **options: Any,
) -> None:
    notes: list[str] = []
    answers: list[pd.DataFrame] | None = [] if answers_out is not None else None
    try:
        outputs(force, files=[output, answers_out])
        if rescale not in RESCALE_MODES:
            raise fail(f"--rescale {rescale!r} is not one of {list(RESCALE_MODES)}")
        if answers_out is not None and answers_out.suffix.lower() not in (".parquet", ".csv"):
            raise fail(f"--answers-out {answers_out}: expected a .parquet or .csv file name")
        panel = import_panel(
            fmt,
            inputs,
            rescale=rescale,
            scales=parse_scales(scale) or None,
            notes=notes,
            answers=answers,
            **options,
        )
        table = _answers_table(answers, fmt) if answers_out is not None else None
        panel.save(output)
        if table is not None and answers_out is not None:
            with atomic_path(answers_out) as tmp:
                if answers_out.suffix.lower() == ".parquet":
                    table.to_parquet(tmp, index=False)
                else:
                    table.to_csv(tmp, index=False)
    except BenchsiftError as exc:
        raise fail(str(exc)) from None
    summary = panel_summary(panel)
    if table is not None:
        summary["answers_output"] = str(answers_out)
        summary["n_answers"] = int(table["answer"].notna().sum())
    warnings = [n.removeprefix(WARNING) for n in notes if n.startswith(WARNING)]
    if json_output:
        print_json({"output": str(output), "format": fmt, **summary, "notes": notes, "warnings": warnings})
        return
    console.print(summary_table(summary, title=f"{fmt} -> {output}"))
    if table is not None:
        console.print(f"  {summary['n_answers']} logged answers -> {answers_out}")
    for note in notes:
        if note.startswith(WARNING):
            console.print(f"  [yellow]warning:[/yellow] {escape(note.removeprefix(WARNING))}")
        else:
            console.print(f"  [dim]{escape(note)}[/dim]")


def _answers_table(answers: list[pd.DataFrame] | None, fmt: str) -> pd.DataFrame:
    """The logged answers an importer handed out, as one long table; an error when there were none."""
    if not answers:
        raise InputError(f"--answers-out: these {fmt} files log no model answers")
    return pd.concat(answers, ignore_index=True)


@app.command("long")
def import_long(
    inputs: list[Path] = INPUTS,
    output: Path = OUTPUT,
    models: Path | None = MODELS,
    items: Path | None = ITEMS,
    condition: str | None = CONDITION,
    rescale: str = RESCALE,
    scale: list[str] | None = SCALE,
    answers_out: Path | None = ANSWERS_OUT,
    force: bool = FORCE,
    json_output: bool = JSON,
) -> None:
    """Long table: model, benchmark, item, score (+ category, condition, metadata); CSV/TSV/parquet/Excel."""
    _run(
        "long",
        inputs,
        output,
        json_output=json_output,
        force=force,
        answers_out=answers_out,
        rescale=rescale,
        scale=scale,
        models=models,
        items=items,
        condition=condition,
    )


@app.command("wide")
def import_wide(
    inputs: list[Path] = INPUTS,
    output: Path = OUTPUT,
    benchmark: str | None = BENCHMARK,
    item_column: str | None = typer.Option(None, "--item-column", help="Item id column (default: first)."),
    model_column: str | None = typer.Option(
        None, "--model-column", help="Model id column with --orient models-rows (default: first)."
    ),
    category_column: str | None = typer.Option(None, "--category-column", help="Column of item categories."),
    orient: str = typer.Option("items-rows", "--orient", help="items-rows (default) or models-rows."),
    models: Path | None = MODELS,
    items: Path | None = ITEMS,
    condition: str | None = CONDITION,
    rescale: str = RESCALE,
    scale: list[str] | None = SCALE,
    force: bool = FORCE,
    json_output: bool = JSON,
) -> None:
    """Wide table: one row per item, one column per model (or transposed with --orient models-rows)."""
    _run(
        "wide",
        inputs,
        output,
        json_output=json_output,
        force=force,
        rescale=rescale,
        scale=scale,
        benchmark=benchmark,
        item_column=item_column,
        model_column=model_column,
        category_column=category_column,
        orient=orient,
        models=models,
        items=items,
        condition=condition,
    )


def _harness_command(fmt: str, doc: str) -> Any:
    def command(
        inputs: list[Path] = INPUTS,
        output: Path = OUTPUT,
        model: str | None = MODEL,
        metric: str | None = METRIC,
        filter_name: str | None = typer.Option(None, "--filter", help="Filter to keep (e.g. strict-match)."),
        benchmark: str | None = BENCHMARK,
        condition: str | None = CONDITION,
        rescale: str = RESCALE,
        scale: list[str] | None = SCALE,
        answers_out: Path | None = ANSWERS_OUT,
        force: bool = FORCE,
        json_output: bool = JSON,
    ) -> None:
        _run(
            fmt,
            inputs,
            output,
            json_output=json_output,
            force=force,
            answers_out=answers_out,
            rescale=rescale,
            scale=scale,
            model=model,
            metric=metric,
            filter=filter_name,
            benchmark=benchmark,
            condition=condition,
        )

    command.__doc__ = doc
    return command


app.command("lmms-eval")(
    _harness_command("lmms-eval", "lmms-eval per-sample logs (<date>_samples_<task>.jsonl or folders).")
)
app.command("lm-eval")(
    _harness_command("lm-eval", "lm-evaluation-harness logs (samples_<task>_<date>.jsonl or folders).")
)


@app.command("vlmevalkit")
def import_vlmevalkit(
    inputs: list[Path] = INPUTS,
    output: Path = OUTPUT,
    model: str | None = MODEL,
    benchmark: str | None = BENCHMARK,
    score_column: str | None = typer.Option(None, "--score-column", help="Per-item score column."),
    circular: bool | None = typer.Option(
        None, "--circular/--no-circular", help="Group circular rotations (default: when present)."
    ),
    condition: str | None = CONDITION,
    rescale: str = RESCALE,
    scale: list[str] | None = SCALE,
    answers_out: Path | None = ANSWERS_OUT,
    force: bool = FORCE,
    json_output: bool = JSON,
) -> None:
    """VLMEvalKit per-item results (*_result.xlsx|csv|tsv with hit, or a per-item score)."""
    _run(
        "vlmevalkit",
        inputs,
        output,
        json_output=json_output,
        force=force,
        answers_out=answers_out,
        rescale=rescale,
        scale=scale,
        model=model,
        benchmark=benchmark,
        score_column=score_column,
        circular=circular,
        condition=condition,
    )


@app.command("inspect")
def import_inspect(
    inputs: list[Path] = INPUTS,
    output: Path = OUTPUT,
    model: str | None = MODEL,
    benchmark: str | None = BENCHMARK,
    scorer: str | None = typer.Option(None, "--scorer", help="Scorer to use when a log has several."),
    metric: str | None = typer.Option(None, "--metric", help="Field of a dict-valued score."),
    reducer: str | None = typer.Option(
        None, "--reducer", help="Epoch reducer to use when a log holds several (e.g. max, mean)."
    ),
    condition: str | None = CONDITION,
    rescale: str = RESCALE,
    scale: list[str] | None = SCALE,
    answers_out: Path | None = ANSWERS_OUT,
    force: bool = FORCE,
    json_output: bool = JSON,
) -> None:
    """inspect_ai eval logs (.eval archives or .json, or folders of them)."""
    _run(
        "inspect",
        inputs,
        output,
        json_output=json_output,
        force=force,
        answers_out=answers_out,
        rescale=rescale,
        scale=scale,
        model=model,
        benchmark=benchmark,
        scorer=scorer,
        metric=metric,
        reducer=reducer,
        condition=condition,
    )


@app.command("aggregate")
def import_aggregate(
    inputs: list[Path] = INPUTS,
    output: Path = OUTPUT,
    model_column: str | None = typer.Option(None, "--model-column", help="Model id column (default: first)."),
    models: Path | None = MODELS,
    condition: str | None = CONDITION,
    rescale: str = RESCALE,
    scale: list[str] | None = SCALE,
    force: bool = FORCE,
    json_output: bool = JSON,
) -> None:
    """Benchmark-level scores (models x benchmarks CSV, or OpenVLM.json): one panel column per benchmark."""
    _run(
        "aggregate",
        inputs,
        output,
        json_output=json_output,
        force=force,
        rescale=rescale,
        scale=scale,
        model_column=model_column,
        models=models,
        condition=condition,
    )


@app.command("eee")
def import_eee(
    inputs: list[Path] = INPUTS,
    output: Path = OUTPUT,
    filter_name: str | None = typer.Option(
        None, "--filter", help="Aggregate result to keep when a sample has several (evaluation_result_id)."
    ),
    condition: str | None = CONDITION,
    rescale: str = RESCALE,
    scale: list[str] | None = SCALE,
    answers_out: Path | None = ANSWERS_OUT,
    force: bool = FORCE,
    json_output: bool = JSON,
) -> None:
    """Every Eval Ever instance-level files (<uuid>_samples.jsonl, or folders of them)."""
    _run(
        "eee",
        inputs,
        output,
        json_output=json_output,
        force=force,
        answers_out=answers_out,
        rescale=rescale,
        scale=scale,
        filter=filter_name,
        condition=condition,
    )


@app.command("lighteval")
def import_lighteval(
    inputs: list[Path] = INPUTS,
    output: Path = OUTPUT,
    model: str | None = MODEL,
    metric: str | None = typer.Option(
        None, "--metric", help="Metric of the details to use (default: acc/em)."
    ),
    benchmark: str | None = BENCHMARK,
    condition: str | None = CONDITION,
    rescale: str = RESCALE,
    scale: list[str] | None = SCALE,
    answers_out: Path | None = ANSWERS_OUT,
    force: bool = FORCE,
    json_output: bool = JSON,
) -> None:
    """lighteval details (details_<task>_<date>.parquet, or folders of them)."""
    _run(
        "lighteval",
        inputs,
        output,
        json_output=json_output,
        force=force,
        answers_out=answers_out,
        rescale=rescale,
        scale=scale,
        model=model,
        metric=metric,
        benchmark=benchmark,
        condition=condition,
    )
