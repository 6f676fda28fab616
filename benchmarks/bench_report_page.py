"""The report page on an MMMU-sized panel: page size and browser time, every row on the page (issue 34).

Builds a results folder from ``PANEL`` (default: a simulated panel of MMMU's size, 168 models x 1,050
items; give ``--panel mmmu.parquet`` for the real one, from ``benchsift import wide MMMU_DEV_VAL.csv
--benchmark MMMU -o mmmu.parquet``): ``audit --out``, ``compress --out`` and, as the largest table a user
would put on a page, the long table of every score (``model, benchmark, item, score``: 176,400 rows on
MMMU). Then ``benchsift report`` writes ``index.html`` twice:

* benchsift: each table stored column by column, repeated values as distinct values plus one index per row
  (:func:`benchsift.report.html.table_data`);
* baseline: the same page with each table's rows written out as a JSON list of lists (what a good numpy /
  JSON programmer would write; the page's script reads both).

For each page: its size in bytes, and in the system's headless Chromium (min / median over ``--repeats``,
the two pages alternated): the load time (``loadEventEnd`` of the navigation, the table script included)
and the time to sort the largest table by its ``score`` column over all its rows.

Usage: ``python benchmarks/bench_report_page.py [--panel FILE] [--repeats 3] [--work DIR]``.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
from pathlib import Path

from _timing import machine_line

from benchsift._fileio import atomic_path
from benchsift.io import read_scores
from benchsift.panel import Panel
from benchsift.report.html import decode_table_data, report_folder
from benchsift.simulate import SimulationConfig, simulate_panel

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from screenshot_report import chromium_driver  # noqa: E402


def build(panel: Panel, work: Path) -> Path:
    from typer.testing import CliRunner

    from benchsift.cli.main import app

    panel_path = work / "panel.parquet"
    panel.save(panel_path)
    out = work / "results"
    for cmd in (
        ["audit", str(panel_path), "--out", str(out / "audit")],
        ["compress", str(panel_path), "--out", str(out / "suite")],
    ):
        r = CliRunner().invoke(app, cmd)
        if r.exit_code != 0:
            raise SystemExit(f"benchsift {' '.join(cmd)} failed:\n{r.output}")
    long = panel.to_long()[["model", "benchmark", "item", "score"]]
    (out / "scores").mkdir(parents=True, exist_ok=True)
    with atomic_path(out / "scores" / "long.csv") as tmp:  # recorded in the manifest as benchsift's
        long.to_csv(tmp, index=False)
    report_folder(out, panel=panel)
    return out


def plain_page(text: str) -> str:
    """The page with every table's data written as plain rows (the baseline)."""

    def swap(m: re.Match[str]) -> str:
        data = json.loads(m.group(2))
        plain = {"columns": data["columns"], "rows": decode_table_data(data), "links": data["links"]}
        body = json.dumps(plain, ensure_ascii=False, separators=(",", ":"))
        body = body.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
        return m.group(1) + body + m.group(3)

    pattern = r'(<script type="application/json" class="tdata">)(.*?)(</script>)'
    return re.sub(pattern, swap, text, flags=re.S)


MEASURE = """
const nav = performance.getEntriesByType('navigation')[0];
const ctls = window.benchsiftTables;
let big = ctls[0];
for (const c of ctls) { if (c.rows.length > big.rows.length) { big = c; } }
const heads = big.table.querySelectorAll('thead th');
const col = Array.from(heads).findIndex(h => h.textContent === 'score');
const t0 = performance.now();
heads[col < 0 ? heads.length - 1 : col].click();
const sort = performance.now() - t0;
return [nav.loadEventEnd, sort, big.rows.length];
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--panel", type=Path, help="a panel file (default: simulated, MMMU's size)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--work", type=Path, help="folder to build in (default: a temporary one)")
    args = ap.parse_args()
    print(machine_line())
    if args.panel is not None:
        panel = read_scores(args.panel)
        source = str(args.panel)
    else:
        panel = simulate_panel(
            SimulationConfig.unidimensional(n_models=168, n_items=1050), random_state=0
        ).panel
        source = "simulated 168 x 1,050"
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-report-"))
    out = build(panel, work)
    page = out / "index.html"
    text = page.read_text(encoding="utf-8")
    base = out / "baseline.html"
    base.write_text(plain_page(text), encoding="utf-8")
    sizes = {"benchsift": page.stat().st_size, "baseline (plain rows)": base.stat().st_size}
    driver = chromium_driver()
    runs: dict[str, list[list[float]]] = {k: [] for k in sizes}
    try:
        for _ in range(max(1, args.repeats)):
            for name, path in (("benchsift", page), ("baseline (plain rows)", base)):
                driver.get(path.resolve().as_uri())
                runs[name].append(driver.execute_script(MEASURE))
        log = driver.get_log("browser")
    finally:
        driver.quit()
    print(f"panel: {source}: {panel.n_models} models x {panel.n_items} items; page {page}")
    print(f"{'page':<24}{'bytes':>12}{'load ms min/med':>20}{'sort ms min/med':>20}{'rows':>9}")
    for name, size in sizes.items():
        r = runs[name]
        load = [x[0] for x in r]
        sort = [x[1] for x in r]
        print(
            f"{name:<24}{size:>12,}{min(load):>11.0f} / {statistics.median(load):<7.0f}"
            f"{min(sort):>11.0f} / {statistics.median(sort):<7.0f}{int(r[0][2]):>9,}"
        )
    for entry in log:
        print(f"console {entry['level']}: {entry['message']}")


if __name__ == "__main__":
    main()
