"""One demo run shared by the report tests (about 8 s on one core), and the headless Chromium they open
pages in."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from benchsift.errors import ResultWarning
from benchsift.workflows.demo import run_demo


@pytest.fixture(scope="session")
def demo_dir(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("demo") / "demo"
    # the demo's two suites keep fewer categories than they have (Stage 3): said as the library says it
    with pytest.warns(ResultWarning, match="run_pipeline: stage 3 kept") as said:
        summary = run_demo(out, random_state=0).payload
    assert len(said) == 2, [str(w.message) for w in said]
    return out, summary


@pytest.fixture(scope="module")
def driver() -> Iterator[webdriver.Chrome]:
    """The system's Chromium, headless, through chromedriver, with the browser's console log kept."""
    chromedriver = shutil.which("chromedriver")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    assert chromedriver and chromium, (
        "needs chromium and chromedriver: apt-get install chromium chromium-driver"
    )
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        opts.add_argument(arg)
    opts.add_argument("--window-size=1280,900")
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    drv = webdriver.Chrome(service=Service(executable_path=chromedriver), options=opts)
    try:
        yield drv
    finally:
        drv.quit()
