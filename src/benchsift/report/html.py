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
* every figure: each SVG file, inlined, with the caption stored in its metadata by
  :func:`benchsift.report.figures.save_figure`;
* notes and warnings: the ``notes`` and ``warnings`` lists of the JSON results;
* links to every raw file, with its size.

:func:`render_report` fills the Jinja2 template ``templates/report.html.j2`` (package data) and
:func:`write_report` writes ``DIR/index.html`` atomically. The page loads nothing from the network: styles
and the table-sorting script are inline, figures are inline SVG, links are relative. It carries no date,
so the same folder gives the same bytes.

Only files benchsift wrote are read: a file counts when the manifest of its folder
(:data:`benchsift._fileio.MANIFEST`) lists it unchanged, so a user's own CSV files in a working folder stay
off the page. Reading stays inside the folder: every path is resolved (symlinks followed) and skipped, with
a warning, when it lands outside. An ``index.html`` that benchsift did not write is never overwritten.

Item views (:mod:`benchsift.report.items`): with a panel (``panel=``, or the one benchsift wrote inside the
folder, as the demo does) every item named in a table links to a view of it: question, choices, key, the
image when ``images`` is given, and how the models scored it.
"""

from __future__ import annotations

import csv
import html
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
    "MAX_TABLE_BYTES",
    "ReportFigure",
    "ReportSection",
    "ReportTable",
    "check_page",
    "collect_report",
    "decode_table_data",
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


@dataclass
class ReportFigure:
    """One inline SVG figure with its caption and the files it was read from."""

    name: str
    svg: str
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
    rows = [[_cell(r.get(c)) for c in columns] for r in records]
    return ReportTable(name, columns, rows, source, len(records), _item_cols(columns))


def _read_csv(path: Path, rel: str) -> ReportTable | None:
    with path.open(newline="", encoding="utf-8", errors="replace") as fh:
        reader = csv.reader(fh)
        first = next(reader, None)
        if first is None:
            return None
        header = [from_spreadsheet(h) for h in first]  # benchsift's own CSVs: formula cells shown as written
        rows = [[_number_text(from_spreadsheet(c)) for c in row] for row in reader]
    return ReportTable(rel, header, rows, rel, len(rows), _item_cols(header))


def _csv_columns(path: Path) -> int:
    with path.open(newline="", encoding="utf-8", errors="replace") as fh:
        return len(next(csv.reader(fh), []))


def _number_text(text: str) -> str:
    """A CSV cell as shown: numbers with many digits shortened to 4 significant ones, empty as ``n/a``."""
    if text == "" or text.lower() == "nan":
        return "n/a"
    try:
        v = float(text)
    except ValueError:
        return text
    if "." in text and len(text) > 7:
        return f"{v:.4g}"
    return text


_ID = re.compile(r'\bid="([^"]+)"')


def _inline_svg(text: str, prefix: str) -> tuple[str, str, str]:
    """The ``<svg>`` element of an SVG file with every id prefixed (ids stay unique across figures), plus
    its stored title and description."""
    start = text.find("<svg")
    body = text[start:] if start >= 0 else text
    desc = _dc(body, "description")
    title = _dc(body, "title")
    body = re.sub(r"<metadata>.*?</metadata>", "", body, flags=re.S)
    ids = set(_ID.findall(body))
    if ids:
        body = _ID.sub(lambda m: f'id="{prefix}{m.group(1)}"', body)
        body = re.sub(
            r"url\(#([^)]+)\)",
            lambda m: f"url(#{prefix}{m.group(1)})" if m.group(1) in ids else m.group(0),
            body,
        )
        body = re.sub(
            r'href="#([^"]+)"',
            lambda m: f'href="#{prefix}{m.group(1)}"' if m.group(1) in ids else m.group(0),
            body,
        )
    # Let the page scale the figure down on narrow screens (never above its own size): keep the viewBox,
    # turn the fixed width into a maximum, drop the fixed height.
    width = re.search(r'<svg[^>]*?\swidth="([^"]*)"', body)
    body = re.sub(r'(<svg[^>]*?)\swidth="[^"]*"', r"\1", body, count=1)
    body = re.sub(r'(<svg[^>]*?)\sheight="[^"]*"', r"\1", body, count=1)
    if width:
        body = body.replace("<svg", f'<svg style="max-width: {width.group(1)}"', 1)
    return body, html.unescape(title), html.unescape(desc)


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
    return key.replace("_", " ").replace("-", " ").strip() or "results"


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
    number of files left out because benchsift did not write them (``not_benchsift``) and the item views
    (``items``: one per item named in a table, when a panel is given or was written into the folder).
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
    page: dict[str, Any] = {"name": name, "run": {}, "warnings": [], "not_benchsift": 0, "items": []}
    files = _benchsift_files(root, page, str(root_in))
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

    groups: dict[str, list[Path]] = {"": []}
    for path in files:
        rel = path.relative_to(root)
        if rel.as_posix() in ("summary.json", "manifest.json"):
            continue
        key = rel.parts[0] if len(rel.parts) > 1 else ""
        groups.setdefault(key, []).append(path)

    order = [k for k in summary_sections if k in groups] + [k for k in groups if k not in summary_sections]
    sections: list[ReportSection] = []
    for key in order:
        group = groups[key]
        if not group and key not in summary_sections:
            continue
        sec = ReportSection(key=key or "top", title=_section_title(key) if key else name)
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
    if panel is None:
        panel = _panel_inside(files, root, page)
    if answers is not None and panel is None:
        raise InputError("--answers: needs the panel the answers belong to (--panel)")
    if panel is not None:
        logged = None
        if answers is not None:
            from benchsift.io.answers import LoggedAnswers, read_answers

            logged = (
                answers
                if isinstance(answers, LoggedAnswers)
                else read_answers(answers, panel, column=answer_column)
            )
            page["warnings"] += list(logged.notes)
        page["items"] = _item_views(sections, panel, Path(images) if images is not None else None, logged)
    return page, sections


def _csvs(group: list[Path], root: Path) -> dict[str, Path]:
    return {p.relative_to(root).as_posix(): p for p in group if p.suffix.lower() == ".csv"}


def _panel_inside(files: list[Path], root: Path, page: dict[str, Any]) -> Panel | None:
    """The one panel file benchsift wrote inside the folder (the demo's ``panel/panel.parquet``), if any."""
    found = [p for p in files if p.suffix == ".parquet"]
    if len(found) != 1:
        return None
    from benchsift.panel import Panel

    try:
        return Panel.load(found[0])
    except Exception as exc:  # a parquet file that is not a panel: no item views, said once
        page["warnings"].append(f"{found[0].relative_to(root)}: not read as a panel ({exc}); no item views")
        return None


def _item_views(
    sections: list[ReportSection], panel: Panel, images: Path | None, answers: LoggedAnswers | None
) -> list[ItemView]:
    """The item views of every item named in an item column of a table, and the tables' links to them."""
    from benchsift.report.items import item_views

    wanted: list[tuple[str, str]] = []
    for sec in sections:
        for t in sec.tables:
            for col, bcol in t.item_cols:
                wanted += [(r[bcol], r[col]) for r in t.rows if col < len(r) and bcol < len(r)]
    views = item_views(panel, wanted, images, answers)
    return list(views.values())


def _fill(sec: ReportSection, files: list[Path], root: Path, page: dict[str, Any]) -> dict[str, Any]:
    """Add the files of one section to ``sec``; return its JSON documents by relative path."""
    docs: dict[str, Any] = {}
    n_fig = 0
    csv_stems = {(p.parent, p.stem) for p in files if p.suffix.lower() == ".csv"}
    for path in files:
        rel = path.relative_to(root).as_posix()
        sec.files.append((rel, _size(path.stat().st_size)))
        suffix = path.suffix.lower()
        if suffix == ".svg":
            n_fig += 1
            svg, title, caption = _inline_svg(
                path.read_text(encoding="utf-8"), f"{sec.key}-{n_fig}-".replace(" ", "_")
            )
            links = [rel] + [
                p.relative_to(root).as_posix()
                for p in (path.with_suffix(".png"), path.with_suffix(".pdf"))
                if p.is_file()
            ]
            sec.figures.append(ReportFigure(path.stem, svg, caption, title or path.stem, links))
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
    """The rows of ``t`` as the page stores them: ``{"columns", "n", "cols", "links"}``, column by column.

    A column whose distinct values number at most half its rows (model names, benchmark names, flags,
    verdicts) is ``{"d": distinct values in order of first appearance, "i": one index into them per row}``;
    any other column is the plain list of its cells. ``links``: ``[item column, benchmark column]`` pairs.
    The page's script (``report.js``, ``decodeTable``) turns it back into rows.
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
    return {"columns": t.columns, "n": n, "cols": cols, "links": [[c, b] for c, b in t.item_cols]}


def decode_table_data(data: dict[str, Any]) -> list[list[str]]:
    """The rows of a :func:`table_data` object (what the page's script does; for tests and tools)."""
    cols = [c if isinstance(c, list) else [c["d"][k] for k in c["i"]] for c in data["cols"]]
    return [[col[i] for col in cols] for i in range(int(data["n"]))]


def _first_rows(t: ReportTable, index: dict[str, str]) -> list[list[tuple[str, str | None]]]:
    """The first page of ``t`` as ``(text, item view anchor or None)`` cells."""
    links = dict(t.item_cols)
    out = []
    for r in t.rows[:FIRST_PAGE]:
        row: list[tuple[str, str | None]] = []
        for c, v in enumerate(r):
            b = links.get(c)
            row.append((v, index.get(f"{r[b]}\x1f{v}") if b is not None and b < len(r) else None))
        out.append(row)
    return out


def render_report(page: dict[str, Any], sections: list[ReportSection], title: str | None = None) -> str:
    """The HTML text of the page (Jinja2 template ``report.html.j2``, autoescaped; SVGs and the tables'
    JSON data marked safe)."""
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
    template = env.get_template("report.html.j2")
    css = (_TEMPLATES / "report.css").read_text(encoding="utf-8")
    js = (_TEMPLATES / "report.js").read_text(encoding="utf-8")
    items = page.get("items") or []
    index = {f"{v.benchmark}\x1f{v.item}": v.anchor for v in items}
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
                "svgs": [Markup(f.svg) for f in s.figures],
                "tables": tables,
            }
        )
    return template.render(
        title=title or f"benchsift results: {page['name']}",
        generator=f"{GENERATOR} {__version__}",
        page_run=_run_rows(page.get("run") or {}),
        page_warnings=page.get("warnings") or [],
        not_benchsift=page.get("not_benchsift") or 0,
        sections=rendered,
        items=items,
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
