"""Screenshot of a benchsift report page (``index.html``) in headless Chromium.

    python scripts/screenshot_report.py [DIR] [--out PNG] [--width 1280] [--full]

Without DIR it runs ``benchsift demo`` into a temporary folder first. It needs the system's Chromium and
chromedriver (Debian: ``apt-get install chromium chromium-driver``) and the ``selenium`` package (the
``test`` extra); nothing is downloaded. Prints the PNG's path, the page's size, the number of figures and
tables, and any console message of the page.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By


def chromium_driver(width: int = 1280, height: int = 900) -> webdriver.Chrome:
    """A headless Chromium driven through the system's chromedriver, with the console log captured."""
    driver_path = shutil.which("chromedriver")
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if driver_path is None or browser is None:
        raise SystemExit("needs chromium and chromedriver on PATH (apt-get install chromium chromium-driver)")
    opts = webdriver.ChromeOptions()
    opts.binary_location = browser
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        f"--window-size={width},{height}",
        "--hide-scrollbars",
    ):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(executable_path=driver_path), options=opts)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "directory", nargs="?", type=Path, help="a folder with index.html (default: run the demo)"
    )
    ap.add_argument("--out", type=Path, default=Path("report-screenshot.png"), help="PNG to write")
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=900)
    ap.add_argument("--full", action="store_true", help="the whole page, not only the first screen")
    args = ap.parse_args(argv)
    directory = args.directory
    if directory is None:
        from benchsift.report.demo import run_demo

        directory = Path(tempfile.mkdtemp(prefix="benchsift-demo-")) / "demo"
        run_demo(directory, seed=0)
    index = (directory / "index.html").resolve()
    if not index.is_file():
        print(f"{index}: no index.html (run `benchsift report {directory}` first)", file=sys.stderr)
        return 2
    driver = chromium_driver(args.width, args.height)
    try:
        driver.get(index.as_uri())
        height = int(driver.execute_script("return document.documentElement.scrollHeight"))
        if args.full:
            driver.set_window_size(args.width, min(height, 30000))
        args.out.parent.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(args.out))
        figures = driver.find_elements(By.CSS_SELECTOR, "figure.fig svg")
        tables = driver.find_elements(By.CSS_SELECTOR, "table.sortable")
        log = driver.get_log("browser")
    finally:
        driver.quit()
    print(f"screenshot: {args.out.resolve()} (page {args.width} x {height} px)")
    print(f"page: {index}; {len(figures)} figures, {len(tables)} sortable tables")
    for entry in log:
        print(f"console {entry['level']}: {entry['message']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
