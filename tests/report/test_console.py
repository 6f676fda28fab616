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


def _render(table: Table, fmt: str, width: int = 200) -> str:
    """What a TableConsole prints for ``table`` in format ``fmt`` (json: the collected tables)."""
    import io
    import json

    from benchsift.report.console import TableConsole, flush_json, set_format

    buf = io.StringIO()
    set_format(fmt)
    try:
        TableConsole(file=buf, width=width).print(table)
        if fmt == "json":
            flush_json(buf)
            return json.dumps(json.loads(buf.getvalue())["tables"])
    finally:
        set_format("table")
    return buf.getvalue()


def test_a_data_table_prints_bracketed_words_as_written() -> None:
    from benchsift.report.console import DataTable

    t = DataTable(title="scores of run[v2].parquet")
    t.add_column("benchmark")
    t.add_column("mean [bold]")
    t.add_row("MMBench[en]", "0.5")
    t.add_row("MMBench[cn]", Text("0.4", style="bold"))  # a styled cell keeps its style, not its text
    for fmt in ("table", "csv", "markdown", "json"):
        out = _render(t, fmt)
        for text in ("run[v2].parquet", "mean [bold]", "MMBench[en]", "MMBench[cn]", "0.4"):
            assert text in out, (fmt, text)
    notebook = Console(width=200, record=True)  # rich.print's console: markup and emoji codes on
    t.add_row("ollama:cat:7b", "0.3")
    notebook.print(t)
    shown = notebook.export_text()
    assert all(s in shown for s in ("run[v2].parquet", "mean [bold]", "MMBench[en]", "ollama:cat:7b"))
    plain = Table(title="scores of run[v2].parquet")  # what rich does with the same strings
    plain.add_column("benchmark")
    plain.add_row("MMBench[en]")
    assert "MMBench[en]" not in _render(plain, "csv") and "MMBench" in _render(plain, "csv")


def test_a_split_table_keeps_bracketed_headers() -> None:
    from benchsift.report.console import DataTable

    t = DataTable(title="wide")
    t.add_column("model")
    for k in range(12):
        t.add_column(f"MMBench[s{k}] accuracy")
    t.add_row("m[1]", *(f"{k / 10:.3f}" for k in range(12)))
    out = _render(t, "table", width=60)
    assert "part 2 of" in out and "m[1]" in out
    assert all(f"MMBench[s{k}]" in out for k in range(12))  # in a header or the legend line


def test_every_table_is_a_data_table() -> None:
    """A rich ``Table(...)`` built anywhere but the console's own copies would read its names as markup."""
    import re
    from pathlib import Path

    import benchsift

    root = Path(benchsift.__file__).parent
    plain = re.compile(r"(?<![\w.])Table\(")
    found = [
        f"{path.relative_to(root)}:{n}"
        for path in sorted(root.rglob("*.py"))
        if path.name != "console.py"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if plain.search(line)
    ]
    assert found == []
