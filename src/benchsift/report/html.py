"""``index.html``: one self-contained page that reads an output folder back and shows what is in it.

:func:`collect_report` walks a folder written by benchsift (a command's ``--out DIR``, a suite directory or
the demo) and gathers one :class:`ReportSection` per analysis: the folder itself for files at its top level,
and each sub-folder (with everything below it). For each section it reads

* what was run: ``manifest.json`` of the folder, the demo's ``summary.json`` entry of the section
  (``"run"``: command, parameters, input and its fingerprint, data sizes) or a suite's ``suite.json``;
* the headline numbers: the scalar entries of that summary (or of the section's JSON results);
* every table: each CSV file (the first :data:`MAX_TABLE_ROWS` rows, with the total row count) and each
  list of flat records inside a JSON result;
* every figure: each SVG file, inlined, with the caption stored in its metadata by
  :func:`benchsift.report.figures.save_figure`;
* notes and warnings: the ``notes`` and ``warnings`` lists of the JSON results;
* links to every raw file, with its size.

:func:`render_report` fills the Jinja2 template ``templates/report.html.j2`` (package data) and
:func:`write_report` writes ``DIR/index.html`` atomically. The page loads nothing from the network: styles
and the table-sorting script are inline, figures are inline SVG, links are relative. It carries no date,
so the same folder gives the same bytes.

Reading stays inside the folder: every path is resolved (symlinks followed) and skipped, with a warning,
when it lands outside. An ``index.html`` that benchsift did not write is never overwritten.
"""

from __future__ import annotations

import csv
import html
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchsift._fileio import atomic_path
from benchsift._jsonutil import loads_bounded
from benchsift.errors import InputError

__all__ = [
    "GENERATOR",
    "MAX_TABLE_ROWS",
    "ReportFigure",
    "ReportSection",
    "ReportTable",
    "collect_report",
    "report_contents",
    "render_report",
    "write_report",
]

#: Rows of a CSV file shown in the page (the file itself is linked; the total row count is shown).
MAX_TABLE_ROWS = 200
#: Headline entries shown per section.
MAX_HEADLINE = 40
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


def _table_from_records(name: str, records: list[dict[str, Any]], source: str) -> ReportTable:
    columns: list[str] = []
    for r in records:
        for k in r:
            if k not in columns:
                columns.append(str(k))
    rows = [[_cell(r.get(c)) for c in columns] for r in records[:MAX_TABLE_ROWS]]
    return ReportTable(name, columns, rows, source, len(records))


def _read_csv(path: Path, rel: str) -> ReportTable | None:
    with path.open(newline="", encoding="utf-8", errors="replace") as fh:
        reader = csv.reader(fh)
        header = next(reader, None)
        if header is None:
            return None
        rows: list[list[str]] = []
        total = 0
        for row in reader:
            total += 1
            if len(rows) < MAX_TABLE_ROWS:
                rows.append([_number_text(c) for c in row])
    return ReportTable(rel, header, rows, rel, total)


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


def collect_report(directory: str | Path) -> tuple[dict[str, Any], list[ReportSection]]:
    """Read an output folder into the page's sections.

    Returns ``(page, sections)``: ``page`` holds the folder name, the top-level run description (the demo's
    ``summary.json`` or the folder's ``manifest.json``) and the warnings about files that were skipped.

    Raises
    ------
    InputError
        When ``directory`` is not an existing folder.
    """
    root_in = Path(directory)
    if not root_in.is_dir():
        raise InputError(f"{root_in}: expected an existing output folder (written by a benchsift command)")
    root = root_in.resolve()
    page: dict[str, Any] = {"name": root_in.name or str(root_in), "run": {}, "warnings": []}
    summary_sections: dict[str, Any] = {}
    summary_path = root / "summary.json"
    if summary_path.is_file():
        summary = _load_json(summary_path, page["warnings"], "summary.json")
        if isinstance(summary, dict):
            summary_sections = dict(summary.get("sections") or {})
            page["run"] = {k: v for k, v in summary.items() if k != "sections" and _scalar(v)}
            page["run"].update(summary.get("run") or {})
    manifest = root / "manifest.json"
    if manifest.is_file():
        data = _load_json(manifest, page["warnings"], "manifest.json")
        if isinstance(data, dict):
            page["run"].update({k: v for k, v in data.items() if k not in ("files", "outputs")})

    groups: dict[str, list[Path]] = {"": []}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if any(part.startswith(".") for part in rel.parts):
            continue  # temporary and hidden files
        if not _inside(path, root):
            page["warnings"].append(f"{rel}: skipped (it points outside {root_in})")
            continue
        if not path.is_file() or str(rel) in _SKIP or str(rel) in ("summary.json", "manifest.json"):
            continue
        key = rel.parts[0] if len(rel.parts) > 1 else ""
        groups.setdefault(key, []).append(path)

    order = [k for k in summary_sections if k in groups] + [k for k in groups if k not in summary_sections]
    sections: list[ReportSection] = []
    for key in order:
        files = groups[key]
        if not files and key not in summary_sections:
            continue
        sec = ReportSection(key=key or "top", title=_section_title(key) if key else page["name"])
        info = summary_sections.get(key)
        if isinstance(info, dict):
            sec.run = dict(info.get("run") or {})
            sec.headline = _flatten({k: v for k, v in info.items()})[:MAX_HEADLINE]
            sec.notes += [str(n) for n in info.get("notes") or []]
            sec.warnings += [str(w) for w in info.get("warnings") or []]
        _fill(sec, files, root, page)
        sections.append(sec)
    return page, sections


def _fill(sec: ReportSection, files: list[Path], root: Path, page: dict[str, Any]) -> None:
    n_fig = 0
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
            table = _read_csv(path, rel)
            if table is not None:
                sec.tables.append(table)
        elif suffix == ".json":
            data = _load_json(path, sec.warnings, rel)
            if not isinstance(data, dict):
                continue
            if path.name in _RUN_FILES and not sec.run:
                sec.run = {k: v for k, v in data.items() if _scalar(v) or isinstance(v, dict)}
            sec.notes += [f"{rel}: {n}" for n in data.get("notes") or [] if isinstance(n, str)]
            sec.warnings += [f"{rel}: {w}" for w in data.get("warnings") or [] if isinstance(w, str)]
            for name, records in _records(data):
                if name in ("notes", "warnings"):
                    continue
                sec.tables.append(_table_from_records(f"{rel}: {name}", records, rel))
            if not sec.headline:
                sec.headline = _flatten(data, depth=1)[:MAX_HEADLINE]


def _run_rows(run: dict[str, Any]) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    for k, v in run.items():
        if isinstance(v, dict):
            rows += [(f"{k}.{a}", _cell(b)) for a, b in _flatten(v, depth=2)] or [(k, "{}")]
        else:
            rows.append((k, _cell(v)))
    return rows


def render_report(page: dict[str, Any], sections: list[ReportSection], title: str | None = None) -> str:
    """The HTML text of the page (Jinja2 template ``report.html.j2``, autoescaped; SVGs marked safe)."""
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
    return template.render(
        title=title or f"benchsift results: {page['name']}",
        generator=f"{GENERATOR} {__version__}",
        page_run=_run_rows(page.get("run") or {}),
        page_warnings=page.get("warnings") or [],
        sections=[
            {"s": s, "run": _run_rows(s.run), "svgs": [Markup(f.svg) for f in s.figures]} for s in sections
        ],
        css=Markup(css),
        js=Markup(js),
    )


def write_report(directory: str | Path, title: str | None = None) -> Path:
    """Write ``directory/index.html`` (atomically) from what the folder holds; return its path.

    Raises
    ------
    InputError
        When ``directory`` is not a folder, or when it holds an ``index.html`` that benchsift did not write.
    """
    page, sections = collect_report(directory)
    target = Path(directory) / "index.html"
    if target.exists():
        head = target.read_text(encoding="utf-8", errors="replace")[:2000]
        if f'<meta name="generator" content="{GENERATOR}' not in head:
            raise InputError(
                f"{target}: exists and was not written by benchsift; move it away or choose another folder"
            )
    text = render_report(page, sections, title)
    with atomic_path(target) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return target


def report_contents(directory: str | Path, path: Path) -> dict[str, Any]:
    """What ``benchsift report --json`` prints of the page ``path`` written for ``directory``: the page's
    path, each section's name and its numbers of figures, tables and files, and every warning."""
    page, sections = collect_report(directory)
    return {
        "report": str(path),
        "sections": [
            {"name": s.title, "figures": len(s.figures), "tables": len(s.tables), "files": len(s.files)}
            for s in sections
        ],
        "warnings": [*page["warnings"], *(w for s in sections for w in s.warnings)],
    }
