"""Tables fitted to the terminal (:mod:`benchsift.report.console`): how headers are abbreviated."""

from __future__ import annotations

import io
import random

from rich.console import Console
from rich.table import Table
from rich.text import Text

from benchsift.report.console import (
    _WORD,
    KEEP_WORD,
    MIN_WORD,
    SHORT_WORDS,
    DataTable,
    _abbreviate,
    _readable,
    _short_word,
    fit_tables,
)


def test_headers_are_cut_to_their_cells_with_a_legend() -> None:
    out, legend = _abbreviate(["benchmark", "reliability", "MDD"], [9, 5, 5], [True, False, False])
    assert out == ["benchmark", "reliab.", "MDD"]  # its usual short form, not cut further
    assert legend == ["reliab. = reliability"]


def test_abbreviations_stay_readable() -> None:
    # before: "ite.", "fla.", "a-w.", "nea.", "al2." (cut to the cells' width, initials on a clash)
    headers = ["items", "flags", "all-correct", "near-ceiling", "all-wrong", "allocation", "flagged"]
    out, legend = _abbreviate(headers, [3, 3, 4, 4, 4, 4, 3], [False] * 7)
    # words of five letters or fewer are never cut; longer words keep at least four letters
    assert out == ["items", "flags", "all-corr.", "near-ceil.", "all-wrong", "allo.", "flag."]
    assert legend == [
        "all-corr. = all-correct", "near-ceil. = near-ceiling", "allo. = allocation", "flag. = flagged"
    ]  # fmt: skip


def test_known_words_take_their_usual_short_form() -> None:
    headers = ["negative-discrimination", "Correlation", "pointbiserial", "same-same-same", "same-same-sam"]
    out, legend = _abbreviate(headers, [5, 4, 5, 3, 3], [False] * 5)
    assert out[:3] == ["neg-discr.", "Corr.", "pbis."]
    assert len(legend) == 3  # the headers of short words are left whole: the table wraps them instead


def test_headers_of_several_words_keep_whole_words() -> None:
    headers = ["r (item-rest)", "SRCC mean ± sd", "top5_energy_pct", "discrimination index"]
    out, legend = _abbreviate(headers, [6, 13, 7, 6], [False] * 4)
    # short words stay whole; a header that would shrink by less than two characters is left whole
    assert out == ["r (item-rest)", "SRCC mean ± sd", "top5_energy_pct", "discr index."]
    assert legend == ["discr index. = discrimination index"]


def _readable_by_rescanning(header: str, target: int) -> str:
    """The first implementation of ``_readable`` (rebuild the text and rescan every word at each one-letter
    cut, quadratic in the header's length), kept as the reference the heap version must equal."""
    spans = [(m.start(), m.end()) for m in _WORD.finditer(header)]
    words = [header[a:b] for a, b in spans]
    short = list(words)

    def text() -> str:
        out, last = [], 0
        for (a, b), w in zip(spans, short, strict=True):
            out += [header[last:a], w]
            last = b
        return "".join(out) + header[last:]

    while len(text()) > target:
        long = [
            k
            for k, w in enumerate(short)
            if len(words[k]) > KEEP_WORD
            and len(w) > MIN_WORD
            and not (words[k].lower() in SHORT_WORDS and w == _short_word(words[k], len(w)))
        ]
        if not long:
            break
        k = max(long, key=lambda j: (len(short[j]), -j))
        known = SHORT_WORDS.get(words[k].lower())
        if known is not None and len(known) < len(short[k]) and short[k] == words[k]:
            short[k] = _short_word(words[k], len(known))
        else:
            short[k] = short[k][:-1]
    return text()


def test_readable_equals_the_rescanning_reference_on_random_headers() -> None:
    rng = random.Random(0)
    pool = [*SHORT_WORDS, "items", "ab", "flagged", "near", "ceiling", "Correlation", "DISCRIMINATION", "x"]
    for _ in range(600):
        words = [
            rng.choice(pool)
            if rng.random() < 0.6
            else "".join(rng.choice("abcdefghij") for _ in range(rng.randint(1, 14)))
            for _ in range(rng.randint(1, 7))
        ]
        seps = [rng.choice(["-", " ", "_", " (", ") ", "/", " ± "]) for _ in words]
        header = "".join(w + s for w, s in zip(words, seps, strict=True))[: rng.randint(1, 90)]
        for target in (rng.randint(0, len(header) + 2), 4, 0):
            assert _readable(header, target) == _readable_by_rescanning(header, target), (header, target)
    long_header = "-".join(["discrimination", "coverage", "abcdefghijkl"] * 2_000)  # 54,000 characters
    assert _readable(long_header, 100) == "-".join(["discr", "cover", "abcd"] * 2_000)


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


def test_warnings_wrap_between_words_on_a_terminal() -> None:
    import io

    from benchsift.cli._output import print_warnings
    from benchsift.report.console import TableConsole

    text = (
        "stage 2: the item floor of 100 (`floor`) overrides retention 0.05 in 1 of 1 category: MMMU keeps "
        "100 of 1,050 (9.5 %; r alone: 52)"
    )
    buf = io.StringIO()
    con = TableConsole(file=buf, force_terminal=True, width=40, color_system=None)
    print_warnings([text], con)
    lines = buf.getvalue().splitlines()
    assert len(lines) > 2 and all(len(line) <= 40 for line in lines)
    # broken only between words: the words read back whole, in order
    assert " ".join(lines).split() == ("warning: " + text.replace("`floor`", "--floor")).split()
    piped = io.StringIO()
    print_warnings([text], TableConsole(file=piped, width=40, color_system=None))
    assert len(piped.getvalue().splitlines()) == 1  # piped: one line per warning, for grep


def test_no_part_of_a_split_table_holds_a_single_column() -> None:
    table = DataTable(title="wide")
    table.add_column("model")
    names = [f"metric number {k}" for k in range(7)]
    for n in names:
        table.add_column(n)
    for r in range(3):
        table.add_row(f"m{r}", *(f"{0.123456 * (k + r):.6f}" for k in range(7)))
    con = Console(width=60, file=io.StringIO())
    parts = [p for p in fit_tables(con, table) if isinstance(p, Table)]
    assert len(parts) >= 2
    assert all(len(p.columns) >= 3 for p in parts)  # the id column and at least two others
    shown = [c for p in parts for c in (col.header.plain for col in p.columns[1:])]
    assert [h.replace("\n", " ") for h in shown] == names  # every header whole (wrapped, never cut)
    assert not any(isinstance(p, Text) and p.plain.startswith("legend") for p in fit_tables(con, table))


def test_headers_wrap_instead_of_being_cut() -> None:
    # the audit's benchmark health table at 80 columns: before, `ite.`, `a-w.`, `fla.` and a part 2
    # holding one column
    table = DataTable(title="benchmark health")
    headers = ["benchmark", "items", "models", "mean", "SNR", "reliability", "MDD", "all-correct",
               "near-ceiling", "all-wrong", "blind-solvable", "flagged"]  # fmt: skip
    for h in headers:
        table.add_column(h)
    table.add_row(
        "MMMU", "1050", "168", "0.399", "38.4", "0.974", "0.051", "0.000", "0.005", "0.003", "n/a", "164"
    )
    con = Console(width=80, file=io.StringIO())
    out = fit_tables(con, table)
    shown = [
        c.header.plain.replace("-\n", "-").replace("\n", " ")
        for p in out
        if isinstance(p, Table)
        for c in p.columns
    ]
    assert set(headers) <= set(shown)
    assert not any(isinstance(p, Text) and "legend" in p.plain for p in out)
    assert all(len(p.columns) >= 3 for p in out if isinstance(p, Table))
