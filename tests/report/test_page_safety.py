"""The page of a folder someone sent, opened in a real headless Chromium (audit s33 of the HTML pages).

* A figure file runs no script, whatever the folder's manifest claims (defect 3): SVG files are shown as
  images (``data:`` URIs), never inlined as markup.
* Links are percent-encoded per path segment and start with ``./`` (defect 4): a folder named
  ``javascript:...`` is a path, and ``#``, ``?``, ``%`` in folder names do not break links.
* Names and ids are shown as written (defect 7): ``3.14159265358979`` and ``nan`` as such, and linked to
  their item view; only numeric result columns are shortened.
* Item views come from the panel each table was computed on (defect 1): a table whose recorded panel
  fingerprint matches no panel on the page is not linked, and its section says why in one line.
* A page that holds fewer item views than the items named says so (defect 16).
* Long names wrap, names with right-to-left text are isolated (defect 15); section titles are folder names
  as written; tables have captions, figures names (defects 14, 17).
"""

from __future__ import annotations

import hashlib
import html.parser
import json
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import numpy as np
import pandas as pd
import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By
from typer.testing import CliRunner

from benchsift._fileio import atomic_path
from benchsift.cli.main import app
from benchsift.compression.pipeline import panel_fingerprint
from benchsift.panel import Panel
from benchsift.report import items as items_module
from benchsift.report.figures import new_figure, save_figure
from benchsift.report.html import collect_report, isolate_names, write_report

runner = CliRunner()
EVIL_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="50" onload="window.__pwned=\'svg-onload\'">'
    "<script>window.__pwned2='svg-script'</script>"
    '<foreignObject width="10" height="10"><iframe xmlns="http://www.w3.org/1999/xhtml" '
    "src=\"javascript:parent.__pwned3='iframe'\"></iframe></foreignObject>"
    '<rect x="0" y="0" width="200" height="50" fill="#0b5cad"/>'
    '<text x="5" y="20">looks like a figure</text></svg>'
)


def _write(path: Path, text: str) -> None:
    """Write ``path`` as benchsift does (recorded in its folder's manifest)."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def _open(driver: webdriver.Chrome, page: Path) -> None:
    driver.get(page.resolve().as_uri())
    driver.get_log("browser")  # start each page with an empty console log


def _pwned(driver: webdriver.Chrome) -> list[Any]:
    return driver.execute_script("return [window.__pwned, window.__pwned2, window.__pwned3]")


# --------------------------------------------------------------------------------------------- defect 3


def test_a_forged_manifest_cannot_make_a_figure_run_script(driver: webdriver.Chrome, tmp_path: Path) -> None:
    out = tmp_path / "received"
    out.mkdir()
    data = EVIL_SVG.encode()
    (out / "evil.svg").write_bytes(data)
    # the manifest anyone can write: it claims the file is benchsift's
    entry = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    manifest = {"written_by": "benchsift", "files": {"evil.svg": entry}}
    (out / ".benchsift-manifest.json").write_text(json.dumps(manifest))
    r = runner.invoke(app, ["report", str(out)])
    assert r.exit_code == 0, r.output
    _open(driver, out / "index.html")
    assert _pwned(driver) == [None, None, None]
    text = (out / "index.html").read_text(encoding="utf-8")
    assert "<svg" not in text and "onload" not in text and "<script>window" not in text
    img = driver.find_element(By.CSS_SELECTOR, "figure.fig img")
    assert img.get_attribute("src").startswith("data:image/svg+xml;base64,")
    # the figure still shows: decoded at its own size, drawn (the blue rectangle), and named
    assert driver.execute_script("return [arguments[0].complete, arguments[0].naturalWidth]", img) == [
        True,
        200,
    ]
    assert img.is_displayed() and img.get_attribute("alt") == "Figure 1: evil"
    drawn = driver.execute_script(
        """const img = arguments[0], c = document.createElement('canvas'); c.width = 200; c.height = 50;
        const g = c.getContext('2d'); g.drawImage(img, 0, 0);
        return Array.from(g.getImageData(100, 40, 1, 1).data)""",
        img,
    )
    assert drawn == [11, 92, 173, 255]
    assert _pwned(driver) == [None, None, None]
    assert not [m for m in driver.get_log("browser") if m["level"] == "SEVERE"]


# --------------------------------------------------------------------------------------------- defect 4

HOSTILE_FOLDERS = ["javascript:window.__pwned=1;void(0)", "run #1", "what?", "100%", "val_2024-05 ü"]


class _Links(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.links += [v or "" for k, v in attrs if k in ("href", "src")]


def test_links_to_files_in_oddly_named_folders_are_paths_that_resolve(
    driver: webdriver.Chrome, tmp_path: Path
) -> None:
    out = tmp_path / "forge"
    for name in HOSTILE_FOLDERS:
        _write(out / name / "scores.csv", "model,score\nm1,0.5\nm2,0.25\n")
        fig = new_figure(3, 2)
        fig.add_subplot().plot([0, 1], [0, 1])
        save_figure(fig, out / name / "line", caption="a line")
    page = write_report(out)
    parser = _Links()
    parser.feed(page.read_text(encoding="utf-8"))
    files = [h for h in parser.links if not h.startswith(("#", "data:"))]
    assert len(files) >= 5 * 5  # per folder: the table's source, the figure's 2 files, 3 raw files
    for href in files:
        assert href.startswith("./") and urlparse(href).scheme == "", href
        assert not urlparse(href).query and not urlparse(href).fragment, href
        assert (out / unquote(href)).is_file(), href
    # in the browser: every link resolves to a file: URL of an existing file, every #anchor to an element
    _open(driver, page)
    hrefs = driver.execute_script("return Array.from(document.querySelectorAll('a[href]')).map(a => a.href)")
    anchors = driver.execute_script(
        "return Array.from(document.querySelectorAll('a[href^=\"#\"]'))"
        ".map(a => document.getElementById(decodeURIComponent(a.hash.slice(1))) !== null)"
    )
    assert anchors and all(anchors)
    for url in hrefs:
        parts = urlparse(url)
        assert parts.scheme == "file", url
        if not parts.fragment:
            assert Path(unquote(parts.path)).is_file(), url
    # clicking the figure's file link of the javascript: folder opens no script
    link = next(
        a
        for a in driver.find_elements(By.CSS_SELECTOR, "figcaption a")
        if "javascript" in a.get_attribute("href")
    )
    assert link.get_attribute("href").startswith("file:")
    driver.execute_script("arguments[0].addEventListener('click', e => e.preventDefault())", link)
    link.click()
    assert _pwned(driver) == [None, None, None]
    # section titles are the folder names as written (not "val 2024 05 ü")
    titles = [h.text for h in driver.find_elements(By.CSS_SELECTOR, "main > section > h2")]
    assert sorted(titles) == sorted(HOSTILE_FOLDERS)
    ids = [s.get_attribute("id") for s in driver.find_elements(By.CSS_SELECTOR, "main > section")]
    assert "sec-run_1" in ids and len(set(ids)) == len(ids)


# --------------------------------------------------------------------------------------------- defect 7

NAMES = ["3.14159265358979", "nan", "2.50000000001", "12345"]


def _number_panel() -> Panel:
    """6 models (one named like a decimal) x 4 items whose ids read as numbers."""
    rng = np.random.default_rng(0)
    scores = (rng.random((6, 4)) < 0.5).astype(float)
    models = ["3.14159265358979", "m1", "m2", "m3", "m4", "m5"]
    items = pd.DataFrame({"benchmark": "0.123456789", "item": NAMES, "question": [f"Q{k}" for k in range(4)]})
    return Panel(scores, models, items)


def test_names_that_read_as_numbers_are_shown_as_written_and_linked(
    driver: webdriver.Chrome, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    rows = [f"0.123456789,{item},3.14159265358979,0.123456789,{k / 7}" for k, item in enumerate(NAMES)]
    _write(out / "items.csv", "benchmark,item,model,category,score\n" + "\n".join(rows) + "\n")
    _write(out / "mixed.csv", "label_text,value\n1.23456789,0.5\nplain,0.75\n")
    records = [{"benchmark": "0.123456789", "item": 12345, "model": 3.14159265358979, "rho": 0.987654321}]
    _write(out / "result.json", json.dumps({"flags": records}))
    panel = _number_panel()
    page, (sec,) = collect_report(out, panel=panel)
    table = next(t for t in sec.tables if t.source == "items.csv")
    assert [r[:4] for r in table.rows] == [
        ["0.123456789", i, "3.14159265358979", "0.123456789"] for i in NAMES
    ]
    assert [r[4] for r in table.rows] == ["0.0", "0.1429", "0.2857", "0.4286"]  # results: shortened
    mixed = next(t for t in sec.tables if t.source == "mixed.csv")
    assert mixed.rows == [["1.23456789", "0.5"], ["plain", "0.75"]]  # a text column: as written
    rec = next(t for t in sec.tables if t.source == "result.json")
    assert rec.rows == [["0.123456789", "12345", "3.14159265358979", "0.9877"]]
    assert sorted(v.item for v in page["items"]) == sorted(NAMES)
    r = runner.invoke(app, ["report", str(out), "--panel", str(_saved(panel, tmp_path))])
    assert r.exit_code == 0, r.output
    _open(driver, out / "index.html")
    wrap = driver.find_element(By.CSS_SELECTOR, "div.tablewrap[data-source='items.csv']")
    links = wrap.find_elements(By.CSS_SELECTOR, "tbody a.itemlink")
    assert [a.text for a in links] == NAMES  # every item linked, by its own id
    for a in links:
        view = driver.find_element(By.ID, a.get_attribute("href").split("#")[1])
        assert view.find_element(By.TAG_NAME, "h3").get_attribute("textContent") == f"0.123456789 / {a.text}"
    cells = [td.text for td in wrap.find_elements(By.CSS_SELECTOR, "tbody tr:first-child td")]
    assert cells == ["0.123456789", "3.14159265358979", "3.14159265358979", "0.123456789", "0.0"]
    # the item view names the model as written
    links[1].click()
    shown = driver.find_element(By.CSS_SELECTOR, "article.item:target")
    shown.find_element(By.CSS_SELECTOR, "details:last-of-type summary").click()
    assert "3.14159265358979 " in shown.text


def _saved(panel: Panel, folder: Path, name: str = "p.parquet") -> Path:
    path = folder / name
    panel.save(path)
    return path


# --------------------------------------------------------------------------------------------- defect 1


def _keyed_panel(seed: int, tag: str) -> Panel:
    """10 models x 6 items with the same keys (b0/q0..q5) whatever the seed: only the scores differ."""
    rng = np.random.default_rng(seed)
    scores = (rng.random((10, 6)) < 0.5).astype(float)
    items = pd.DataFrame({"benchmark": "b0", "item": [f"q{k}" for k in range(6)]})
    items["question"] = [f"{tag}: question {k}" for k in range(6)]
    return Panel(scores, [f"m{i}" for i in range(10)], items)


def _demo_like(out: Path, with_panels: dict[str, Panel], recorded: dict[str, Panel]) -> None:
    """A folder laid out like the demo's: one sub-folder per section naming items in ``items.csv``, the
    fingerprint of the panel each was computed on in ``summary.json``, and the panels ``with_panels``
    saved in their sections' folders (as benchsift writes them)."""
    sections = {}
    for key, panel in recorded.items():
        lines = "\n".join(f"b0,q{k},{panel.scores[:, k].mean()}" for k in range(6))
        _write(out / key / "items.csv", "benchmark,item,mean_score\n" + lines + "\n")
        sections[key] = {"run": {"call": key, "fingerprint_sha256": panel_fingerprint(panel)}}
    for key, panel in with_panels.items():
        panel.save(out / key / "panel.parquet")  # written as benchsift writes (listed in the manifest)
    _write(out / "summary.json", json.dumps({"run": {"command": "made by a test"}, "sections": sections}))


def test_a_section_computed_on_another_panel_gets_no_links(driver: webdriver.Chrome, tmp_path: Path) -> None:
    # the demo's case: one panel in the folder, and a section computed on its own simulated panel
    shown, other = _keyed_panel(0, "shown"), _keyed_panel(1, "other")
    out = tmp_path / "demo"
    _demo_like(out, {"panel": shown}, {"panel": shown, "audit": other})
    write_report(out)
    _open(driver, out / "index.html")
    sec = driver.find_element(By.ID, "sec-audit")
    assert sec.find_elements(By.CSS_SELECTOR, "a.itemlink") == []
    # paging through every row (the page's script) links none either
    driver.execute_script(
        "const s = arguments[0].querySelector('select.tsize');"
        "s.value = 'all'; s.dispatchEvent(new Event('change'))",
        sec,
    )
    assert sec.find_elements(By.CSS_SELECTOR, "a.itemlink") == []
    assert "have no item view" in sec.find_element(By.CSS_SELECTOR, "p.itemnote").text
    # the section computed on the folder's panel keeps its links
    assert len(driver.find_elements(By.CSS_SELECTOR, "#sec-panel a.itemlink")) == 6
    page, sections = collect_report(out)
    audit = next(s for s in sections if s.key == "audit")
    assert [t.panel for t in audit.tables] == [None]
    (line,) = audit.item_notes
    assert line.startswith("Items in audit/items.csv have no item view: the results were computed on data")
    assert panel_fingerprint(other)[:12] in line and "panel/panel.parquet" in line
    own = next(s for s in sections if s.key == "panel")
    assert [t.panel for t in own.tables] == [0] and own.item_notes == []
    assert len(page["items"]) == 6 and all(v.question.startswith("shown:") for v in page["items"])


def test_each_section_links_to_the_panel_it_was_computed_on(driver: webdriver.Chrome, tmp_path: Path) -> None:
    # what the demo gives once each section saves its panel: same item keys, different panels
    a, b = _keyed_panel(0, "panel a"), _keyed_panel(1, "panel b")
    out = tmp_path / "demo"
    _demo_like(out, {"a": a, "b": b}, {"a": a, "b": b})
    write_report(out)
    _open(driver, out / "index.html")
    for key, panel in (("a", a), ("b", b)):
        sec = driver.find_element(By.ID, f"sec-{key}")
        links = sec.find_elements(By.CSS_SELECTOR, "tbody a.itemlink")
        assert len(links) == 6
        for link in links:
            view = driver.find_element(By.ID, link.get_attribute("href").split("#")[1])
            text = view.get_attribute("textContent")
            k = int(link.text[1:])
            assert f"panel {key}: question {k}" in text and f"From {key}/panel.parquet." in text
            assert f"mean score {panel.scores[:, k].mean():.2f}" in text  # the row's own panel's numbers
    page, _ = collect_report(out)
    assert page["panels"] == ["a/panel.parquet", "b/panel.parquet"] and len(page["items"]) == 12


def test_a_suite_with_held_out_models_links_to_the_panel_less_those(small_suite: tuple[Path, Path]) -> None:
    out, full = small_suite
    page, (sec,) = collect_report(out, panel=Panel.load(full))
    n_build = json.loads((out / "holdout.json").read_text())["n_build"]
    assert page["items"] and {v.n_models for v in page["items"]} == {n_build}  # the build models' scores
    linked = [t for t in sec.tables if t.item_cols]
    assert linked and all(t.panel == 1 for t in linked) and sec.item_notes == []
    assert page["panels"][1].startswith("the panel given (--panel), less the")


@pytest.fixture(scope="module")
def small_suite(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    from benchsift.simulate import SimulationConfig, simulate_panel

    root = tmp_path_factory.mktemp("suite")
    full = _saved(simulate_panel(SimulationConfig.small(n_models=20), random_state=2).panel, root)
    out = root / "suite"
    args = ["compress", str(full), "--retention", "0.2", "--floor", "0", "--k", "6", "--holdout", "0.25"]
    r = runner.invoke(app, [*args, "--out", str(out)])
    assert r.exit_code == 0, r.output
    return out, full


# -------------------------------------------------------------------------------------------- defect 16


def test_a_page_with_capped_item_views_says_how_many_have_one(
    driver: webdriver.Chrome, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(items_module, "MAX_ITEM_VIEWS", 4)
    panel = _keyed_panel(0, "capped")
    out = tmp_path / "out"
    _write(out / "items.csv", "benchmark,item\n" + "\n".join(f"b0,q{k}" for k in range(6)) + "\n")
    write_report(out, panel=panel)
    _open(driver, out / "index.html")
    assert len(driver.find_elements(By.CSS_SELECTOR, "article.item")) == 4
    intro = driver.find_element(By.CSS_SELECTOR, "#items p.answer-text").text
    assert intro.startswith("4 of the 6 items named in the tables above have a view here")
    caption = driver.find_element(By.CSS_SELECTOR, "div.tablewrap table caption").text
    assert "4 of the 6 items in this table have an item view" in caption
    page, (sec,) = collect_report(out, panel=panel)
    assert len(page["items"]) == 4 and page["items_named"] == 6
    (table,) = sec.tables
    assert table.item_note == (
        "4 of the 6 items in this table have an item view (a page holds at most 4); "
        "the rest are in items.csv."
    )


# ---------------------------------------------------------------------------------------- defects 15, 17

LONG = "M" * 320
RTL = "نموذج\u202eevil\u202c-عربي"


@pytest.fixture(scope="module")
def hostile_compare(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A ``compare --out`` folder (its JSON and leaderboard, no figures) and an item table, named after a
    benchmark with Arabic letters and an RLO ... PDF pair, one of whose models has a 320-letter name with no
    space; its page holds the item view of a panel with those names."""
    root = tmp_path_factory.mktemp("hostile")
    out = root / RTL
    row = {"section": RTL, "n_models": 39, "n_items": 120, "n_groups": 3, "largest_group": 5, "mdd": 0.1}
    doc = {
        "resolution": [{**row, "separated_holm": 0.5}],
        "ties": {RTL: [f"{LONG}, model-1"]},
        "parameters": {"correction": "holm", "power": 0.8, "alpha": 0.05, "note": LONG},
    }
    _write(out / "compare.json", json.dumps(doc))
    _write(out / "leaderboard.csv", f"section,model,score\n{RTL},{LONG},0.5\n{RTL},model-1,0.25\n")
    _write(out / "items.csv", f"benchmark,item,flags\n{RTL},{LONG},{LONG}\n")
    rng = np.random.default_rng(1)
    items = pd.DataFrame(
        {"benchmark": RTL, "item": [LONG, "i1"], "question": [f"Is {LONG} {RTL} long?", "?"]}
    )
    panel = Panel((rng.random((6, 2)) < 0.5).astype(float), [LONG, *(f"model-{k}" for k in range(5))], items)
    write_report(out, panel=panel)
    return out / "index.html"


@pytest.mark.parametrize("width", [1280, 390])
def test_long_names_do_not_widen_the_page(
    driver: webdriver.Chrome, hostile_compare: Path, width: int
) -> None:
    metrics = {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 600}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    try:
        _open(driver, hostile_compare)
        driver.get(driver.current_url + "#item-1")  # the item view shown
        assert driver.find_element(By.ID, "item-1").is_displayed()
        for d in driver.find_elements(By.CSS_SELECTOR, "details"):  # parameters and provenance too
            driver.execute_script("arguments[0].open = true", d)
        assert LONG in driver.find_element(By.TAG_NAME, "body").get_attribute("textContent")
        # the width asked for (a mobile viewport zooms out to fit a wider page, so innerWidth would grow)
        wide = driver.execute_script("return document.documentElement.scrollWidth")
        assert wide <= width
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_names_with_right_to_left_text_cannot_reorder_the_sentence(
    driver: webdriver.Chrome, hostile_compare: Path
) -> None:
    _open(driver, hostile_compare)
    # every bidi control character and right-to-left letter in the page's text lies inside a <bdi> (or a
    # table cell, a paragraph of its own)
    loose = driver.execute_script(
        r"""const out = [], walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        for (let n = walk.nextNode(); n; n = walk.nextNode()) {
          if (/[\u202a-\u202e\u2066-\u2069\u0590-\u08ff]/.test(n.data)
              && !n.parentElement.closest('bdi, td, th, script')) { out.push(n.data); }
        }
        return out;"""
    )
    assert loose == []
    # laid out: in a sentence naming the benchmark, the text after the name stays to its right
    checked = driver.execute_script(
        """const out = [];
        for (const b of document.querySelectorAll('.answer-text bdi, h3 bdi, caption bdi')) {
          const next = b.nextSibling;
          if (!next || next.nodeType !== 3 || !next.data.trim()) { continue; }
          const r = document.createRange(); r.setStart(next, 0); r.setEnd(next, 1);
          const after = r.getClientRects()[0], name = b.getBoundingClientRect();
          if (after && Math.abs(after.top - name.top) < 2) {
            out.push([name.right, after.left, b.textContent]);
          }
        }
        return out;"""
    )
    assert checked, "no sentence names the benchmark on one line"
    for right, left, name in checked:
        assert left >= right - 1, name


def test_isolate_names_wraps_only_right_to_left_runs_and_balances_isolates() -> None:
    assert str(isolate_names("On <b>plain</b>: 3 models")) == "On &lt;b&gt;plain&lt;/b&gt;: 3 models"
    assert str(isolate_names(f"On {RTL}: 39 models")) == f"On <bdi>{RTL}</bdi>: 39 models"
    # a stray PDI would close the isolate early; an open FSI is closed inside it
    assert str(isolate_names("a \u2069\u202ex b")) == "a <bdi>\u202ex</bdi> b"
    assert str(isolate_names("a \u2068\u05d0 b")) == "a <bdi>\u2068\u05d0\u2069</bdi> b"
    assert isolate_names(f"suite: {RTL}.", plain=True) == f"suite: \u2068{RTL}\u2069."


def test_tables_have_captions_and_item_views_scoped_headers(driver: webdriver.Chrome, tmp_path: Path) -> None:
    panel = _keyed_panel(0, "a11y")
    out = tmp_path / "out"
    rows = "\n".join(f"b0,q{k % 6},{k}" for k in range(12_345))
    _write(out / "items.csv", "benchmark,item,n\n" + rows + "\n")
    write_report(out, panel=panel)
    _open(driver, out / "index.html")
    table = driver.find_element(By.CSS_SELECTOR, "div.tablewrap table.sortable")
    caption = table.find_element(By.CSS_SELECTOR, ":scope > caption")
    assert caption.text.startswith("items.csv (12,345 rows, from items.csv)")
    assert driver.find_element(By.CSS_SELECTOR, ".tinfo").text == "rows 1-25 of 12,345"
    headers = driver.find_elements(By.CSS_SELECTOR, "article.item th")
    assert headers and all(h.get_attribute("scope") == "col" for h in headers)
