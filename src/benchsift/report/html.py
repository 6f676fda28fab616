"""``index.html``: one self-contained page that reads an output folder back and shows what is in it.

:func:`collect_report` walks a folder written by benchsift (a command's ``--out DIR``, a suite directory or
the demo) and gathers one :class:`ReportSection` per analysis: the folder itself for files at its top level,
and each sub-folder (with everything below it). For each section it reads

* what was run: ``manifest.json`` of the folder, the demo's ``summary.json`` entry of the section
  (``"run"``: command, parameters, input and its fingerprint, data sizes) or a suite's ``suite.json``;
* the answer: a few sentences and the numbers that matter, from the result files benchsift knows
  (:mod:`benchsift.report.answers`; a new command registers its own summariser there);
* the parameters and provenance (the scalar entries of the summary or of the JSON results), folded away;
* every table, every row: each CSV file (up to :data:`MAX_TABLE_BYTES`; a larger one is linked) and each
  list of flat records inside a JSON result that is not also written as a CSV file of the same name beside
  it. The rows travel in the page column by column, a column of repeated values as its distinct values and
  one index per row (:func:`table_data`); the page's script decodes them, sorts, filters and pages in the
  browser, over all rows;
* every figure: each SVG file as an image (``<img src="data:image/svg+xml;base64,...">``, never inlined as
  markup: an SVG shown as an image runs no script and loads nothing, whoever wrote it), with the caption
  stored in its metadata by :func:`benchsift.report.figures.save_figure`;
* notes and warnings: the ``notes`` and ``warnings`` lists of the JSON results;
* links to every raw file, with its size: relative, led by ``./`` and percent-encoded per path segment
  (:func:`file_href`), so that no folder name can read as a ``javascript:`` URL, a query or a fragment.

Cells are shown as written, except in numeric result columns (every cell a number, and the column is not
one naming things: :data:`ID_COLUMNS`), where long decimals are shortened to 4 significant digits and empty
or NaN cells read ``n/a``. Names that hold right-to-left letters or bidi control characters are isolated
(``<bdi>``) wherever the page puts them into a sentence, so that they cannot reorder the text around them.

:func:`render_report` fills the Jinja2 template ``templates/report.html.j2`` (package data) and
:func:`write_report` writes ``DIR/index.html`` atomically. The page loads nothing from the network: styles
and the table-sorting script are inline, figures are ``data:`` images, links are relative. It carries no
date, so the same folder gives the same bytes.

Only files benchsift wrote are read: a file counts when the manifest of its folder
(:data:`benchsift._fileio.MANIFEST`) lists it unchanged, so a user's own CSV files in a working folder stay
off the page. Reading stays inside the folder: every path is resolved (symlinks followed) and skipped, with
a warning, when it lands outside. An ``index.html`` that benchsift did not write is never overwritten.

Item views (:mod:`benchsift.report.items`): with a panel (``panel=``, or the panels benchsift wrote inside
the folder, as the demo does) every item named in a table links to a view of it: question, choices, key,
the image when ``images`` is given, and how the models scored it. A table's items link only to the panel its
results were computed on: when the files of its folder (or its section's entry in the demo's
``summary.json``) record the panel's fingerprint (``fingerprint_sha256``, of
:func:`benchsift.panel.fingerprint.panel_fingerprint`), the views come from the panel of that
fingerprint (``panel=``, a panel inside the folder, or one of those less the models a suite held out); when
none has it, the table's items are not linked and its section says so in one line. A table with no recorded
fingerprint links to ``panel=`` when given, else to the one panel in its own section's folder or at the top
of the folder (none when there are several). A page holds at most
:data:`benchsift.report.items.MAX_ITEM_VIEWS` views; a table whose items were cut says how many have one.
"""

from __future__ import annotations

import base64
import csv
import html
import json
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from benchsift._fileio import _owned, _read_manifest, atomic_path, from_spreadsheet, open_regular
from benchsift._inputs import existing_dir
from benchsift._jsonutil import loads_bounded
from benchsift.errors import InputError
from benchsift.report.answers import Answer, SectionFiles, section_answers

if TYPE_CHECKING:
    from benchsift.io.answers import LoggedAnswers
    from benchsift.panel import Panel
    from benchsift.report.items import ItemView

__all__ = [
    "GENERATOR",
    "ID_COLUMNS",
    "MAX_TABLE_BYTES",
    "ReportFigure",
    "ReportSection",
    "ReportTable",
    "check_page",
    "collect_report",
    "decode_table_data",
    "file_href",
    "isolate_names",
    "report_contents",
    "report_folder",
    "render_report",
    "table_data",
    "write_report",
]

#: A CSV file larger than this is linked, not shown (a table is on the page whole or not at all; the page
#: stores its columns compactly, see :func:`table_data`). An MMMU-sized long table (168 models x 1,050
#: items, 176,400 rows) is a 7 MB file and fits.
MAX_TABLE_BYTES = 64_000_000
#: Tables with more columns than this (a models x items score matrix) are linked, not shown.
MAX_TABLE_COLUMNS = 60
#: Rows of a table rendered in the HTML itself (the first page; the script pages through the rest).
FIRST_PAGE = 25
#: Parameter entries shown per section.
MAX_HEADLINE = 80
#: Columns holding an item id, and the column naming its benchmark.
ITEM_COLUMNS = ("item", "item_a", "item_b")
#: Columns that name things (models, items, benchmarks, categories, ...): their cells are shown exactly as
#: written, never shortened as numbers (a model named ``3.14159265358979``, an item ``nan``). So are the
#: columns ``model_*``, ``item_*``, ``benchmark_*``, ``category_*`` and ``*_id``, and every column holding a
#: cell that is not a number.
ID_COLUMNS = frozenset(
    {
        "model", "item", "benchmark", "category", "categories", "section", "name", "family", "condition",
        "domain", "selector", "method", "estimator", "kind", "axis", "least_correlated_axis", "duplicate_of",
        "dif_group", "partition", "subject", "split", "label", "question", "answer", "key", "source", "id",
    }
)  # fmt: skip
_ID_PATTERN = re.compile(r"(?:model|item|benchmark|category)(?:_\w+)?|\w*_id")
#: The ``<meta name="generator">`` content that marks an ``index.html`` as written by benchsift.
GENERATOR = "benchsift report"
_RUN_FILES = ("manifest.json", "suite.json")
_SKIP = {"index.html"}
_TEMPLATES = Path(__file__).parent / "templates"


@dataclass
class ReportTable:
    """One table of the page: column names, rows of cells (strings), where it came from."""

    name: str
    columns: list[str]
    rows: list[list[str]]
    source: str
    total_rows: int
    #: ``(item column, benchmark column)`` index pairs: cells of the item column link to the item view.
    item_cols: list[tuple[int, int]] = field(default_factory=list)
    #: The page's panel (its number) whose item views the item cells link to; None: not linked.
    panel: int | None = None
    #: One line on the item views of this table when some of its items have none (the page's cap).
    item_note: str = ""


@dataclass
class ReportFigure:
    """One figure: its SVG file as a ``data:`` URI (shown as an image), its caption and title (from the
    file's metadata) and the files it was read from."""

    name: str
    src: str
    caption: str
    title: str
    files: list[str]


@dataclass
class ReportSection:
    """Everything the page shows about one analysis (one folder of the output)."""

    key: str
    title: str
    run: dict[str, Any] = field(default_factory=dict)
    headline: list[tuple[str, str]] = field(default_factory=list)
    tables: list[ReportTable] = field(default_factory=list)
    figures: list[ReportFigure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    files: list[tuple[str, str]] = field(default_factory=list)
    answers: list[Answer] = field(default_factory=list)
    #: Tables not shown (too many columns): ``(file, why)``.
    skipped: list[tuple[str, str]] = field(default_factory=list)
    #: The element id of the section on the page (``sec-<key>``, made safe and unique).
    anchor: str = ""
    #: Why the items of some tables are not linked to item views (one line each).
    item_notes: list[str] = field(default_factory=list)


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root)
    except ValueError:
        return False
    return True


def _size(n: int) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n = n / 1000  # type: ignore[assignment]
    return f"{n} B"  # pragma: no cover


def _cell(v: Any) -> str:
    if v is None:
        return "n/a"
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, float):
        if v != v:
            return "n/a"
        return f"{v:.4g}" if abs(v) < 1e4 else f"{v:,.0f}"
    if isinstance(v, int):
        return f"{v:,}" if abs(v) >= 10_000 else str(v)
    if isinstance(v, (list, tuple)):
        if all(not isinstance(x, (dict, list)) for x in v) and len(v) <= 12:
            return ", ".join(_cell(x) for x in v)
        return f"[{len(v)} values]"
    if isinstance(v, dict):
        return f"{{{len(v)} entries}}"
    return str(v)


def _id_cell(v: Any) -> str:
    """A cell of a column that names things: as written (``str``), never shortened as a number."""
    if v is None:
        return "n/a"
    if isinstance(v, bool):
        return str(v).lower()
    return str(v)


def _is_id_column(name: str) -> bool:
    low = name.lower()
    return low in ID_COLUMNS or _ID_PATTERN.fullmatch(low) is not None


def _scalar(v: Any) -> bool:
    return v is None or isinstance(v, (str, int, float, bool))


def _flatten(obj: dict[str, Any], prefix: str = "", depth: int = 2) -> list[tuple[str, str]]:
    """Scalar entries of a JSON object as ``(dotted key, text)``, nested objects up to ``depth`` levels."""
    out: list[tuple[str, str]] = []
    for k, v in obj.items():
        key = f"{prefix}{k}"
        if k in ("files", "notes", "warnings", "run", "seconds"):
            continue
        if isinstance(v, dict) and depth > 1:
            out += _flatten(v, key + ".", depth - 1)
        elif _scalar(v) or (isinstance(v, list) and all(_scalar(x) for x in v) and len(v) <= 12):
            out.append((key, _cell(v)))
    return out


def _records(obj: Any) -> list[tuple[str, list[dict[str, Any]]]]:
    """Top-level lists of flat records in a JSON object (each becomes a table)."""
    found: list[tuple[str, list[dict[str, Any]]]] = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            if (
                isinstance(v, list)
                and v
                and all(isinstance(r, dict) and all(_scalar(x) for x in r.values()) for r in v)
            ):
                found.append((str(k), v))
    return found


def _item_cols(columns: list[str]) -> list[tuple[int, int]]:
    if "benchmark" not in columns:
        return []
    b = columns.index("benchmark")
    return [(columns.index(c), b) for c in ITEM_COLUMNS if c in columns]


def _table_from_records(name: str, records: list[dict[str, Any]], source: str) -> ReportTable:
    columns: list[str] = []
    for r in records:
        for k in r:
            if k not in columns:
                columns.append(str(k))
    shown = [_id_cell if _is_id_column(c) else _cell for c in columns]
    rows = [[f(r.get(c)) for c, f in zip(columns, shown, strict=True)] for r in records]
    return ReportTable(name, columns, rows, source, len(records), _item_cols(columns))


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _read_csv(path: Path, rel: str) -> ReportTable | None:
    """The table of a CSV file: cells as written (empty as ``n/a``), except in numeric result columns
    (:func:`_numeric_columns`), whose long decimals are shortened (:func:`_number_text`)."""
    with path.open(newline="", encoding="utf-8", errors="replace") as fh:
        reader = csv.reader(fh)
        first = next(reader, None)
        if first is None:
            return None
        header = [from_spreadsheet(h) for h in first]  # benchsift's own CSVs: formula cells shown as written
        raw = [[from_spreadsheet(c) for c in row] for row in reader]
    numeric = _numeric_columns(header, raw)
    for row in raw:  # in place: a table of 64 MB is held once
        for c, v in enumerate(row):
            row[c] = _number_text(v) if c < len(numeric) and numeric[c] else (v or "n/a")
    return ReportTable(rel, header, raw, rel, len(raw), _item_cols(header))


def _numeric_columns(header: list[str], rows: list[list[str]]) -> list[bool]:
    """Per column: whether it holds numeric results (shown shortened): not a column that names things
    (:data:`ID_COLUMNS`) and every non-empty cell a number."""
    out = []
    for c, name in enumerate(header):
        out.append(
            not _is_id_column(name) and all(_is_number(r[c]) for r in rows if c < len(r) and r[c] != "")
        )
    return out


def _csv_columns(path: Path) -> int:
    with path.open(newline="", encoding="utf-8", errors="replace") as fh:
        return len(next(csv.reader(fh), []))


def _number_text(text: str) -> str:
    """A cell of a numeric result column as shown: numbers with many digits shortened to 4 significant
    ones, empty and NaN as ``n/a``."""
    if text == "" or text.lower() == "nan":
        return "n/a"
    try:
        v = float(text)
    except ValueError:
        return text
    if "." in text and len(text) > 7:
        return f"{v:.4g}"
    return text


def _svg_image(data: bytes) -> tuple[str, str, str]:
    """An SVG file as the page shows it: ``(data: URI, title, description)``, the last two from the metadata
    :func:`benchsift.report.figures.save_figure` stores. The file goes into the page only as an image (an
    ``<img>`` source): a browser runs no script of an SVG shown as an image and loads nothing it names, so a
    file that a forged manifest claims as benchsift's cannot act on the page."""
    text = data.decode("utf-8", errors="replace")
    uri = "data:image/svg+xml;base64," + base64.b64encode(data).decode("ascii")
    return uri, html.unescape(_dc(text, "title")), html.unescape(_dc(text, "description"))


def _dc(svg: str, tag: str) -> str:
    meta = re.search(r"<metadata>(.*?)</metadata>", svg, flags=re.S)
    if not meta:
        return ""
    # dc:title also names the tool inside dc:creator; the figure's own title sits directly under the Work.
    creator = re.sub(r"<dc:creator>.*?</dc:creator>", "", meta.group(1), flags=re.S)
    found = re.search(rf"<dc:{tag}>(.*?)</dc:{tag}>", creator, flags=re.S)
    return found.group(1).strip() if found else ""


def _load_json(path: Path, warnings: list[str], rel: str) -> Any:
    try:
        return loads_bounded(path.read_bytes(), str(path))
    except (OSError, ValueError) as exc:
        warnings.append(f"{rel}: not readable as JSON ({exc})")
        return None


def _section_title(key: str) -> str:
    """The title of a section: its folder's name as written."""
    return key if key.strip() else "results"


_SAFE_ID = re.compile(r"[A-Za-z0-9_.-]+")


def _section_anchor(key: str, used: set[str]) -> str:
    """The element id of a section: ``sec-<key>`` when the key is made of letters, digits, ``_``, ``.`` and
    ``-`` only, else the key with every other run of characters as ``_``; unique on the page."""
    safe = key if _SAFE_ID.fullmatch(key) else re.sub(r"[^A-Za-z0-9_.-]+", "_", key).strip("_") or "section"
    anchor, n = f"sec-{safe}", 1
    while anchor in used:
        n += 1
        anchor = f"sec-{safe}-{n}"
    used.add(anchor)
    return anchor


def file_href(rel: str) -> str:
    """The link to the file ``rel`` (a ``/``-separated path inside the folder): led by ``./``, each segment
    percent-encoded, so that a folder named ``javascript:...`` stays a relative path and ``#``, ``?`` and
    ``%`` in a name stay part of it."""
    return "./" + "/".join(quote(part, safe="") for part in rel.split("/"))


#: Bidi control characters (ALM, LRM, RLM, LRE..RLO, LRI..PDI) and right-to-left letters (Hebrew, Arabic,
#: Syriac, Thaana, NKo, ..., their presentation forms).
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_RTL = "\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefe\U00010800-\U00010fff\U0001e800-\U0001efff"
_NEEDS_ISOLATE = re.compile(f"[{_BIDI}{_RTL}]")
_WORD = re.compile(r"\S+")
_LEAD, _TRAIL = "([{\"'", ".,;:!?)]}\"'"


def _isolated_spans(text: str) -> list[tuple[int, int]]:
    """The runs of ``text`` to isolate: consecutive words (on one line) holding a right-to-left letter or a
    bidi control character, without the ASCII punctuation at their edges."""
    spans: list[list[int]] = []
    last = False
    for m in _WORD.finditer(text):
        flagged = _NEEDS_ISOLATE.search(m.group()) is not None
        if flagged:
            if last and "\n" not in text[spans[-1][1] : m.start()]:
                spans[-1][1] = m.end()
            else:
                spans.append([m.start(), m.end()])
        last = flagged
    out = []
    for s, e in spans:
        while text[s] in _LEAD:
            s += 1
        while text[e - 1] in _TRAIL:
            e -= 1
        out.append((s, e))
    return out


def _balanced(piece: str) -> str:
    """``piece`` with an isolate (LRI, RLI, FSI) it opens closed at its end and a PDI it holds without an
    opening one left out: inside an isolate, a stray PDI would end the isolate early."""
    if not any(ch in piece for ch in "\u2066\u2067\u2068\u2069"):
        return piece
    depth, out = 0, []
    for ch in piece:
        if ch in "\u2066\u2067\u2068":
            depth += 1
        elif ch == "\u2069":
            if depth == 0:
                continue
            depth -= 1
        out.append(ch)
    return "".join(out) + "\u2069" * depth


def isolate_names(text: Any, plain: bool = False) -> Any:
    """``text`` HTML-escaped, with every run of words holding right-to-left letters or bidi control
    characters (a name such as ``نموذج\u202eevil\u202c``) in ``<bdi>``, so that it cannot reorder the
    sentence around it (returned as :class:`markupsafe.Markup`). ``plain=True`` (text that cannot hold
    markup: the page's ``<title>``): the runs between the characters FSI and PDI, as a plain string."""
    from markupsafe import Markup, escape

    text = "" if text is None else str(text)
    spans = _isolated_spans(text) if _NEEDS_ISOLATE.search(text) else []
    if plain:
        pieces = [text[: spans[0][0]] if spans else text]
    else:
        pieces = [escape(text[: spans[0][0]] if spans else text)]
    for k, (s, e) in enumerate(spans):
        tail = text[e : spans[k + 1][0] if k + 1 < len(spans) else len(text)]
        inner = _balanced(text[s:e])
        if plain:
            pieces += ["\u2068" + inner + "\u2069", tail]
        else:
            pieces += [Markup("<bdi>") + escape(inner) + Markup("</bdi>"), escape(tail)]
    return "".join(pieces) if plain else Markup("").join(pieces)


def _benchsift_files(root: Path, page: dict[str, Any], root_name: str) -> list[Path]:
    """The files under ``root`` that benchsift wrote (listed unchanged in their folder's manifest), in
    sorted order; hidden files and files pointing outside ``root`` are left out (the latter with a page
    warning)."""
    manifests: dict[Path, dict[str, dict[str, Any]]] = {}
    out: list[Path] = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if any(part.startswith(".") for part in rel.parts):
            continue  # temporary and hidden files, the manifests themselves
        if not _inside(path, root):
            page["warnings"].append(f"{rel}: skipped (it points outside {root_name})")
            continue
        if not path.is_file() or rel.as_posix() in _SKIP:
            continue
        man = manifests.setdefault(path.parent, _read_manifest(path.parent))
        if not _owned(path, man):
            page["not_benchsift"] = page.get("not_benchsift", 0) + 1
            continue
        out.append(path)
    return out


def collect_report(
    directory: str | Path,
    panel: Panel | None = None,
    images: str | Path | None = None,
    answers: str | Path | LoggedAnswers | None = None,
    answer_column: str = "answer",
) -> tuple[dict[str, Any], list[ReportSection]]:
    """Read an output folder into the page's sections.

    Returns ``(page, sections)``: ``page`` holds the folder name, the top-level run description (the demo's
    ``summary.json`` or the folder's ``manifest.json``), the warnings about files that were skipped, the
    number of files left out because benchsift did not write them (``not_benchsift``), the item views
    (``items``: one per item named in a table, from the panel that table was computed on, when that panel
    is given or was written into the folder; module docstring), the names of the panels they come from
    (``panels``) and how many items the tables name that the panels know (``items_named``: more than
    ``len(items)`` when the page's cap cut the views).
    ``answers``: the models' logged answers (a long table read with :func:`benchsift.io.read_answers`,
    column ``answer_column``, or a :class:`benchsift.io.answers.LoggedAnswers` aligned with ``panel``):
    each item
    view then shows what the models answered.

    Raises
    ------
    InputError
        When ``directory`` is not an existing folder, ``images`` is given and is not one, or ``answers`` is
        given without a panel to align them with.
    """
    root_in = existing_dir(directory, "an existing output folder, written by a benchsift command")
    if images is not None:
        existing_dir(images, "--images: an existing folder, the root of the item images")
    root = root_in.resolve()
    name = root_in.name or root.name or str(root_in)
    page: dict[str, Any] = {"name": name, "run": {}, "warnings": [], "not_benchsift": 0}
    page.update(items=[], panels=[], items_named=0)
    files = _benchsift_files(root, page, str(root_in))
    summary_sections = _read_run_files(root, files, page)
    groups: dict[str, list[Path]] = {"": []}
    for path in files:
        rel = path.relative_to(root)
        if rel.as_posix() in ("summary.json", "manifest.json"):
            continue
        key = rel.parts[0] if len(rel.parts) > 1 else ""
        groups.setdefault(key, []).append(path)

    order = [k for k in summary_sections if k in groups] + [k for k in groups if k not in summary_sections]
    sections: list[ReportSection] = []
    recorded: list[tuple[ReportSection, dict[str, Any], str | None]] = []
    anchors: set[str] = set()
    for key in order:
        group = groups[key]
        if not group and key not in summary_sections:
            continue
        sec = ReportSection(key=key or "top", title=_section_title(key) if key else name)
        sec.anchor = _section_anchor(sec.key, anchors)
        info = summary_sections.get(key)
        summary_entry: dict[str, Any] = info if isinstance(info, dict) else {}
        if summary_entry:
            sec.run = dict(summary_entry.get("run") or {})
            sec.headline = _flatten(summary_entry)[:MAX_HEADLINE]
            sec.notes += [str(n) for n in summary_entry.get("notes") or []]
            sec.warnings += [str(w) for w in summary_entry.get("warnings") or []]
        docs = _fill(sec, group, root, page)
        sec.answers = section_answers(
            SectionFiles(sec.key, docs, _csvs(group, root), summary_entry, str(root_in))
        )
        sections.append(sec)
        recorded.append((sec, docs, _recorded_fingerprint(summary_entry)))
    named = any(t.item_cols for s in sections for t in s.tables)
    panels = [_PagePanel("the panel given (--panel)", panel, given=True)] if panel is not None else []
    if named or (answers is not None and panel is None):  # no item named anywhere: no panel read
        panels += _panels_inside(files, root, page)
    logged = _logged_answers(answers, answer_column, panels, page) if answers is not None else None
    if not named or not panels:
        return page, sections
    for sec, docs, summary_fp in recorded:
        _link_tables(sec, docs, summary_fp, panels)
    _item_views(page, sections, panels, Path(images) if images is not None else None, logged)
    return page, sections


def _logged_answers(
    answers: str | Path | LoggedAnswers, column: str, panels: list[_PagePanel], page: dict[str, Any]
) -> LoggedAnswers:
    """The models' logged answers, aligned with the panel given (else the one panel inside the folder),
    which is marked as the one whose item views show them."""
    from benchsift.io.answers import LoggedAnswers, read_answers

    ref = panels[0] if panels and (panels[0].given or len(panels) == 1) else None
    if ref is None:
        raise InputError("--answers: needs the panel the answers belong to (--panel)")
    ref.answered = True
    logged = (
        answers if isinstance(answers, LoggedAnswers) else read_answers(answers, ref.panel, column=column)
    )
    page["warnings"] += list(logged.notes)
    return logged


def _read_run_files(root: Path, files: list[Path], page: dict[str, Any]) -> dict[str, Any]:
    """Read the demo's ``summary.json`` and the folder's ``manifest.json`` into ``page["run"]``; return the
    summary's sections (``{}`` without one)."""
    rels = {p.relative_to(root).as_posix() for p in files}
    summary_sections: dict[str, Any] = {}
    if "summary.json" in rels:
        summary = _load_json(root / "summary.json", page["warnings"], "summary.json")
        if isinstance(summary, dict):
            summary_sections = dict(summary.get("sections") or {})
            page["run"] = {k: v for k, v in summary.items() if k != "sections" and _scalar(v)}
            page["run"].update(summary.get("run") or {})
    if "manifest.json" in rels:
        data = _load_json(root / "manifest.json", page["warnings"], "manifest.json")
        if isinstance(data, dict):
            page["run"].update({k: v for k, v in data.items() if k not in ("files", "outputs")})
    return summary_sections


def _csvs(group: list[Path], root: Path) -> dict[str, Path]:
    return {p.relative_to(root).as_posix(): p for p in group if p.suffix.lower() == ".csv"}


@dataclass
class _PagePanel:
    """A panel the page's item views can come from: how the page names it, the panel, whether the caller
    gave it (``--panel``), its fingerprint (computed once, when a table's recorded one is compared)."""

    label: str
    panel: Panel
    given: bool = False
    derived: bool = False
    #: The models' logged answers (``answers=``) are aligned with this panel.
    answered: bool = False
    fp: str | None = None
    #: The section (top-level folder) holding the panel's file; "" for the folder itself or --panel.
    section: str = ""

    def fingerprint(self) -> str:
        if self.fp is None:
            from benchsift.panel.fingerprint import panel_fingerprint

            self.fp = panel_fingerprint(self.panel)
        return self.fp


def _panels_inside(files: list[Path], root: Path, page: dict[str, Any]) -> list[_PagePanel]:
    """The panels benchsift wrote inside the folder (the demo's ``panel/panel.parquet``, ...)."""
    from benchsift.panel import Panel

    found = []
    for path in files:
        if path.suffix != ".parquet":
            continue
        rel = path.relative_to(root).as_posix()
        try:
            found.append(_PagePanel(rel, Panel.load(path), section=rel.split("/")[0] if "/" in rel else ""))
        except Exception as exc:  # a parquet file that is not a panel: no item views from it, said once
            page["warnings"].append(f"{rel}: not read as a panel ({exc}); no item views from it")
    return found


_FINGERPRINT = re.compile(r"[0-9a-f]{64}")


def _recorded_fingerprint(doc: Any) -> str | None:
    """The panel fingerprint a result file records: ``run.fingerprint_sha256`` (the demo's sections),
    ``input.fingerprint_sha256`` (a suite's ``suite.json``) or ``fingerprint_sha256``."""
    if not isinstance(doc, dict):
        return None
    for holder in (doc.get("run"), doc.get("input"), doc):
        fp = holder.get("fingerprint_sha256") if isinstance(holder, dict) else None
        if isinstance(fp, str) and _FINGERPRINT.fullmatch(fp):
            return fp
    return None


def _held_out(doc: Any) -> set[str]:
    """The models a suite's ``holdout.json`` held out of its build panel."""
    models = doc.get("models") if isinstance(doc, dict) else None
    if not isinstance(models, list):
        return set()
    return {str(m["model"]) for m in models if isinstance(m, dict) and isinstance(m.get("model"), str)}


def _link_tables(
    sec: ReportSection, docs: dict[str, Any], summary_fp: str | None, panels: list[_PagePanel]
) -> None:
    """Set the panel each table of ``sec`` that names items links to, from the fingerprint its folder's
    files record (the nearest folder up that records one) or the section's ``summary.json`` entry; a table
    left unlinked adds its reason to ``sec.item_notes``."""
    by_dir: dict[str, set[str]] = {}
    held: dict[str, set[str]] = {}
    for rel, doc in docs.items():
        folder = posixpath.dirname(rel)
        fp = _recorded_fingerprint(doc)
        if fp is not None:
            by_dir.setdefault(folder, set()).add(fp)
        if posixpath.basename(rel) == "holdout.json" and _held_out(doc):
            held[folder] = _held_out(doc)
    unlinked: dict[str, list[str]] = {}
    for t in sec.tables:
        if not t.item_cols:
            continue
        folder = posixpath.dirname(t.source)
        fps = _nearest(folder, by_dir) or ({summary_fp} if summary_fp else set())
        where = t.source.split("/")[0] if "/" in t.source else ""
        t.panel, why = _table_panel(fps, _nearest(folder, held), panels, where)
        if why:
            unlinked.setdefault(why, []).append(t.source)
    for why, sources in unlinked.items():
        sec.item_notes.append(f"Items in {', '.join(dict.fromkeys(sources))} have no item view: {why}.")


def _nearest(folder: str, found: dict[str, set[str]]) -> set[str]:
    """What ``found`` holds for ``folder`` or the nearest folder above it (empty when none does)."""
    while folder not in found:
        if not folder:
            return set()
        folder = posixpath.dirname(folder)
    return found[folder]


def _table_panel(
    fps: set[str], held: set[str], panels: list[_PagePanel], section: str
) -> tuple[int | None, str]:
    """``(panel number, "")`` for a table of the section ``section`` whose files record the panel
    fingerprints ``fps`` (``held``: the models a suite in its folder held out), or ``(None, why not)``.
    Without a fingerprint: the panel given (``--panel``), else the one panel in the table's own section or
    at the top of the folder."""
    base = [k for k, p in enumerate(panels) if not p.derived]
    if not fps:
        given = [k for k in base if panels[k].given]
        near = [k for k in base if panels[k].section in ("", section)]
        if given or len(near) == 1:
            return (given or near)[0], ""
        return None, (
            "no fingerprint of the panel the results were computed on is recorded, and "
            + ("no panel is beside them" if not near else f"{len(near)} panels are beside them")
            + " (give that panel with --panel)"
        )
    if len(fps) > 1:
        return None, "the files beside them record the fingerprints of several panels"
    (fp,) = fps
    for k, p in enumerate(panels):
        if p.fingerprint() == fp:
            return k, ""
    if held:
        for k in base:
            keep = ~panels[k].panel.models["model"].astype(str).isin(held).to_numpy()
            if keep.all() or not keep.any():
                continue
            sub = _PagePanel(
                f"{panels[k].label}, less the {len(held)} models the suite held out",
                panels[k].panel.subset(models=keep),
                derived=True,
            )
            if sub.fingerprint() == fp:
                panels.append(sub)
                return len(panels) - 1, ""
    known = ", ".join(f"{panels[k].label} ({panels[k].fingerprint()[:12]}...)" for k in base)
    return None, (
        f"the results were computed on data with fingerprint {fp[:12]}..., and no panel on this page has "
        f"it (a view would show another panel's data; panels here: {known})"
    )


def _item_views(
    page: dict[str, Any],
    sections: list[ReportSection],
    panels: list[_PagePanel],
    images: Path | None,
    answers: LoggedAnswers | None,
) -> None:
    """The item views of every item named in an item column of a linked table, each from that table's
    panel (at most :data:`~benchsift.report.items.MAX_ITEM_VIEWS` on the page, in page order), into
    ``page["items"]``; a table some of whose items got no view says so (``item_note``)."""
    from benchsift.report.items import MAX_ITEM_VIEWS, item_views

    wanted: dict[int, list[tuple[str, str]]] = {}
    for sec in sections:
        for t in sec.tables:
            if t.panel is not None:
                wanted.setdefault(t.panel, []).extend(_named(t))
    views: list[ItemView] = []
    known: dict[int, set[tuple[str, str]]] = {}
    for k, keys in wanted.items():
        ref = panels[k]
        known[k] = set(keys) & set(ref.panel.item_keys)
        page["items_named"] += len(known[k])
        if len(views) >= MAX_ITEM_VIEWS:
            continue
        got = item_views(
            ref.panel, keys, images, answers if ref.answered else None,
            limit=MAX_ITEM_VIEWS - len(views), start=len(views),
        )  # fmt: skip
        for v in got.values():
            v.panel, v.source = k, ref.label
        views += got.values()
    viewed = {(v.panel, v.benchmark, v.item) for v in views}
    for sec in sections:
        for t in sec.tables:
            if t.panel is None:
                continue
            named = set(_named(t)) & known[t.panel]
            n = sum((t.panel, b, i) in viewed for b, i in named)
            if n < len(named):
                t.item_note = (
                    f"{n:,} of the {len(named):,} items in this table have an item view (a page holds at "
                    f"most {MAX_ITEM_VIEWS:,}); the rest are in {t.source}."
                )
    page["items"] = views
    page["panels"] = [p.label for p in panels]


def _named(t: ReportTable) -> list[tuple[str, str]]:
    """The ``(benchmark, item)`` pairs the item columns of ``t`` name, in page order."""
    return [(r[b], r[c]) for c, b in t.item_cols for r in t.rows if c < len(r) and b < len(r)]


def _fill(sec: ReportSection, files: list[Path], root: Path, page: dict[str, Any]) -> dict[str, Any]:
    """Add the files of one section to ``sec``; return its JSON documents by relative path."""
    docs: dict[str, Any] = {}
    csv_stems = {(p.parent, p.stem) for p in files if p.suffix.lower() == ".csv"}
    for path in files:
        rel = path.relative_to(root).as_posix()
        sec.files.append((rel, _size(path.stat().st_size)))
        suffix = path.suffix.lower()
        if suffix == ".svg":
            src, title, caption = _svg_image(path.read_bytes())
            links = [rel] + [
                p.relative_to(root).as_posix()
                for p in (path.with_suffix(".png"), path.with_suffix(".pdf"))
                if p.is_file()
            ]
            sec.figures.append(ReportFigure(path.stem, src, caption, title or path.stem, links))
        elif suffix == ".csv":
            n_cols = _csv_columns(path)
            size = path.stat().st_size
            if size > MAX_TABLE_BYTES:
                sec.skipped.append((rel, f"{_size(size)}, more than a page holds: open the file"))
                continue
            if n_cols > MAX_TABLE_COLUMNS:
                sec.skipped.append((rel, f"{n_cols} columns (a matrix): open the file"))
                continue
            table = _read_csv(path, rel)
            if table is not None:
                sec.tables.append(table)
        elif suffix == ".json":
            data = _load_json(path, sec.warnings, rel)
            if not isinstance(data, dict):
                continue
            docs[rel] = data
            if path.name in _RUN_FILES and not sec.run:
                sec.run = {k: v for k, v in data.items() if _scalar(v) or isinstance(v, dict)}
            sec.notes += [f"{rel}: {n}" for n in data.get("notes") or [] if isinstance(n, str)]
            sec.warnings += [f"{rel}: {w}" for w in data.get("warnings") or [] if isinstance(w, str)]
            for name, records in _records(data):
                if name in ("notes", "warnings"):
                    continue
                if (path.parent, name) in csv_stems:
                    continue  # the same records are written as name.csv beside it: shown once
                sec.tables.append(_table_from_records(f"{rel}: {name}", records, rel))
            if len(sec.headline) < MAX_HEADLINE:
                sec.headline += [(f"{rel}: {k}", v) for k, v in _flatten(data, depth=2)]
                sec.headline = sec.headline[:MAX_HEADLINE]
    return docs


def _run_rows(run: dict[str, Any]) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    for k, v in run.items():
        if isinstance(v, dict):
            rows += [(f"{k}.{a}", _cell(b)) for a, b in _flatten(v, depth=2)] or [(k, "{}")]
        else:
            rows.append((k, _cell(v)))
    return rows


def _json_script(obj: Any) -> str:
    """``obj`` as JSON safe inside a ``<script type="application/json">`` element."""
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def table_data(t: ReportTable) -> dict[str, Any]:
    """The rows of ``t`` as the page stores them: ``{"columns", "n", "cols", "links", "panel"}``, column by
    column.

    A column whose distinct values number at most half its rows (model names, benchmark names, flags,
    verdicts) is ``{"d": distinct values in order of first appearance, "i": one index into them per row}``;
    any other column is the plain list of its cells. ``links``: ``[item column, benchmark column]`` pairs
    whose item cells link to the views of the page's panel number ``panel`` (none when the table is not
    linked). The page's script (``report.js``, ``decodeTable``) turns it back into rows.
    """
    n = len(t.rows)
    cols: list[Any] = []
    for c in range(len(t.columns)):
        values = [r[c] if c < len(r) else "" for r in t.rows]
        codes: dict[str, int] = {}
        index = [codes.setdefault(v, len(codes)) for v in values]
        if n >= 8 and 2 * len(codes) <= n:
            cols.append({"d": list(codes), "i": index})
        else:
            cols.append(values)
    links = [[c, b] for c, b in t.item_cols] if t.panel is not None else []
    return {"columns": t.columns, "n": n, "cols": cols, "links": links, "panel": t.panel}


def decode_table_data(data: dict[str, Any]) -> list[list[str]]:
    """The rows of a :func:`table_data` object (what the page's script does; for tests and tools)."""
    cols = [c if isinstance(c, list) else [c["d"][k] for k in c["i"]] for c in data["cols"]]
    return [[col[i] for col in cols] for i in range(int(data["n"]))]


def _item_key(panel: int | None, benchmark: str, item: str) -> str:
    """The key of an item view in the page's index (``item-index``; ``report.js`` builds the same)."""
    return f"{panel}\x1f{benchmark}\x1f{item}"


def _first_rows(t: ReportTable, index: dict[str, str]) -> list[list[tuple[str, str | None]]]:
    """The first page of ``t`` as ``(text, item view anchor or None)`` cells."""
    links = dict(t.item_cols) if t.panel is not None else {}
    out = []
    for r in t.rows[:FIRST_PAGE]:
        row: list[tuple[str, str | None]] = []
        for c, v in enumerate(r):
            b = links.get(c)
            row.append((v, index.get(_item_key(t.panel, r[b], v)) if b is not None and b < len(r) else None))
        out.append(row)
    return out


def _max_views() -> int:
    from benchsift.report.items import MAX_ITEM_VIEWS

    return MAX_ITEM_VIEWS


def render_report(page: dict[str, Any], sections: list[ReportSection], title: str | None = None) -> str:
    """The HTML text of the page (Jinja2 template ``report.html.j2``, autoescaped; the tables' JSON data
    marked safe). Template filters: ``bdi`` (:func:`isolate_names`), ``href`` (:func:`file_href`),
    ``count`` (an integer with thousands separators)."""
    import jinja2
    from markupsafe import Markup

    from benchsift._version import __version__

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(_TEMPLATES),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["bdi"] = isolate_names
    env.filters["href"] = file_href
    env.filters["count"] = lambda n: f"{int(n):,}"
    template = env.get_template("report.html.j2")
    css = (_TEMPLATES / "report.css").read_text(encoding="utf-8")
    js = (_TEMPLATES / "report.js").read_text(encoding="utf-8")
    items = page.get("items") or []
    index = {_item_key(v.panel, v.benchmark, v.item): v.anchor for v in items}
    rendered = []
    for s in sections:
        tables = []
        for t in s.tables:
            data = table_data(t)
            first = _first_rows(t, index)
            tables.append({"t": t, "data": Markup(_json_script(data)), "first": first})
        rendered.append(
            {
                "s": s,
                "run": _run_rows(s.run),
                "tables": tables,
            }
        )
    title = title or f"benchsift results: {page['name']}"
    return template.render(
        title=title,
        plain_title=isolate_names(title, plain=True),
        generator=f"{GENERATOR} {__version__}",
        page_run=_run_rows(page.get("run") or {}),
        page_warnings=page.get("warnings") or [],
        not_benchsift=page.get("not_benchsift") or 0,
        sections=rendered,
        items=items,
        items_named=max(page.get("items_named") or 0, len(items)),
        n_panels=len({v.panel for v in items}),
        max_views=_max_views(),
        item_index=Markup(_json_script(index)),
        first_page=FIRST_PAGE,
        css=Markup(css),
        js=Markup(js),
    )


def write_report(
    directory: str | Path,
    title: str | None = None,
    *,
    panel: Panel | None = None,
    images: str | Path | None = None,
    answers: str | Path | LoggedAnswers | None = None,
    answer_column: str = "answer",
) -> Path:
    """Write ``directory/index.html`` (atomically) from what the folder holds; return its path.

    ``panel``: the panel the results were computed on (item views of every item a table names);
    ``images``: the root folder of the item images the panel's item metadata names (thumbnails);
    ``answers``: the models' logged answers (:func:`collect_report`), shown in the item views.

    Raises
    ------
    InputError
        When ``directory`` is not a folder, or when it holds an ``index.html`` that benchsift did not write.
    """
    return Path(
        report_folder(
            directory, title, panel=panel, images=images, answers=answers, answer_column=answer_column
        )["report"]
    )


def report_folder(
    directory: str | Path,
    title: str | None = None,
    *,
    panel: Panel | None = None,
    images: str | Path | None = None,
    answers: str | Path | LoggedAnswers | None = None,
    answer_column: str = "answer",
    allow_empty: bool = True,
) -> dict[str, Any]:
    """:func:`write_report`, returning :func:`report_contents` of the page (``benchsift report``).

    ``allow_empty=False`` (``benchsift report``) refuses a folder with no results of a benchsift command (an
    empty folder, or only files benchsift did not write) instead of writing a page of nothing; a command
    writing its own folder's page leaves it True (``prism audit``'s folder has no section of its own)."""
    check_page(directory)
    target = Path(directory) / "index.html"
    page, sections = collect_report(
        directory, panel=panel, images=images, answers=answers, answer_column=answer_column
    )
    if not sections and not allow_empty:  # a page of nothing (an empty folder, or only others' files)
        raise InputError(
            f"{directory}: no results of a benchsift command to report (expected a folder that a command's "
            "--out wrote: compress, audit, validate, estimate, redundancy, compare, prism score, ...)"
        )
    text = render_report(page, sections, title)
    with atomic_path(target) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return report_contents(page, sections, target)


#: Bytes of an existing ``index.html`` read to find benchsift's generator tag (in its first lines)
_HEAD_BYTES = 8000


def check_page(directory: str | Path) -> None:
    """Refuse the folder ``directory`` when it holds an ``index.html`` that benchsift did not write (or
    that is not a regular file), in one :class:`~benchsift.errors.InputError` line, before any work: a
    command that writes other files into the folder before its page calls it first, so that a refusal
    leaves nothing written. A page benchsift wrote is a regular file whose first 2,000 characters hold
    the generator tag. Only a regular file is read (symbolic links followed), and only its first
    :data:`_HEAD_BYTES`: a FIFO, a device (a link to ``/dev/zero``) or a socket is refused without being
    waited on or read (:func:`benchsift._fileio.open_regular`)."""
    target = Path(directory) / "index.html"
    if not target.exists():
        return
    move = "move it away or choose another folder"
    try:
        with open_regular(target, "benchsift's report page") as fh:
            head = fh.read(_HEAD_BYTES).decode("utf-8", errors="replace")[:2000]
    except InputError as err:
        raise InputError(f"{err}; {move}") from None
    if f'<meta name="generator" content="{GENERATOR}' not in head:
        raise InputError(f"{target}: exists and was not written by benchsift; {move}")


def report_contents(page: dict[str, Any], sections: list[ReportSection], path: Path) -> dict[str, Any]:
    """What ``benchsift report --json`` prints of the page ``path``: its path, each section's name, its
    answer sentences and its numbers of figures, tables and files, the number of item views, the number
    of files left out because benchsift did not write them, and every warning."""
    return {
        "report": str(path),
        "sections": [
            {
                "name": s.title,
                "answers": [" ".join(a.sentences) for a in s.answers],
                "figures": len(s.figures),
                "tables": len(s.tables),
                "files": len(s.files),
            }
            for s in sections
        ],
        "items": len(page.get("items") or []),
        "not_benchsift": page.get("not_benchsift") or 0,
        "warnings": [*page["warnings"], *(w for s in sections for w in s.warnings)],
    }
