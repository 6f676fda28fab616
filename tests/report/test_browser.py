"""The demo's ``index.html`` in a real headless Chromium (system packages: chromium, chromium-driver).

``.ci/run`` installs both; the test does not skip when they are missing, it fails and says what to install.
Checks: no console message at all (errors or warnings), no resource loaded (no network, nothing beside the
page), every figure drawn at a non-zero size, and tables sort on a header click (numbers numerically,
again reversed, ``n/a`` last).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By


@pytest.fixture(scope="module")
def driver() -> Iterator[webdriver.Chrome]:
    chromedriver = shutil.which("chromedriver")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    assert chromedriver and chromium, (
        "needs chromium and chromedriver: apt-get install chromium chromium-driver"
    )
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1280,900",
    ):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    drv = webdriver.Chrome(service=Service(executable_path=chromedriver), options=opts)
    try:
        yield drv
    finally:
        drv.quit()


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
        svg = fig.find_element(By.TAG_NAME, "svg")
        page.execute_script("arguments[0].scrollIntoView()", svg)
        rect = page.execute_script(
            "const r = arguments[0].getBoundingClientRect(); return [r.width, r.height]", svg
        )
        assert rect[0] > 200 and rect[1] > 100, fig.get_attribute("id")
        assert svg.is_displayed()
        # The figure drew something: paths inside the svg with a non-empty bounding box.
        n_paths = page.execute_script(
            "return Array.from(arguments[0].querySelectorAll('path'))"
            ".filter(p => { const b = p.getBBox(); return b.width > 0 || b.height > 0; }).length",
            svg,
        )
        assert n_paths > 10
        caption = fig.find_element(By.TAG_NAME, "figcaption").text
        assert "Data: simulated" in caption


def _column(table: Any, index: int) -> list[str]:
    return [
        r.find_elements(By.TAG_NAME, "td")[index].text
        for r in table.find_elements(By.CSS_SELECTOR, "tbody tr")
    ]


def _table(page: webdriver.Chrome, source: str) -> Any:
    for wrap in page.find_elements(By.CSS_SELECTOR, "div.tablewrap"):
        if wrap.find_element(By.CSS_SELECTOR, "p.tcap strong").text == source:
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
