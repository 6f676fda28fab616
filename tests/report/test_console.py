"""Tables fitted to the terminal (:mod:`benchsift.report.console`): how headers are abbreviated."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from benchsift.report.console import _abbreviate, fit_tables


def test_headers_are_cut_to_their_cells_with_a_legend() -> None:
    out, legend = _abbreviate(["benchmark", "reliability", "MDD"], [9, 5, 5], [True, False, False])
    assert out == ["benchmark", "reli.", "MDD"]
    assert legend == ["reli. = reliability"]


def test_a_clash_of_several_words_takes_their_initials() -> None:
    headers = ["all-correct", "near-ceiling", "all-wrong", "allocation"]
    out, legend = _abbreviate(headers, [4, 4, 4, 4], [False] * 4)
    # all-correct takes "all."; all-wrong would clash: its initials; a one-word clash is numbered
    assert out == ["all.", "nea.", "a-w.", "al2."]
    assert legend == ["all. = all-correct", "nea. = near-ceiling", "a-w. = all-wrong", "al2. = allocation"]


def test_headers_of_several_words_keep_whole_words() -> None:
    headers = ["r (item-rest)", "SRCC mean ± sd", "top5_energy_pct"]
    out, legend = _abbreviate(headers, [6, 13, 7], [False] * 3)
    # cut inside a word, a header of words keeps the words that fit, less a trailing "±" or "(";
    # a header of one word (underscores) is cut by characters as before
    assert out == ["r.", "SRCC mean.", "top5_e."]
    assert legend == ["r. = r (item-rest)", "SRCC mean. = SRCC mean ± sd", "top5_e. = top5_energy_pct"]


def test_a_title_wider_than_its_table_is_a_line_above_it() -> None:
    console = Console(width=80, record=True)
    narrow = Table(title="wide -> panel.parquet: 168 models (168 runs) x 1050 items, mean 0.3993")
    narrow.add_column("benchmark")
    narrow.add_row("MMMU")
    shown = fit_tables(console, narrow)
    assert [type(r) for r in shown] == [Text, Table] and shown[1].title is None
    assert shown[0].plain == "wide -> panel.parquet: 168 models (168 runs) x 1050 items, mean 0.3993"
    assert narrow.title is not None  # the caller's table is not changed
    fitting = Table(title="short")
    fitting.add_column("benchmark")
    fitting.add_row("MMMU")
    (only,) = fit_tables(console, fitting)
    assert isinstance(only, Table) and only.title == "short"
