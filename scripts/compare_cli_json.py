"""Run a fixed list of ``benchsift ... --json`` commands at two git revisions and diff their JSON.

Usage::

    .venv/bin/python scripts/compare_cli_json.py [--base REV] [--head REV] [--keep DIR]

``--text`` runs the same commands without ``--json`` and compares what they print for a person (stdout
and stderr as text, ``COLUMNS=120``): durations printed in the text (``demo finished in ...``, selection
times) are not removed, so those lines differ and are read by hand. ``--only a,b`` runs only the named
commands (name the ones they read too, e.g. ``simulate``); the written files are then not compared.

``--base`` defaults to ``git merge-base main HEAD``, ``--head`` to ``HEAD``; ``WORKTREE`` as either side
means the current working tree (uncommitted changes included). Each revision is checked out with
``git worktree add --detach`` into a temporary folder and run with this interpreter (the current venv)
and ``PYTHONPATH=<checkout>/src``, so both sides share every installed dependency and differ only in
benchsift's own code. Every command runs in a fresh per-revision work folder with relative paths, so
paths printed in the JSON are the same strings on both sides.

The inputs are made by benchsift itself at each revision (``simulate``, ``compress``, ``adaptive bank``,
a verdict table from :func:`benchsift.simulate.verdicts.simulate_verdicts`) and by the fixtures shipped in
``tests/fixtures`` (the importers' real files, the paper's Table 2 axis means). The files those steps
write are compared byte for byte as well (``FILES`` below).

The JSON objects are compared after removing only the keys listed in :data:`IGNORED_KEYS` (durations),
wherever they occur. Exit code 0 when every command's output and exit code agree, 1 otherwise (each
difference is printed as a unified diff).
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

#: keys whose values are durations measured by the run itself; removed wherever they occur
IGNORED_KEYS = frozenset({"seconds", "elapsed", "wall_s"})

#: Python steps run before the commands (in the work folder, with the revision on PYTHONPATH).
PREPARE = {
    "verdicts": (
        "from benchsift.simulate.verdicts import simulate_verdicts\n"
        "simulate_verdicts(6, 120, unanswered_rate=0.02, random_state=0).table.to_csv('verdicts.csv', "
        "index=False)\n"
        "simulate_verdicts(6, 120, unanswered_rate=0.02, random_state=1).table.to_csv('verdicts2.csv', "
        "index=False)\n"
    ),
}

#: Run after ``compress``: the suite's first reference model's scores as a new model ``newbie``.
NEW_SCORES = (
    "import pandas as pd\n"
    "ref = pd.read_csv('suite/reference_scores.csv', dtype={'benchmark': str, 'item': str})\n"
    "m = ref.columns[2]\n"
    "pd.DataFrame({'model': 'newbie', 'benchmark': ref['benchmark'], 'item': ref['item'],"
    " 'score': ref[m]}).dropna().to_csv('new.csv', index=False)\n"
)

#: One JSONL file per benchmark from the engine fixture (each benchmark's real record schema).
RAW_RECORDS = (
    "import json, os\n"
    "raw = json.load(open(os.environ['BENCHSIFT_FIXTURES'] + '/engine/raw_records.json'))\n"
    "for bench in ('mmstar', 'gqa'):\n"
    "    open(bench + '.jsonl', 'w').write(json.dumps(raw[bench]) + '\\n')\n"
)

FIX = "{fixtures}"  # replaced by the revision's tests/fixtures folder (absolute; not printed in --json)

#: (name, argv after ``benchsift``, or ("python", code)) in order; later commands read earlier outputs
COMMANDS: list[tuple[str, list[str] | tuple[str, str]]] = [
    ("simulate", ["simulate", "--preset", "small", "--seed", "0", "-o", "panel.parquet", "--json"]),
    ("info", ["info", "panel.parquet", "--json"]),
    ("redundancy-dimensions", ["redundancy", "dimensions", "panel.parquet", "--json"]),
    (
        "redundancy-instances",
        ["redundancy", "instances", "panel.parquet", "--repeats", "10", "--ratios", "0.05,0.2,0.5", "--json"],
    ),
    (
        "redundancy-instances-compare",
        ["redundancy", "instances", "panel.parquet", "--repeats", "5", "--ratios", "0.1,0.5"]
        + ["--compare-k", "10", "--each-benchmark", "--json"],
    ),
    ("redundancy-benchmarks", ["redundancy", "benchmarks", "panel.parquet", "--json"]),
    ("compress", ["compress", "panel.parquet", "--out", "suite", "--k", "2", "--frontier", "--json"]),
    ("new-scores", ("python", NEW_SCORES)),
    ("estimate", ["estimate", "suite", "new.csv", "--n-boot", "200", "--json"]),
    (
        "validate-random",
        ["validate", "panel.parquet", "--splits", "3", "--selectors", "random,variance,vaw", "--json"],
    ),
    (
        "validate-end-to-end",
        ["validate", "panel.parquet", "--protocol", "end-to-end", "--splits", "2"]
        + ["--selectors", "random,variance", "--retentions", "0.05", "--k", "2", "--json"],
    ),
    (
        "validate-same-model",
        ["validate", "panel.parquet", "--protocol", "same-model", "--selectors", "random,variance"]
        + ["--retentions", "0.1", "--min-heldout", "5", "--json"],
    ),
    ("adaptive-bank", ["adaptive", "bank", "panel.parquet", "-o", "bank.json", "--json"]),
    ("adaptive-next", ["adaptive", "next", "bank.json", "--start", "fresh-model", "--json"]),
    ("adaptive-simulate", ["adaptive", "simulate", "panel.parquet", "--splits", "2", "--json"]),
    ("diagnose-spectrum", ["diagnose", "spectrum", "panel.parquet", "--eras", "2024-06-01", "--json"]),
    ("diagnose-stage3", ["diagnose", "stage3", "panel.parquet", "--k", "1,2", "--n-boot", "200", "--json"]),
    ("diagnose-shelf-life", ["diagnose", "shelf-life", "panel.parquet", "--k", "2", "--json"]),
    (
        "diagnose-leftout",
        ["diagnose", "leftout", "panel.parquet", "--sizes", "2,4,8", "--splits", "3", "--json"],
    ),
    (
        "diagnose-checkpoints",
        ["diagnose", "checkpoints", "panel.parquet", "--variants", "^(Cobalt|Glacier)-"]
        + ["--n-boot", "100", "--json"],
    ),
    ("diagnose-families", ["diagnose", "families", "panel.parquet", "--min-models", "3", "--json"]),
    ("verdicts", ("python", PREPARE["verdicts"])),
    ("prism-score", ["prism", "score", "verdicts.csv", "--bootstrap", "200", "--json"]),
    (
        "prism-score-options",
        ["prism", "score", "verdicts.csv", "--bootstrap", "100", "--budget", "60", "--near-tie"]
        + ["model00,model01", "--out", "score-out", "--json"],
    ),
    (
        "prism-analyze",
        ["prism", "analyze", "--axis-means", f"{FIX}/prism/table2.csv", "--bootstrap", "200"]
        + ["--weights", "h=2,if=2", "--json"],
    ),
    ("prism-audit", ["prism", "audit", "verdicts.csv", "verdicts2.csv", "--items", "50", "--json"]),
    ("raw-records", ("python", RAW_RECORDS)),
    (
        "prism-sources",
        ["prism", "sources", "--raw", "mmstar=mmstar.jsonl", "--raw", "gqa=gqa.jsonl", "--no-sample"]
        + ["--out", "items.jsonl", "--json"],
    ),
    ("import-long", ["import", "long", f"{FIX}/io/long/scores.csv", "-o", "long.parquet", "--json"]),
    ("import-wide", ["import", "wide", f"{FIX}/io/wide/mini_mmmu.csv", "-o", "wide.parquet", "--json"]),
    (
        "import-lmms-eval",
        ["import", "lmms-eval", f"{FIX}/io/lmms_eval/llava-hf__llava-1.5-7b-hf", "-o", "lmms.parquet"]
        + ["--json"],
    ),
    (
        "import-vlmevalkit",
        ["import", "vlmevalkit", f"{FIX}/io/vlmevalkit/GPT4o", "-o", "vlmeval.parquet", "--json"],
    ),
    (
        "import-aggregate",
        ["import", "aggregate", f"{FIX}/io/aggregate/leaderboard.csv", "-o", "agg.parquet", "--json"],
    ),
    ("info-imported", ["info", "long.parquet", "--json"]),
    ("report", ["report", "suite", "--json"]),
    ("demo", ["demo", "--out", "demo", "--seed", "0", "--json"]),
]

#: files written by the commands, compared byte for byte (relative to the work folder; ``.json`` files
#: after removing :data:`IGNORED_KEYS`, like the printed JSON)
FILES = [
    "suite/items.csv",
    "suite/reference_scores.csv",
    "suite/models.csv",
    "suite/frontier.csv",
    "new.csv",
    "verdicts.csv",
    "items.jsonl",
    "bank.json",
    "score-out/result.json",
    "score-out/leaderboard.csv",
    "score-out/pairs.csv",
    "score-out/domain_pscore.csv",
    "demo/summary.json",
]


def _strip(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _strip(v) for k, v in obj.items() if k not in IGNORED_KEYS}
    if isinstance(obj, list):
        return [_strip(v) for v in obj]
    return obj


def _normalise(stdout: str, checkout: Path) -> str:
    """The command's stdout as canonical JSON (ignored keys removed); the raw text when it is not JSON."""
    text = stdout.replace(str(checkout), "<checkout>")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError:
        lines = [json.loads(line) for line in text.splitlines() if line.strip().startswith("{")]
        if not lines:
            return text
        doc = lines if len(lines) > 1 else lines[0]
    return json.dumps(_strip(doc), indent=1, sort_keys=False, allow_nan=True)


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()


def run_revision(
    checkout: Path, work: Path, text: bool = False, only: set[str] | None = None
) -> dict[str, tuple[int, str]]:
    """Run every command of :data:`COMMANDS` with ``checkout``'s code in ``work``; name -> (rc, output).

    ``text``: without ``--json``, the output being stdout then stderr as printed (paths of the checkout
    replaced)."""
    fixtures = str(checkout / "tests" / "fixtures")
    env = dict(os.environ, PYTHONPATH=str(checkout / "src"), COLUMNS="120", NO_COLOR="1")
    env["BENCHSIFT_FIXTURES"] = fixtures
    env.pop("BENCHSIFT_TRACEBACK", None)
    work.mkdir(parents=True, exist_ok=True)
    results: dict[str, tuple[int, str]] = {}
    for name, cmd in COMMANDS:
        if only is not None and name not in only:
            continue
        if isinstance(cmd, tuple):
            argv = [sys.executable, "-c", cmd[1]]
        else:
            args = [a.replace(FIX, fixtures) for a in cmd if not (text and a == "--json")]
            argv = [sys.executable, "-m", "benchsift", *args]
        proc = subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True)
        if text and not isinstance(cmd, tuple):
            both = proc.stdout + "\n[stderr]\n" + proc.stderr
            results[name] = (proc.returncode, both.replace(str(checkout), "<checkout>"))
            print(f"  {name}: exit {proc.returncode}", file=sys.stderr, flush=True)
            continue
        out = _normalise(proc.stdout, checkout) if not isinstance(cmd, tuple) else proc.stdout
        if proc.returncode != 0:
            tail = proc.stderr.strip().splitlines()[-1:]  # the one-line error (or a traceback's last line)
            out += "\n[stderr] " + " ".join(tail).replace(str(checkout), "<checkout>")
        results[name] = (proc.returncode, out)
        print(f"  {name}: exit {proc.returncode}", file=sys.stderr, flush=True)
    for f in FILES if only is None else []:
        p = work / f
        text = p.read_bytes().decode("utf-8", "replace") if p.exists() else "<missing>"
        results[f"file:{f}"] = (0, _normalise(text, checkout) if f.endswith(".json") else text)
    return results


def _checkout(rev: str, where: Path) -> Path:
    if rev == "WORKTREE":
        return ROOT
    _git("worktree", "add", "--detach", str(where), rev)
    return where


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default=None, help="Base revision (default: merge-base of main and HEAD).")
    parser.add_argument("--head", default="HEAD", help="Revision to compare (default HEAD; WORKTREE).")
    parser.add_argument("--text", action="store_true", help="Compare the text output (no --json).")
    parser.add_argument(
        "--only", default=None, help="Comma-separated command names to run (include the ones they read)."
    )
    parser.add_argument("--keep", type=Path, default=None, help="Keep the work folders under this folder.")
    args = parser.parse_args(argv)
    base = args.base or _git("merge-base", "main", "HEAD")
    revs = {"base": base, "head": args.head}
    shas = {k: (v if v == "WORKTREE" else _git("rev-parse", v)) for k, v in revs.items()}
    tmp = Path(tempfile.mkdtemp(prefix="compare-cli-json-"))
    outputs: dict[str, dict[str, tuple[int, str]]] = {}
    try:
        for side, rev in revs.items():
            print(f"{side}: {shas[side]}", file=sys.stderr, flush=True)
            checkout = _checkout(rev, tmp / f"checkout-{side}")
            only = set(args.only.split(",")) if args.only else None
            outputs[side] = run_revision(checkout, (args.keep or tmp) / f"work-{side}", args.text, only)
    finally:
        for side, rev in revs.items():
            if rev != "WORKTREE" and (tmp / f"checkout-{side}").exists():
                _git("worktree", "remove", "--force", str(tmp / f"checkout-{side}"))
        shutil.rmtree(tmp, ignore_errors=True)
    differ = 0
    for name in outputs["base"]:
        a, b = outputs["base"][name], outputs["head"].get(name, (-1, "<missing>"))
        if a == b:
            continue
        differ += 1
        print(f"--- {name}: exit {a[0]} (base) vs {b[0]} (head)")
        sys.stdout.writelines(
            difflib.unified_diff(
                a[1].splitlines(True), b[1].splitlines(True), f"base/{name}", f"head/{name}", n=2
            )
        )
        print()
    total = len(outputs["base"])
    failed = [n for n, (rc, _) in outputs["head"].items() if rc != 0]
    print(
        f"{total - differ} of {total} outputs identical between {shas['base'][:12]} and {shas['head'][:12]}"
        + (f"; non-zero exits at head: {failed}" if failed else "")
    )
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
