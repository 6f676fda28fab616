"""``benchsift import FORMAT INPUT... -o PANEL``: read result files into a panel file.

One sub-command per format of :mod:`benchsift.io.registry`. Each reads its inputs, writes the panel with
``Panel.save`` (atomic: nothing is written when the input is bad;
:func:`benchsift.workflows.panels.import_panel`) and prints a short summary (or, with ``--json``, one JSON
object). Bad input is a one-line error on stderr and exit code 2.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Annotated, Any

import typer

from benchsift.cli._common import BenchsiftGroup, ForceOpt, JsonOpt, arg, emit, opt, outputs
from benchsift.errors import InputError
from benchsift.io.registry import FORMATS
from benchsift.io.rescale import parse_scales
from benchsift.report.panel_summary import summary_table
from benchsift.workflows.panels import import_panel


class ImportGroup(BenchsiftGroup):
    """``benchsift import``: an unknown format is a one-line error (exit 2), like every other input error;
    the group is the error boundary of its commands when it runs on its own too (the tests run it so)."""

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        name = args[0] if args else None
        if name is not None and not name.startswith("-") and self.get_command(ctx, name) is None:
            inputs = [a for a in args[1:] if not a.startswith("-")][:1]
            where = f"{inputs[0]}: " if inputs else ""
            # an input error, printed once by the group's error boundary (resolving has no side effect: the
            # boundary resolves the command beforehand to name its options in messages)
            raise InputError(f"{where}unknown format {name!r}; expected one of {list(FORMATS)}")
        return super().resolve_command(ctx, args)


app = typer.Typer(
    cls=ImportGroup,
    help="Import evaluation results into a panel file (parquet).",
    no_args_is_help=True,
    add_completion=False,
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
    if "filter_name" in options:
        options["filter"] = options.pop("filter_name")
    outputs(force, files=[output, answers_out])
    run = import_panel(
        fmt,
        inputs,
        output,
        rescale=rescale,
        scales=parse_scales(scale) or None,
        answers_out=answers_out,
        **options,
    )
    after = (
        [f"{run.value.n_answers} logged answers -> {answers_out}"] if run.value.answers is not None else []
    )
    emit(
        json_output,
        run,
        lambda: summary_table(run.payload, title=f"{fmt} -> {output}"),
        notes=run.notes,
        warnings=run.warnings,
        after=after,
    )


# The options the commands share, declared once (typer reads the Annotated metadata).
Inputs = Annotated[list[Path], arg("Input file(s).", show_default=False)]
Output = Annotated[Path, opt("Panel file to write (parquet).", "--output", "-o")]
Condition = Annotated[str | None, opt("Condition of the runs: image (default) or text-only.", "--condition")]
Rescale = Annotated[
    str, opt("Out-of-range scores: auto (known scales + percentages), known, none.", "--rescale")
]
Scale = Annotated[
    list[str] | None,
    opt(
        "Declare a benchmark's scale: NAME=MAX (scores in [0, MAX], e.g. MMStar=100; '*=100' for all) or "
        "NAME=LOW:HIGH (mapped onto [0, 1], e.g. TruthfulQA=-1:1 for a -1/+1 coding).",
        "--scale",
    ),
]
AnswersOut = Annotated[
    Path | None,
    opt(
        "Also write the models' logged answers (long table, .parquet or .csv) for validate/report --answers.",
        "--answers-out",
    ),
]
Str = str | None


def _opt(flag: str, help: str, kind: Any = Str) -> Any:
    return Annotated[kind, opt(help, flag)]


Model = _opt("--model", "Model name, where the files do not say it (overrides them).")
Benchmark = _opt("--benchmark", "Benchmark name (default: taken from the file).")
Models = _opt("--models", "Side file models.csv: model, family, release_date, params.", Path | None)
Items = _opt("--items", "Side file items.csv: benchmark, item, category, question, ...", Path | None)
Metric = _opt("--metric", "Per-sample metric to use (default: the task's first).")
ModelColumn = _opt("--model-column", "Model id column (default: first).")
KeepAllRuns = (
    "keep_all_runs",
    _opt(
        "--keep-all-runs",
        "Import every run of a task as its own model run (default: the newest run, as the tool takes it).",
        bool,
    ),
    False,
)


def _register(fmt: str, doc: str, *own: tuple[Any, ...], answers: bool = True) -> None:
    """Add ``benchsift import FMT``: INPUTS, -o OUTPUT, the format's ``own`` options ``(name, annotation)``
    or ``(name, annotation, default)`` (default None), then the options every format shares."""
    P = inspect.Parameter
    params = [P("inputs", P.POSITIONAL_OR_KEYWORD, annotation=Inputs)]
    params.append(P("output", P.POSITIONAL_OR_KEYWORD, annotation=Output))
    for name, annotation, *default in own:
        value = default[0] if default else None
        params.append(P(name, P.POSITIONAL_OR_KEYWORD, default=value, annotation=annotation))
    shared: list[tuple[str, Any, Any]] = [("condition", Condition, None), ("rescale", Rescale, "auto")]
    shared += [("scale", Scale, None)] + ([("answers_out", AnswersOut, None)] if answers else [])
    shared += [("force", ForceOpt, False), ("json_output", JsonOpt, False)]
    params += [P(n, P.POSITIONAL_OR_KEYWORD, default=d, annotation=a) for n, a, d in shared]

    def command(**kwargs: Any) -> None:
        _run(fmt, **kwargs)

    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in params}
    command.__doc__ = doc
    command.__name__ = "import_" + fmt.replace("-", "_")
    app.command(fmt)(command)


_register(
    "long",
    "Long table: model, benchmark, item, score (+ category, condition, metadata); CSV/TSV/parquet/Excel.",
    ("models", Models),
    ("items", Items),
)
_register(
    "wide",
    "Wide table: one row per item, one column per model (or transposed with --orient models-rows).",
    ("benchmark", Benchmark),
    ("item_column", _opt("--item-column", "Item id column (default: first).")),
    ("model_column", _opt("--model-column", "Model id column with --orient models-rows (default: first).")),
    ("category_column", _opt("--category-column", "Column of item categories.")),
    ("orient", _opt("--orient", "items-rows (default) or models-rows.", str), "items-rows"),
    ("models", Models),
    ("items", Items),
    (
        "max_columns",
        _opt("--max-columns", "Refuse a CSV/TSV with more columns (default 200000).", int | None),
    ),
    answers=False,
)
_HARNESS = (
    ("model", Model),
    ("metric", Metric),
    ("filter_name", _opt("--filter", "Filter to keep (e.g. strict-match).")),
    ("benchmark", Benchmark),
)
_register(
    "lmms-eval", "lmms-eval per-sample logs (<date>_samples_<task>.jsonl or folders).", *_HARNESS, KeepAllRuns
)
_register(
    "lm-eval", "lm-evaluation-harness logs (samples_<task>_<date>.jsonl or folders).", *_HARNESS, KeepAllRuns
)
_register(
    "vlmevalkit",
    "VLMEvalKit per-item results (*_result.xlsx|csv|tsv with hit, or a per-item score).",
    ("model", Model),
    ("benchmark", Benchmark),
    ("score_column", _opt("--score-column", "Per-item score column.")),
    (
        "circular",
        _opt("--circular/--no-circular", "Group circular rotations (default: when present).", bool | None),
    ),
    KeepAllRuns,
)
_register(
    "inspect",
    "inspect_ai eval logs (.eval archives or .json, or folders of them).",
    ("model", Model),
    ("benchmark", Benchmark),
    ("scorer", _opt("--scorer", "Scorer to use when a log has several.")),
    ("metric", _opt("--metric", "Field of a dict-valued score.")),
    ("reducer", _opt("--reducer", "Epoch reducer to use when a log holds several (e.g. max, mean).")),
    (
        "max_member_bytes",
        _opt(
            "--max-member-bytes",
            "Refuse an .eval member that decompresses to more (default 256 MiB).",
            int | None,
        ),
    ),
    (
        "max_ratio",
        _opt(
            "--max-ratio",
            "Refuse an .eval member that decompresses more times its size (default 200).",
            float | None,
        ),
    ),
    KeepAllRuns,
)
_register(
    "aggregate",
    "Benchmark-level scores (models x benchmarks CSV, or OpenVLM.json): one panel column per benchmark.",
    ("model_column", ModelColumn),
    ("models", Models),
    answers=False,
)
_register(
    "eee",
    "Every Eval Ever instance-level files (<uuid>_samples.jsonl, or folders of them).",
    (
        "filter_name",
        _opt("--filter", "Aggregate result to keep when a sample has several (evaluation_result_id)."),
    ),
)
_register(
    "lighteval",
    "lighteval details (details_<task>_<date>.parquet, or folders of them).",
    ("model", Model),
    ("metric", _opt("--metric", "Metric of the details to use (default: acc/em).")),
    ("benchmark", Benchmark),
    KeepAllRuns,
)
_register(
    "helm",
    "HELM runs (benchmark_output/runs/<suite> or run folders with per_instance_stats.json).",
    ("model", Model),
    ("benchmark", Benchmark),
    ("metric", _opt("--metric", "Per-instance stat (default: the group's main metric in schema.json).")),
    ("split", _opt("--split", "Split of the stat (default: the schema's main split, else test).")),
)
