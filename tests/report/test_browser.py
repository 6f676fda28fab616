"""The demo's ``index.html`` in a real headless Chromium (system packages: chromium, chromium-driver).

``.ci/run`` installs both; the test does not skip when they are missing, it fails and says what to install.
Checks: no console message at all (errors or warnings), no resource loaded (no network, nothing beside the
page), every figure drawn at a non-zero size, and tables sort on a header click (numbers numerically,
again reversed, ``n/a`` last). On the demo and on a panel of MMMU's size: the first screen of each section
shows its answer sentence and numbers, sorting a column reorders every row (not one page), and an audit
flag links to its item view (question, choices, key, image thumbnail, how the models scored it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from PIL import Image
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select
from typer.testing import CliRunner

from benchsift.cli.main import app
from benchsift.panel import Panel
from benchsift.simulate import SimulationConfig, simulate_panel


@pytest.fixture(scope="module")
def page(driver: webdriver.Chrome, demo_dir: tuple[Path, dict[str, Any]]) -> webdriver.Chrome:
    out, _ = demo_dir
    driver.get((out / "index.html").resolve().as_uri())
    return driver


def test_renders_without_console_messages_or_requests(page: webdriver.Chrome) -> None:
    assert page.title == "benchsift demo (simulated data)"
    assert page.get_log("browser") == []
    resources = page.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert resources == []


def test_every_figure_is_visible(page: webdriver.Chrome, demo_dir: tuple[Path, dict[str, Any]]) -> None:
    out, _ = demo_dir
    figures = page.find_elements(By.CSS_SELECTOR, "figure.fig")
    assert len(figures) == len(list(out.rglob("*.svg"))) == 12
    for fig in figures:
        img = fig.find_element(By.CSS_SELECTOR, "img")  # the SVG file as an image: it runs no script
        page.execute_script("arguments[0].scrollIntoView()", img)
        rect = page.execute_script(
            "const r = arguments[0].getBoundingClientRect(); return [r.width, r.height]", img
        )
        assert rect[0] > 200 and rect[1] > 100, fig.get_attribute("id")
        assert img.is_displayed()
        # The figure drew something: the decoded image has many non-white pixels.
        assert _inked(page, img) > 0.02, fig.get_attribute("id")
        caption = fig.find_element(By.TAG_NAME, "figcaption").text
        assert "Data: simulated" in caption
        # named for assistive technology: its title, and the caption as its description
        assert img.get_attribute("alt").startswith("Figure ")
        desc = img.get_attribute("aria-describedby")
        assert "Data: simulated" in page.find_element(By.ID, desc).text
        assert page.find_element(By.ID, fig.get_attribute("aria-labelledby")).text.startswith("Figure ")


def _inked(page: webdriver.Chrome, img: Any) -> float:
    """The share of the pixels of a decoded image that are not white (drawn on a canvas)."""
    return float(
        page.execute_script(
            """
            const img = arguments[0], c = document.createElement('canvas');
            c.width = img.naturalWidth; c.height = img.naturalHeight;
            const g = c.getContext('2d'); g.fillStyle = '#fff'; g.fillRect(0, 0, c.width, c.height);
            g.drawImage(img, 0, 0);
            const d = g.getImageData(0, 0, c.width, c.height).data;
            let n = 0;
            for (let k = 0; k < d.length; k += 4) { if (d[k] + d[k + 1] + d[k + 2] < 720) { n++; } }
            return n / (c.width * c.height);
            """,
            img,
        )
    )


def _column(table: Any, index: int) -> list[str]:
    return [
        r.find_elements(By.TAG_NAME, "td")[index].text
        for r in table.find_elements(By.CSS_SELECTOR, "tbody tr")
    ]


def _table(page: webdriver.Chrome, source: str) -> Any:
    for wrap in page.find_elements(By.CSS_SELECTOR, "div.tablewrap"):
        if wrap.find_element(By.CSS_SELECTOR, "caption strong").text == source:
            return wrap.find_element(By.CSS_SELECTOR, "table.sortable")
    raise AssertionError(f"no table {source}")


def test_tables_sort_on_header_click(page: webdriver.Chrome) -> None:
    table = _table(page, "panel/benchmarks.csv")
    headers = table.find_elements(By.CSS_SELECTOR, "thead th")
    names = [h.text.strip() for h in headers]
    col = names.index("mean_score")
    before = [float(v) for v in _column(table, col)]
    assert before != sorted(before)  # the file is in benchmark order, so sorting changes something
    page.execute_script("arguments[0].scrollIntoView()", headers[col])
    headers[col].click()
    assert [float(v) for v in _column(table, col)] == sorted(before)
    assert headers[col].get_attribute("aria-sort") == "ascending"
    headers[col].click()
    assert [float(v) for v in _column(table, col)] == sorted(before, reverse=True)
    assert headers[col].get_attribute("aria-sort") == "descending"
    # Rows move whole: the benchmark column follows its mean.
    bench = _column(table, names.index("benchmark"))
    assert bench[0] == f"bench0{before.index(max(before))}"
    # Text column: alphabetical.
    headers[names.index("benchmark")].click()
    assert _column(table, names.index("benchmark")) == sorted(bench)


def test_missing_values_sort_last(page: webdriver.Chrome) -> None:
    # Estimates of held-back models: sort a numeric column with a '-'-free column; then check n/a handling
    # on a hand-made table injected into the page with the page's own script.
    page.execute_script(
        """
        const t = document.createElement('table'); t.className = 'sortable'; t.id = 'probe';
        t.innerHTML = '<thead><tr><th>v</th></tr></thead><tbody>' +
          ['3', 'n/a', '10', '2.5', 'n/a', '-1'].map(v => '<tr><td>' + v + '</td></tr>').join('') +
          '</tbody>';
        document.body.appendChild(t);
        """
    )
    # The sorting script binds at load time: reload the script's handler by re-running it on the new table.
    script = page.execute_script("return document.scripts[document.scripts.length - 1].textContent")
    page.execute_script(
        script.replace('document.querySelectorAll("table.sortable")', 'document.querySelectorAll("#probe")')
    )
    probe = page.find_element(By.ID, "probe")
    header = probe.find_element(By.TAG_NAME, "th")
    header.click()
    assert _column(probe, 0) == ["-1", "2.5", "3", "10", "n/a", "n/a"]
    header.click()
    assert _column(probe, 0) == ["10", "3", "2.5", "-1", "n/a", "n/a"]


# --------------------------------------------------------------------------------------------------------
# The answer first, every row sortable, audit flags linked to their items: on the demo and on a panel of
# MMMU's size (168 models x 1,050 items, one benchmark; 20 mis-keyed items planted, question text, images).


@pytest.fixture(scope="module")
def mmmu_sized(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, pd.DataFrame]:
    root = tmp_path_factory.mktemp("mmmu")
    sim = simulate_panel(SimulationConfig.unidimensional(n_models=168, n_items=1050), random_state=0).panel
    rng = np.random.default_rng(0)
    scores = sim.scores.copy()
    flipped = rng.choice(sim.n_items, 20, replace=False)
    scores[:, flipped] = 1.0 - scores[:, flipped]  # a wrong key flips every model's score
    images = root / "images"
    images.mkdir()
    for k in range(4):
        Image.new("RGB", (64, 48), (60 * k, 90, 200)).save(images / f"img{k}.png")
    items = sim.items.assign(
        question=[f"Question {k}: which colour fills the image?" for k in range(sim.n_items)],
        choices='["red", "green", "blue", "grey"]',
        answer="A",
        image=[f"img{k % 4}.png" for k in range(sim.n_items)],
    )
    panel_path = root / "panel.parquet"
    panel = Panel(scores, sim.models, items)
    panel.save(panel_path)
    # the models' logged answers: the key when scored right, another letter when wrong
    wrong = rng.choice(["B", "C", "D"], size=scores.shape)
    given = np.where(scores == 1.0, "A", wrong)
    answers = root / "answers.csv"
    pd.DataFrame(
        {
            "model": np.repeat(panel.model_ids, panel.n_items),
            "benchmark": np.tile(items["benchmark"].to_numpy(), panel.n_models),
            "item": np.tile(items["item"].to_numpy(), panel.n_models),
            "answer": given.reshape(-1),
        }
    ).to_csv(answers, index=False)
    out = root / "results"
    for cmd in (
        ["compress", str(panel_path), "--out", str(out / "suite")],
        ["audit", str(panel_path), "--out", str(out / "audit")],
        ["validate", str(panel_path), "--splits", "2", "--selectors", "random,variance",
         "--retentions", "0.1", "--floor", "0", "--out", str(out / "validate")],
        ["report", str(out), "--panel", str(panel_path), "--images", str(images), "--answers", str(answers)],
    ):  # fmt: skip
        r = CliRunner().invoke(app, cmd)
        assert r.exit_code == 0, r.output
    return out, items


@pytest.fixture(scope="module", params=["demo", "mmmu"])
def any_page(
    request: pytest.FixtureRequest, driver: webdriver.Chrome, demo_dir: tuple[Path, dict[str, Any]]
) -> webdriver.Chrome:
    out = demo_dir[0] if request.param == "demo" else request.getfixturevalue("mmmu_sized")[0]
    driver.get((out / "index.html").resolve().as_uri())
    return driver


def test_first_screen_of_each_section_shows_its_answer(any_page: webdriver.Chrome) -> None:
    page = any_page
    height = page.execute_script("return window.innerHeight")
    sections = page.find_elements(By.CSS_SELECTOR, "main > section[id^='sec-']")
    assert len(sections) >= 3
    for sec in sections:
        page.execute_script("arguments[0].scrollIntoView()", sec)
        answer = sec.find_element(By.CSS_SELECTOR, ".answer")
        text = answer.find_element(By.CSS_SELECTOR, ".answer-text")
        numbers = answer.find_elements(By.CSS_SELECTOR, ".number")
        assert len(text.text.split(".")) >= 2 and text.is_displayed(), sec.get_attribute("id")
        assert 3 <= len(numbers) <= 5, sec.get_attribute("id")
        for el in [text, *numbers]:
            bottom = page.execute_script("return arguments[0].getBoundingClientRect().bottom", el)
            assert 0 < bottom <= height, (sec.get_attribute("id"), el.text)
        for n in numbers:  # each number labelled in words, with what good looks like (most of them)
            assert n.find_element(By.TAG_NAME, "dt").text and n.find_element(By.CSS_SELECTOR, "dd.value").text


def test_sorting_a_column_reorders_every_row(any_page: webdriver.Chrome) -> None:
    page = any_page
    # the longest table (more than one page, at most 2,000 rows to read back) with a numeric column

    def number(v: str) -> float | None:
        try:
            return float(v.replace(",", ""))
        except ValueError:
            return None

    def numeric_column(data: dict[str, Any]) -> int | None:
        for c in range(len(data["columns"])):
            values = [r[c] for r in data["rows"]]
            if all(number(v) is not None for v in values) and len(set(values)) > 5:
                return c
        return None

    candidates = []
    for w in page.find_elements(By.CSS_SELECTOR, "div.tablewrap"):
        data = page.execute_script(
            "const d = JSON.parse(arguments[0].querySelector('script.tdata').textContent);"
            "return {columns: d.columns, rows: window.benchsiftDecodeTable(d)}",
            w,
        )
        col = numeric_column(data)
        if 25 < len(data["rows"]) <= 2000 and col is not None:
            candidates.append((len(data["rows"]), w, data, col))
    assert candidates
    _, wrap, data, col = max(candidates, key=lambda c: c[0])

    def column(w: Any, c: int) -> list[str]:  # the rows shown, read in one call
        return page.execute_script(
            "return Array.from(arguments[0].querySelectorAll('tbody tr'))"
            ".map(r => r.cells[arguments[1]].textContent)",
            w,
            c,
        )

    header = wrap.find_elements(By.CSS_SELECTOR, "thead th")[col]
    page.execute_script("arguments[0].scrollIntoView({block: 'center'})", header)
    header.click()
    Select(wrap.find_element(By.CSS_SELECTOR, "select.tsize")).select_by_value("all")
    shown = column(wrap, col)
    assert len(shown) == len(data["rows"])  # every row, not only the page shown before
    assert [number(v) for v in shown] == sorted(number(r[col]) for r in data["rows"])
    header.click()
    shown = column(wrap, col)
    assert [number(v) for v in shown] == sorted((number(r[col]) for r in data["rows"]), reverse=True)
    # rows move whole: each shown row is one of the file's rows
    first = [
        td.text for td in wrap.find_elements(By.CSS_SELECTOR, "tbody tr")[0].find_elements(By.TAG_NAME, "td")
    ]
    assert first in data["rows"]
    # the filter narrows every row, not one page
    needle = data["rows"][-1][0]
    box = wrap.find_element(By.CSS_SELECTOR, "input.tfilter")
    box.send_keys(needle)
    kept = wrap.find_elements(By.CSS_SELECTOR, "tbody tr")
    expected = [r for r in data["rows"] if any(needle.lower() in c.lower() for c in r)]
    assert len(kept) == len(expected) >= 1
    box.clear()


def test_an_audit_flag_links_to_its_item_view(
    driver: webdriver.Chrome, mmmu_sized: tuple[Path, pd.DataFrame]
) -> None:
    out, items = mmmu_sized
    driver.get((out / "index.html").resolve().as_uri())
    flagged = pd.read_csv(out / "audit" / "items.csv", dtype={"item": str})
    negative = flagged[flagged["flags"].str.contains("negative-discrimination")]
    assert len(negative) >= 10  # most of the 20 planted wrong keys
    audit = driver.find_element(By.ID, "sec-audit")
    wrap = next(
        w
        for w in audit.find_elements(By.CSS_SELECTOR, "div.tablewrap")
        if w.get_attribute("data-source") == "audit/items.csv"
    )
    link = wrap.find_element(By.CSS_SELECTOR, "tbody a.itemlink")
    item = link.text
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", link)
    link.click()
    view = driver.find_element(By.CSS_SELECTOR, "article.item:target")
    assert view.is_displayed()
    k = items["item"].tolist().index(item)
    assert f"Question {k}: which colour fills the image?" in view.text
    assert "red" in view.text and "Key: A" in view.text
    img = view.find_element(By.CSS_SELECTOR, "img.thumb")
    assert img.get_attribute("src").startswith("data:image/")
    assert driver.execute_script("return arguments[0].naturalWidth", img) == 64
    assert "strongest 20 %" in view.text
    # what the models answered: the key's row counts the models that scored it right
    key_row = view.find_element(By.CSS_SELECTOR, "table.answers tr.keyrow")
    n_right = int((Panel.load(out.parent / "panel.parquet").scores[:, k] == 1.0).sum())
    cells = [td.get_attribute("textContent") for td in key_row.find_elements(By.TAG_NAME, "td")]
    assert cells[:2] == ["A (key)", str(n_right)]
    assert driver.get_log("browser") == []
