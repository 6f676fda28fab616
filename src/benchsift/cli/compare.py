"""``benchsift compare PANEL``: an honest leaderboard (:func:`benchsift.leaderboard.compare`).

Per benchmark and overall: every pair of models compared on the items both answered (paired bootstrap,
Holm or BH across pairs), rank intervals, tie groups and the minimum detectable difference; ``--pair A,B``
adds the items that would separate two models at ``--power``. With ``--suite DIR``, PANEL holds new models'
scores on that compressed suite and the command says which of their differences the suite resolves
(:func:`benchsift.leaderboard.compare_suite`). The work is :mod:`benchsift.workflows.compare`; ``--json``
prints the result's ``to_dict()``; ``--out DIR`` also writes the CSV tables, the rank figures and
``DIR/index.html``.
"""

from __future__ import annotations

import warnings
from numbers import Integral
from pathlib import Path
from typing import Annotated, Any

from benchsift._params import Interval, check_param
from benchsift.cli._common import (
    ClustersOpt,
    ForceOpt,
    JsonOpt,
    PanelArg,
    cluster_spec,
    emit,
    opt,
    outputs,
    split_list,
)
from benchsift.errors import EstimateWarning, InputError


def compare_command(
    panel: PanelArg,
    benchmarks: Annotated[str | None, opt("Comma-separated benchmarks (default all).")] = None,
    n_boot: Annotated[int, opt("Bootstrap replicates.", "--n-boot")] = 2000,
    alpha: Annotated[float, opt("Test level of each pairwise comparison (after the correction).")] = 0.05,
    correction: Annotated[
        str, opt("Correction across pairs: holm (family-wise), bh (false discovery) or none.")
    ] = "holm",
    level: Annotated[float, opt("Level of the score, difference and rank intervals.")] = 0.95,
    rank_critical: Annotated[
        str,
        opt(
            "Rank intervals' critical values: each (each direction its own one-sided one) or worst (both "
            "at the larger: wider).",
            "--rank-critical",
        ),
    ] = "each",
    power: Annotated[float, opt("Power of the minimum detectable difference and the items needed.")] = 0.8,
    pair: Annotated[
        str | None, opt("Two model ids A,B: their power now and the items that would separate them.")
    ] = None,
    clusters: ClustersOpt = "auto",
    suite: Annotated[
        Path | None,
        opt(
            "A suite directory (`benchsift compress --out`): PANEL holds new models' scores on it.", "--suite"
        ),
    ] = None,
    seed: Annotated[int, opt("Bootstrap seed.")] = 0,
    top: Annotated[int, opt("Models listed per leaderboard table (0: all).")] = 0,
    out: Annotated[Path | None, opt("Also write CSV tables, rank figures and index.html here.")] = None,
    json_output: JsonOpt = False,
    force: ForceOpt = False,
) -> None:
    """Which models are really apart (pairwise tests, rank intervals, tie groups) and the benchmark's MDD."""
    outputs(force, dirs=[out])
    check_param("--top", top, [Interval(Integral, 0, None, noun="a number of rows (0: all)")], quote=False)
    stats = dict(
        n_boot=n_boot, alpha=alpha, level=level, power=power, correction=correction,
        clusters=cluster_spec(clusters), random_state=seed,
    )  # fmt: skip
    if suite is not None:
        if pair is not None or benchmarks is not None or rank_critical != "each":
            raise InputError("--pair, --benchmarks and --rank-critical apply to a panel, not to --suite")
        _compare_suite(panel, suite, stats, out, json_output)
    else:
        _compare_panel(
            panel, benchmarks, pair, {**stats, "rank_critical": rank_critical}, top, out, json_output
        )


def _written(out: Path | None) -> list[str]:
    return [f"comparison written to {out}/ (open {out}/index.html)"] if out is not None else []


def _compare_suite(
    panel: Path, suite: Path, stats: dict[str, Any], out: Path | None, json_output: bool
) -> None:
    """``compare --suite``: new models' estimates on a compressed suite
    (:func:`benchsift.workflows.compare.compare_on_suite`)."""
    from benchsift.report.tables.leaderboard import render_suite_compare
    from benchsift.workflows.compare import compare_on_suite

    with warnings.catch_warnings():  # the terminal and --json print the result's warnings, which say the same
        warnings.simplefilter("ignore", EstimateWarning)
        run = compare_on_suite(
            suite, panel, out=out, run={"command": "benchsift compare --suite", "panel": str(panel)}, **stats
        )
    render = lambda: render_suite_compare(run.value)  # noqa: E731
    emit(json_output, run, render, notes=run.notes, warnings=run.warnings, after=_written(out))


def _compare_panel(
    panel: Path,
    benchmarks: str | None,
    pair: str | None,
    stats: dict[str, Any],
    top: int,
    out: Path | None,
    json_output: bool,
) -> None:
    """``compare PANEL``: every pair of models on a panel
    (:func:`benchsift.workflows.compare.compare_panel`)."""
    from benchsift.io import read_scores
    from benchsift.report.progress import progress_bar
    from benchsift.report.tables.leaderboard import render_compare
    from benchsift.workflows.compare import compare_panel

    named = split_list(pair, "--pair") if pair is not None else None
    if named is not None and len(named) != 2:
        raise InputError(f"--pair: expected two model ids A,B, got {pair!r}")
    run = compare_panel(
        read_scores(panel),
        out=out,
        run={"command": "benchsift compare", "panel": str(panel)},
        data=panel.name,
        benchmarks=split_list(benchmarks, "--benchmarks"),
        pair=named,
        progress=progress_bar("pairs", enabled=not json_output),
        **stats,
    )
    render = lambda: render_compare(run.value, top=top or None)  # noqa: E731
    emit(json_output, run, render, warnings=run.warnings, after=_written(out))
