"""Screenshot of a benchsift report page (``index.html``) in headless Chromium.

    python scripts/screenshot_report.py [DIR] [--out PNG] [--width 1280] [--full] [--sections]
    python scripts/screenshot_report.py --mmmu-sized OUTDIR [--out PNG] [--sections]

Without DIR it runs ``benchsift demo`` into a temporary folder first. ``--mmmu-sized OUTDIR`` first
simulates a panel of MMMU's size (168 models x 1,050 items, one benchmark, with question text, images
and the models' logged answers), runs ``compress --holdout 0.2``, ``audit``, ``validate`` and ``adaptive
simulate`` with ``--out`` into OUTDIR and ``benchsift report OUTDIR --panel ... --images ... --answers
...``. ``--sections`` also writes one PNG per section
(the first screen of each, ``PNG`` stem + ``-<section>.png``) and one of the first audit flag's item view
(``-item.png``). It needs the system's Chromium and
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


def build_mmmu_sized(out: Path, seed: int = 0) -> Path:
    """A simulated panel of MMMU's size with question text, choices, keys and images (PNG files under
    ``out/images``), and the report of ``compress``, ``audit``, ``validate`` and ``adaptive simulate``
    on it, all written with ``--out`` under ``out/results``; returns that folder."""
    import numpy as np
    from PIL import Image
    from typer.testing import CliRunner

    from benchsift.cli.main import app
    from benchsift.simulate import SimulationConfig, simulate_panel

    out.mkdir(parents=True, exist_ok=True)
    cfg = SimulationConfig.unidimensional(n_models=168, n_items=1050)
    panel = simulate_panel(cfg, random_state=seed).panel
    rng = np.random.default_rng(seed)
    items = panel.items.copy()
    # 20 mis-keyed items: the key marks the wrong choice, so every model's score is flipped (what a wrong
    # answer key does to a multiple-choice item); the audit should flag them as negatively discriminating.
    scores = panel.scores.copy()
    flipped = rng.choice(len(items), 20, replace=False)
    scores[:, flipped] = 1.0 - scores[:, flipped]
    items["question"] = [f"Simulated question {k}: which colour fills the image?" for k in range(len(items))]
    images = out / "images"
    images.mkdir(exist_ok=True)
    names = []
    for k in range(len(items)):
        name = f"img{k:04d}.png"
        if not (images / name).exists():
            colour = tuple(int(x) for x in rng.integers(0, 255, 3))
            Image.new("RGB", (480, 320), colour).save(images / name)
        names.append(name)
    items["image"] = names
    items["choices"] = ['["red", "green", "blue", "none of these"]'] * len(items)
    items["answer"] = [str(x) for x in rng.choice(list("ABCD"), len(items))]
    from benchsift.panel import Panel

    panel = Panel(scores, panel.models, items)
    panel_path = out / "mmmu_sized.parquet"
    panel.save(panel_path)
    # the models' logged answers: the key when scored right, another letter when wrong
    import pandas as pd

    keys = items["answer"].to_numpy()
    others = {k: [x for x in "ABCD" if x != k] for k in "ABCD"}
    pick = rng.integers(0, 3, size=scores.shape)
    given = [
        [keys[j] if scores[i, j] == 1.0 else others[keys[j]][pick[i, j]] for j in range(panel.n_items)]
        for i in range(panel.n_models)
    ]
    answers = out / "answers.csv"
    pd.DataFrame(
        {
            "model": np.repeat(panel.model_ids, panel.n_items),
            "benchmark": np.tile(items["benchmark"].to_numpy(), panel.n_models),
            "item": np.tile(items["item"].to_numpy(), panel.n_models),
            "answer": np.asarray(given).reshape(-1),
        }
    ).to_csv(answers, index=False)
    results = out / "results"
    runner = CliRunner()
    commands = [
        ["compress", str(panel_path), "--holdout", "0.2", "--out", str(results / "suite"), "--force"],
        ["audit", str(panel_path), "--out", str(results / "audit"), "--force"],
        [
            "validate",
            str(panel_path),
            "--splits",
            "3",
            "--selectors",
            "random,variance,vaw",
            "--retentions",
            "0.05,0.1",
            "--out",
            str(results / "validate"),
            "--force",
        ],
        ["adaptive", "simulate", str(panel_path), "--splits", "2", "--out", str(results / "adaptive")],
        [
            "report",
            str(results),
            "--panel",
            str(panel_path),
            "--images",
            str(images),
            "--answers",
            str(answers),
        ],
    ]
    for cmd in commands:
        r = runner.invoke(app, cmd)
        if r.exit_code != 0:
            raise SystemExit(f"benchsift {' '.join(cmd)} failed:\n{r.output}")
    return results


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "directory", nargs="?", type=Path, help="a folder with index.html (default: run the demo)"
    )
    ap.add_argument("--out", type=Path, default=Path("report-screenshot.png"), help="PNG to write")
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=900)
    ap.add_argument("--full", action="store_true", help="the whole page, not only the first screen")
    ap.add_argument("--sections", action="store_true", help="one PNG per section and one of an item view")
    ap.add_argument("--mmmu-sized", type=Path, help="build an MMMU-sized simulated report into this folder")
    args = ap.parse_args(argv)
    directory = args.directory
    if args.mmmu_sized is not None:
        directory = build_mmmu_sized(args.mmmu_sized)
    elif directory is None:
        from benchsift.workflows.demo import run_demo

        directory = Path(tempfile.mkdtemp(prefix="benchsift-demo-")) / "demo"
        run_demo(directory, random_state=0)
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
        shots = [args.out]
        if args.sections:
            driver.set_window_size(args.width, args.height)
            for sec in driver.find_elements(By.CSS_SELECTOR, "main > section[id^='sec-']"):
                driver.execute_script("arguments[0].scrollIntoView()", sec)
                name = sec.get_attribute("id").removeprefix("sec-")
                shot = args.out.with_name(f"{args.out.stem}-{name}.png")
                driver.save_screenshot(str(shot))
                shots.append(shot)
            links = driver.find_elements(By.CSS_SELECTOR, "#sec-audit a.itemlink") or driver.find_elements(
                By.CSS_SELECTOR, "section[id^='sec-'] a.itemlink"
            )
            if links:
                driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", links[0])
                links[0].click()
                shot = args.out.with_name(f"{args.out.stem}-item.png")
                driver.save_screenshot(str(shot))
                shots.append(shot)
        figures = driver.find_elements(By.CSS_SELECTOR, "figure.fig svg")
        tables = driver.find_elements(By.CSS_SELECTOR, "table.sortable")
        log = driver.get_log("browser")
    finally:
        driver.quit()
    for shot in shots:
        print(f"screenshot: {shot.resolve()} (page {args.width} x {height} px)")
    print(f"page: {index}; {len(figures)} figures, {len(tables)} sortable tables")
    for entry in log:
        print(f"console {entry['level']}: {entry['message']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
