"""Tables that fit the terminal, and the same tables as CSV, Markdown or JSON (``--format``).

Every command prints its tables as :class:`rich.table.Table` objects through the shared console, a
:class:`TableConsole`. It renders each table in the format chosen by ``--format`` (:data:`FORMATS`):

``table`` (default)
    Fitted to the console width without cutting a cell: when the table is too wide, headers longer than
    their column's cells are wrapped between words (and after a ``-`` or ``_``: ``all-wrong`` ->
    ``all-`` / ``wrong``), first in the normal box, then in a compact one; only if that is not enough are
    headers abbreviated (a ``legend:`` line below the table gives the full names), then the columns are
    split over several tables, each repeating the identifier columns (the first column and any named like
    :data:`ID_HEADERS`), which never wrap. A part never holds a single column beside the identifiers:
    the columns are spread evenly over the parts instead. No cell is ever shortened with an ellipsis: a
    long free-text cell (a note) wraps onto more lines.
``csv`` / ``markdown``
    Every table in full, plain text (markup removed), on stdout; other output goes to stderr (csv) or stays
    as plain lines (markdown). CSV tables are preceded by a ``# title`` line; a blank line separates
    tables.
``json``
    One JSON object on stdout at the end: ``{"tables": [{"title", "columns", "rows"}], "warnings": [...]}``
    (rows as lists of cell texts). ``--json`` prints a command's full result object instead.
"""

from __future__ import annotations

import csv
import heapq
import io
import json
import re
import sys
import textwrap
from contextvars import ContextVar
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from benchsift._fileio import spreadsheet_cell

__all__ = [
    "FORMATS",
    "ID_HEADERS",
    "DataTable",
    "TableConsole",
    "fit_tables",
    "plain_table",
    "printable",
    "set_format",
]

FORMATS: tuple[str, ...] = ("table", "csv", "markdown", "json")
#: Headers of identifier columns: never wrapped or abbreviated, repeated in every part of a split table.
ID_HEADERS = frozenset(
    {
        "model",
        "models",
        "benchmark",
        "selector",
        "category",
        "item",
        "name",
        "dimension",
        "axis",
        "family",
        "target",
        "domain",
        "analysis",
        "quantity",
        "split",
        "variant",
        "pair",
        "a",
        "b",
    }
)

_FORMAT: ContextVar[str] = ContextVar("benchsift_format", default="table")
_COLLECTED: ContextVar[list[dict[str, Any]] | None] = ContextVar("benchsift_tables", default=None)
_WARNINGS: ContextVar[list[str] | None] = ContextVar("benchsift_table_warnings", default=None)


#: characters a terminal acts on rather than shows: C0 controls but newline, DEL, C1 controls (ESC starts
#: a sequence that retitles the window or clears the screen, BEL rings, CR overwrites the line) and the
#: bidirectional overrides and isolates (text shown in an order other than the one it has)
_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_CONTROL_NL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def printable(text: str, newlines: bool = True) -> str:
    """``text`` safe to print on a terminal: each control character written as its Python escape (ESC as
    ``\\x1b``, BEL as ``\\x07``, CR as ``\\r``, a tab as ``\\t``), newlines kept when ``newlines``.
    Every line benchsift prints goes through it (:class:`DataTable` cells, :class:`TableConsole` lines,
    the CLI's one-line errors and warnings); ``--json`` keeps the raw text (JSON escapes it)."""
    pattern = _CONTROL if newlines else _CONTROL_NL
    if pattern.search(text) is None:
        return text
    return pattern.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def _printable_text(text: Text) -> Text:
    """A :class:`~rich.text.Text` with :func:`printable` content (its spans dropped when that changes it)."""
    if _CONTROL.search(text.plain) is None:
        return text
    return Text(printable(text.plain), style=text.style, justify=text.justify, no_wrap=text.no_wrap)


def _literal(value: Any) -> Any:
    """A string as a plain :class:`~rich.text.Text`, which no console reads as markup or emoji codes, its
    control characters escaped (:func:`printable`)."""
    if isinstance(value, str):
        return Text(printable(value))
    return _printable_text(value) if isinstance(value, Text) else value


class DataTable(Table):
    """A :class:`rich.table.Table` whose title, caption, headers and cells are text printed as written.

    rich reads every string of a table as markup, so a name with a bracketed word lost it: the benchmark
    ``bench[en]`` printed as ``bench``, in the terminal and in ``--format csv`` / ``json`` alike, and two
    benchmarks ``MMBench[en]`` and ``MMBench[cn]`` as one name twice; and emoji codes were replaced (the
    model ``ollama:cat:7b`` printed ``ollama🐱7b``). Every ``str`` given here becomes a plain
    :class:`rich.text.Text`, printed as written by any console (a notebook's ``rich.print`` too); a cell
    meant to be styled is a styled ``Text`` (``Text(s, style="bold")``) or takes the row's or column's
    ``style``. Every table benchsift prints is one.
    """

    def __init__(self, *headers: Any, title: Any = None, caption: Any = None, **kwargs: Any) -> None:
        # rich's __init__ adds each header through add_column below, which makes it plain text
        super().__init__(*headers, title=_literal(title), caption=_literal(caption), **kwargs)

    def add_column(self, header: Any = "", *args: Any, **kwargs: Any) -> None:
        super().add_column(_literal(header), *args, **kwargs)

    def add_row(self, *renderables: Any, **kwargs: Any) -> None:
        super().add_row(*(_literal(r) for r in renderables), **kwargs)


def set_format(fmt: str) -> None:
    """Choose the output format of the tables printed from now on in this context (``--format``)."""
    if fmt not in FORMATS:
        from benchsift._suggest import did_you_mean
        from benchsift.errors import InputError

        raise InputError(
            f"--format: expected one of {', '.join(FORMATS)}, got {fmt!r}{did_you_mean(fmt, FORMATS)}"
        )
    _FORMAT.set(fmt)
    _COLLECTED.set([] if fmt == "json" else None)
    _WARNINGS.set([] if fmt == "json" else None)


def current_format() -> str:
    return _FORMAT.get()


def _plain(cell: Any) -> str:
    if isinstance(cell, Text):
        return cell.plain
    if isinstance(cell, str):
        try:
            return Text.from_markup(cell, emoji=False).plain
        except Exception:  # not valid markup: the text as it is
            return cell
    return str(cell)


def plain_table(table: Table) -> tuple[str, list[str], list[list[str]]]:
    """``(title, headers, rows)`` of a rich table as plain text."""
    headers = [_plain(c.header) for c in table.columns]
    cols = [[_plain(v) for v in c.cells] for c in table.columns]
    n = max((len(c) for c in cols), default=0)
    rows = [[c[i] if i < len(c) else "" for c in cols] for i in range(n)]
    return _plain(table.title or ""), headers, rows


def _is_id(header: str, index: int) -> bool:
    return index == 0 or header.strip().lower() in ID_HEADERS


def _copy(table: Table, columns: list[int], headers: list[str], title: Any, compact: bool = False) -> Table:
    """A new table with the chosen columns of ``table`` (same style, rows and row styles); ``compact``:
    no outer edge, a rule under the header only, one space of padding (two characters less per column)."""
    new = Table(
        title=title,
        caption=table.caption,
        box=box.SIMPLE_HEAD if compact else table.box,
        show_header=table.show_header,
        show_edge=not compact and table.show_edge,
        show_lines=table.show_lines,
        header_style=table.header_style,
        title_style=table.title_style,
        row_styles=table.row_styles,
        expand=False,
        pad_edge=False if compact else table.pad_edge,
        padding=(0, 1, 0, 0) if compact else table.padding,
    )
    cells = [list(table.columns[i].cells) for i in columns]
    for k, i in enumerate(columns):
        col = table.columns[i]
        ident = _is_id(_plain(col.header), i)
        new.add_column(
            Text(headers[k]),  # plain text (_plain of the header): as written
            justify=col.justify,
            style=col.style,
            header_style=col.header_style,
            no_wrap=ident,
            overflow="fold",
            min_width=col.min_width,
            vertical=col.vertical,
        )
    n = max((len(c) for c in cells), default=0)
    for r in range(n):
        style = table.rows[r].style if r < len(table.rows) else None
        end = table.rows[r].end_section if r < len(table.rows) else False
        new.add_row(*(c[r] if r < len(c) else "" for c in cells), style=style, end_section=end)
    return new


def _width(console: Console, renderable: Any) -> int:
    """The natural width of ``renderable`` (not capped at the console width, as ``console.measure`` is)."""
    return console.measure(renderable, options=console.options.update(width=100_000)).maximum


def _wrap_words(text: str, width: int) -> list[str]:
    """``text`` on lines of at most ``width`` characters, breaking only between words."""
    return textwrap.wrap(text, max(width, 1), break_long_words=False, break_on_hyphens=False)


_PIECE = re.compile(r"[^\s_-]*[_-]+|[^\s_-]+")


def _wrap_header(header: str, width: int) -> str:
    """``header`` on lines of at most ``width`` characters (or its longest piece), breaking between words
    and after ``-`` or ``_``; never inside a word."""
    lines: list[str] = []
    line = ""
    for m in _PIECE.finditer(header):
        piece = m.group()
        spaced = m.start() > 0 and header[m.start() - 1].isspace()
        joined = line + (" " if spaced and line else "") + piece
        if not line or len(joined) <= width:
            line = joined
        else:
            lines.append(line)
            line = piece
    if line:
        lines.append(line)
    return "\n".join(lines) if lines else header


def _header_width(header: str) -> int:
    """The narrowest a header gets wrapped: its longest piece."""
    return max((len(m.group()) for m in _PIECE.finditer(header)), default=len(header))


def _balanced(rest: list[int], n_parts: int) -> list[list[int]]:
    """``rest`` cut into ``n_parts`` consecutive runs of near-equal length."""
    size, extra = divmod(len(rest), n_parts)
    out: list[list[int]] = []
    start = 0
    for k in range(n_parts):
        end = start + size + (1 if k < extra else 0)
        out.append(rest[start:end])
        start = end
    return [p for p in out if p]


#: Readable short forms of words common in benchsift's headers (used before cutting a word).
SHORT_WORDS = {
    "correlation": "corr",
    "discrimination": "discr",
    "reliability": "reliab",
    "percentage": "pct",
    "percent": "pct",
    "interval": "intvl",
    "estimate": "est",
    "standard": "std",
    "deviation": "dev",
    "difference": "diff",
    "coverage": "cover",
    "number": "n",
    "negative": "neg",
    "positive": "pos",
    "pointbiserial": "pbis",
    "anchorpoints": "anchors",
}
#: Words of at most this many characters are never shortened ("items", "flags", "mean", "wrong").
KEEP_WORD = 5
#: A shortened word keeps at least this many letters.
MIN_WORD = 4
_WORD = re.compile(r"[^\W_]+")


def _short_word(word: str, letters: int) -> str:
    """``word``'s known short form (:data:`SHORT_WORDS`) when it has one of at most ``letters``
    characters, in the word's case, else its first ``letters`` letters (not fewer than :data:`MIN_WORD`)."""
    known = SHORT_WORDS.get(word.lower())
    if known is not None and len(known) <= letters:
        return known.upper() if word.isupper() else known.capitalize() if word[:1].isupper() else known
    return word[: max(letters, MIN_WORD)]


def _readable(header: str, target: int) -> str:
    """``header`` shortened towards ``target`` characters by shortening its long words (more than
    :data:`KEEP_WORD` characters), the longest first, each to its known short form (:data:`SHORT_WORDS`,
    not cut further) or to no fewer than :data:`MIN_WORD` letters; separators and short words stay
    (``near-ceiling`` -> ``near-ceil``, ``items`` stays ``items``).

    One cut at a time, the longest word first (the first of equals); the words wait in a heap and the
    length is kept as it changes, so the cost grows as ``n log n`` in the header's length ``n`` (rebuilding
    the text and rescanning every word at each cut was quadratic: 0.9 s for 32,000 characters)."""
    spans = [(m.start(), m.end()) for m in _WORD.finditer(header)]
    words = [header[a:b] for a, b in spans]
    short = list(words)

    def cuttable(k: int) -> bool:
        w = short[k]
        return (
            len(words[k]) > KEEP_WORD
            and len(w) > MIN_WORD
            and not (words[k].lower() in SHORT_WORDS and w == _short_word(words[k], len(w)))
        )  # a word at its known short form is not cut further

    heap = [(-len(short[k]), k) for k in range(len(words)) if cuttable(k)]
    heapq.heapify(heap)
    length = len(header)
    while length > target and heap:
        _, k = heapq.heappop(heap)
        before = len(short[k])
        known = SHORT_WORDS.get(words[k].lower())
        if known is not None and len(known) < len(short[k]) and short[k] == words[k]:
            short[k] = _short_word(words[k], len(known))
        else:
            short[k] = short[k][:-1]
        length -= before - len(short[k])
        if cuttable(k):
            heapq.heappush(heap, (-len(short[k]), k))
    out, last = [], 0
    for (a, b), w in zip(spans, short, strict=True):
        out += [header[last:a], w]
        last = b
    return "".join(out) + header[last:]


def _abbreviate(
    headers: list[str], cell_widths: list[int], protect: list[bool]
) -> tuple[list[str], list[str]]:
    """Headers longer than their cells shortened readably (:func:`_readable`: long words shortened to at
    least four letters or their known short form, short words kept, never ``ite.``) with a ``.`` marking
    the cut; returns the new headers and the legend entries ``short = full``. A header that would shrink
    by fewer than two characters is left whole (the table wraps or splits instead)."""
    out: list[str] = []
    legend: list[str] = []
    used: set[str] = set()
    for h, w, keep in zip(headers, cell_widths, protect, strict=True):
        if keep or len(h) <= max(w, 4):
            out.append(h)
            used.add(h)
            continue
        stem = _readable(h, max(w, 4) - 1)
        short = stem + "."
        if len(short) > len(h) - 2:
            out.append(h)
            used.add(h)
            continue
        k = 2
        while short in used or short in headers:
            short = f"{stem}{k}."
            k += 1
        used.add(short)
        out.append(short)
        legend.append(f"{short} = {h}")
    return out, legend


def _titles_above(console: Console, shown: list[Any]) -> list[Any]:
    """Each table of ``shown`` whose title is wider than the table itself with the title as a line of its
    own above it: rich would wrap it, centred, to the table's width (a 3-column summary under a one-line
    description of the panel took three ragged lines)."""
    out: list[Any] = []
    for r in shown:
        title = _plain(r.title) if isinstance(r, Table) and r.title else ""
        if title and len(title) > _width(console, r):
            out.append(Text.from_markup(r.title, emoji=False) if isinstance(r.title, str) else Text(title))
            out[-1].stylize(r.title_style or "table.title")
            r.title = None
        out.append(r)
    return out


def fit_tables(console: Console, table: Table) -> list[Any]:
    """The renderables that show ``table`` within ``console.width`` without cutting a cell (see module)."""
    return _titles_above(console, _fit(console, table))


def _fit(console: Console, table: Table) -> list[Any]:
    width = console.width
    cols = list(range(len(table.columns)))
    headers = [_plain(c.header) for c in table.columns]
    ids = [i for i in cols if _is_id(headers[i], i)]
    whole = _copy(table, cols, headers, table.title)
    if _width(console, whole) <= width or not cols:
        return [whole]
    cell_w = [max((_width(console, v) for v in table.columns[i].cells), default=0) for i in cols]
    # First: headers wrapped between words (and after - or _), no narrower than their cells, in the
    # normal box, then in the compact one.
    wrapped = [
        h if i in ids or len(h) <= cell_w[i] else _wrap_header(h, max(cell_w[i], _header_width(h)))
        for i, h in enumerate(headers)
    ]
    if wrapped != headers:
        for tight in (False, True):
            trial = _copy(table, cols, wrapped, table.title, compact=tight)
            if _width(console, trial) <= width:
                return [trial]
    short, legend = _abbreviate(headers, cell_w, [i in ids for i in cols])
    out: list[Any] = []
    shortened = _copy(table, cols, short, table.title)
    compact = _copy(table, cols, short, table.title, compact=True)
    if _width(console, shortened) <= width:
        out = [shortened]
    elif _width(console, compact) <= width:
        out = [compact]
    else:
        # Split the other columns into parts that fit, each with the identifier columns; headers wrapped,
        # not abbreviated.
        legend = []
        rest = [i for i in cols if i not in ids]

        def fits(part: list[int]) -> bool:
            chosen = sorted(ids + part)
            return _width(console, _copy(table, chosen, [wrapped[j] for j in chosen], None, True)) <= width

        parts: list[list[int]] = []
        current: list[int] = []
        for i in rest:
            if current and not fits(current + [i]):
                parts.append(current)
                current = [i]
            else:
                current.append(i)
        if current:
            parts.append(current)
        if len(rest) >= 2 and any(len(p) == 1 for p in parts):
            # A part with one column: spread the columns evenly over as many parts (at least two columns
            # each); rich wraps a part that is then a little too wide rather than leave a lone column.
            parts = _balanced(rest, min(len(parts), len(rest) // 2))
        title = _plain(table.title or "")
        for k, part in enumerate(parts):
            chosen = sorted(ids + part)
            label = f"{title} (part {k + 1} of {len(parts)})" if title else f"part {k + 1} of {len(parts)}"
            out.append(_copy(table, chosen, [wrapped[j] for j in chosen], Text(label), compact=True))
    if legend:
        out.append(Text("legend: " + "; ".join(legend), style="dim"))
    return out


def _csv(title: str, headers: list[str], rows: list[list[str]]) -> str:
    buf = io.StringIO()
    if title:
        buf.write(f"# {title}\n")
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([spreadsheet_cell(h) for h in headers])  # --format csv is for spreadsheets too
    writer.writerows([spreadsheet_cell(c) for c in row] for row in rows)
    return buf.getvalue()


def _markdown(title: str, headers: list[str], rows: list[list[str]]) -> str:
    def cell(s: str) -> str:
        return s.replace("|", "\\|").replace("\n", " ")

    lines = [f"**{cell(title)}**", ""] if title else []
    lines.append("| " + " | ".join(cell(h) for h in headers) + " |")
    lines.append("| " + " | ".join("---" for _ in headers) + " |")
    lines += ["| " + " | ".join(cell(v) for v in r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def _printable_object(obj: Any) -> Any:
    """A line to print with its control characters escaped (tables: :class:`DataTable` does it per cell)."""
    if isinstance(obj, str):
        return printable(obj)
    return _printable_text(obj) if isinstance(obj, Text) else obj


class TableConsole(Console):
    """A rich console that renders tables in the chosen ``--format`` (module docstring).

    Emoji codes are not replaced (``emoji=False`` unless asked): rich would print the model
    ``ollama:cat:7b`` as ``ollama🐱7b`` and the benchmark ``set:100:`` as ``set💯``.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("emoji", False)
        super().__init__(*args, **kwargs)

    def print(self, *objects: Any, **kwargs: Any) -> None:
        objects = tuple(_printable_object(o) for o in objects)
        fmt = _FORMAT.get()
        if fmt == "table":
            expanded: list[Any] = []
            for obj in objects:
                expanded += fit_tables(self, obj) if isinstance(obj, Table) else [obj]
            if len(expanded) > len(objects):
                for obj in expanded:
                    super().print(obj, **kwargs)
                return
            super().print(*expanded, **kwargs)
            return
        others: list[Any] = []
        for obj in objects:
            if not isinstance(obj, Table):
                others.append(obj)
                continue
            title, headers, rows = plain_table(obj)
            if fmt == "json":
                collected = _COLLECTED.get()
                if collected is not None:
                    collected.append({"title": title, "columns": headers, "rows": rows})
                continue
            text = _csv(title, headers, rows) if fmt == "csv" else _markdown(title, headers, rows)
            self.file.write(text + "\n")  # a blank line between tables
            self.file.flush()
        if not others:
            return
        text = " ".join(_plain(o) if isinstance(o, str | Text) else str(o) for o in others)
        if fmt == "markdown" and not self.stderr:
            self.file.write(text + "\n")
        else:
            sys.stderr.write(text + "\n")

    def warn(self, message: str) -> bool:
        """Keep a warning for the JSON object of ``--format json``; returns whether it was kept."""
        kept = _WARNINGS.get()
        if kept is None or _FORMAT.get() != "json":
            return False
        kept.append(message)
        return True


def flush_json(stream: Any = None) -> None:
    """Print the object of ``--format json`` (the tables and warnings collected), once."""
    collected = _COLLECTED.get()
    if _FORMAT.get() != "json" or collected is None:
        return
    out = stream if stream is not None else sys.stdout
    out.write(json.dumps({"tables": collected, "warnings": _WARNINGS.get() or []}, indent=2) + "\n")
    out.flush()
    _COLLECTED.set(None)
