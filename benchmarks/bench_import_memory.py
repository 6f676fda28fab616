"""Peak memory of the importers and ``info`` against the panel's size, beside pandas' plain ``read_csv``.

Issue 17 target: ``import wide`` of a 2,000-model x 50,000-item CSV under 1.5 GB peak RSS; a 10-million-row
long CSV within a small multiple of its panel and below pandas' ``read_csv`` of the same file; ``info`` on
the imported panels. Every step runs in its own fresh subprocess (``python -c``), and its peak is that
child's maximum resident set (``resource.getrusage(RUSAGE_CHILDREN)`` read after it exits, through a
one-child wrapper so that each figure is one process's own), so no step inherits another's heap; its CPU
time (user + system, all threads) from the same call. ``benchsift read_wide`` is the reader alone (what
``pandas.read_csv`` does: a file into memory), ``benchsift import wide`` the command (imports, reader, the
panel's parquet file written). The
interpreter with benchsift and pandas imported and nothing read is measured too (``baseline``), and
``import long`` / ``info`` of a one-row file: the commands' constant, to read the growth against.

Inputs (written once into ``--inputs DIR``, kept for later runs, or a temporary folder):

* wide: one row per item (``item`` column, then one column per model), the layout of VLMEvalKit-derived
  per-item tables; ``--models`` x ``--items`` (default 2,000 x 50,000, about 200 MB; 0/1 scores, 3 % of
  the cells empty; read by the wide reader's byte path);
* wide-frac: the same layout with partial-credit cells ``0``, ``0.25``, ``0.5``, ``0.75``, ``1`` or empty
  (about 350 MB; read by pyarrow's parser, as any file whose cells are not single digits);
* long: ``model, benchmark, item, score``, ``--long-rows`` rows (default 10 million: 1,000 models x 10,000
  items in two benchmarks, model by model, 0/1 scores, about 140 MB);
* long-meta: the same rows with metadata columns ``question`` (a text per item), ``family`` and
  ``release_date`` (per model): the layout of a long export with item and model metadata (about 610 MB at
  10 million rows);
* long-pred: the long rows with a ``prediction`` column holding a different 40-character answer in every
  row (a long export with the models' free-text answers; about 550 MB at 10 million rows), imported with
  the answers only counted, and with ``--answers-out`` (the answers table, which holds every text);
* lm-eval: a folder of lm-evaluation-harness logs, one per model (``results_*.json`` and a
  ``samples_arith_gen_*.jsonl`` of 5,000 documents; ``--long-rows`` / 5,000,000 x 1,000 models): the lines
  of the real fixture ``tests/fixtures/io/lm_eval/real`` (written by lm-eval 0.4.13) with their ``doc_id``,
  ``qid`` and ``exact_match`` varied; imported with ``--filter strict-match`` (half the lines).

``--before-src DIR`` also runs every ``benchsift`` step with ``PYTHONPATH=DIR`` (a ``src`` folder of an
earlier commit: ``git archive COMMIT src | tar -x -C /tmp/before`` gives ``/tmp/before/src``), each right
after the current code's, so both see the same load; those rows end in ``[before]``.

The panel's size is its float64 score matrix (models x items x 8 bytes), the least any reader that hands
out a float64 panel holds. Run: ``python benchmarks/bench_import_memory.py [--models 2000] [--items 50000]
[--long-rows 10000000] [--steps A,B] [--repeats N] [--inputs DIR] [--before-src DIR] [--json FILE]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from _timing import machine_line

WRAP = """
import resource, subprocess, sys, time
t = time.perf_counter()
rc = subprocess.run([sys.executable, "-c", sys.argv[1]]).returncode
wall = time.perf_counter() - t
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(r.ru_maxrss * 1024, wall, r.ru_utime + r.ru_stime, rc)
"""

STEPS = {
    "baseline (imports only)": "import pandas; from benchsift.cli.main import app",
    "pandas.read_csv wide": "import pandas as pd; pd.read_csv({wide!r})",
    "benchsift read_wide": "from benchsift.io.wide import read_wide; read_wide({wide!r})",
    "benchsift import wide": (
        "from benchsift.cli.main import main; import sys;"
        " sys.argv=['benchsift','import','wide',{wide!r},'-o',{wide_out!r},'--json']; main()"
    ),
    "pandas.read_csv wide-frac": "import pandas as pd; pd.read_csv({wide_frac!r})",
    "benchsift read_wide wide-frac": "from benchsift.io.wide import read_wide; read_wide({wide_frac!r})",
    "benchsift import wide-frac": (
        "from benchsift.cli.main import main; import sys;"
        " sys.argv=['benchsift','import','wide',{wide_frac!r},'-o',{wide_frac_out!r},'--json']; main()"
    ),
    "benchsift info (wide panel)": (
        "from benchsift.cli.main import main; import sys;"
        " sys.argv=['benchsift','info',{wide_out!r},'--json']; main()"
    ),
    "pandas.read_csv long": "import pandas as pd; pd.read_csv({long!r})",
    "pandas.read_csv+pivot long": (
        "import pandas as pd; d = pd.read_csv({long!r}, dtype={{'item': str}});"
        " d.pivot(index='model', columns=['benchmark', 'item'], values='score').to_numpy(dtype=float)"
    ),
    "benchsift import long": (
        "from benchsift.cli.main import main; import sys;"
        " sys.argv=['benchsift','import','long',{long!r},'-o',{long_out!r},'--json']; main()"
    ),
    "benchsift info (long panel)": (
        "from benchsift.cli.main import main; import sys;"
        " sys.argv=['benchsift','info',{long_out!r},'--json']; main()"
    ),
    "pandas.read_csv long-meta": "import pandas as pd; pd.read_csv({long_meta!r})",
    "benchsift import long-meta": (
        "from benchsift.cli.main import main; import sys;"
        " sys.argv=['benchsift','import','long',{long_meta!r},'-o',{long_meta_out!r},'--json']; main()"
    ),
    "pandas.read_csv long-pred": "import pandas as pd; pd.read_csv({long_pred!r})",
    "benchsift import long-pred": (
        "from benchsift.cli.main import main; import sys;"
        " sys.argv=['benchsift','import','long',{long_pred!r},'-o',{long_pred_out!r},'--json']; main()"
    ),
    "benchsift import long-pred --answers-out": (
        "from benchsift.cli.main import main; import sys; sys.argv=['benchsift','import','long',"
        "{long_pred!r},'-o',{long_pred_out!r},'--answers-out',{answers_out!r},'--json']; main()"
    ),
    "benchsift import lm-eval": (
        "from benchsift.cli.main import main; import sys; sys.argv=['benchsift','import','lm-eval',"
        "{lm_eval!r},'-o',{lm_eval_out!r},'--filter','strict-match','--json']; main()"
    ),
    "benchsift import long (1 row)": (
        "from benchsift.cli.main import main; import sys;"
        " sys.argv=['benchsift','import','long',{tiny!r},'-o',{tiny_out!r},'--json']; main()"
    ),
    "benchsift info (1-row panel)": (
        "from benchsift.cli.main import main; import sys;"
        " sys.argv=['benchsift','info',{tiny_out!r},'--json']; main()"
    ),
}


def write_wide(path: Path, n_models: int, n_items: int, seed: int, fractions: bool = False) -> None:
    """Items as rows: ``item,m0000,...``; cells ``0``, ``1`` or empty (3 %), written in blocks of rows;
    with ``fractions``, partial credit ``0``, ``0.25``, ``0.5``, ``0.75``, ``1`` or empty instead."""
    rng = np.random.default_rng(seed)
    texts = [b"0", b"0.25", b"0.5", b"0.75", b"1"] if fractions else [b"0", b"1"]
    values = np.array([*texts, b""], dtype=object)
    with open(path, "wb") as fh:
        fh.write(("item," + ",".join(f"m{j:04d}" for j in range(n_models)) + "\n").encode())
        for start in range(0, n_items, 2000):
            stop = min(n_items, start + 2000)
            if fractions:
                codes = rng.integers(0, len(texts), size=(stop - start, n_models)).astype(np.int8)
            else:
                codes = (rng.random((stop - start, n_models)) < 0.6).astype(np.int8)
            codes[rng.random(codes.shape) < 0.03] = len(texts)
            cells = values[codes]
            lines = (b"q%d," % (start + i) + b",".join(row) + b"\n" for i, row in enumerate(cells.tolist()))
            fh.write(b"".join(lines))


LONG_MODELS = 1000


def write_long(
    path: Path, n_rows: int, seed: int, extra: str = "", tail: Callable[[int, int, str], str] | None = None
) -> tuple[int, int]:
    """``model,benchmark,item,score``: :data:`LONG_MODELS` models x ``n_rows // LONG_MODELS`` items (two
    benchmarks), model by model, scores 0/1; ``extra`` (``",question,family"``) names more columns and
    ``tail(model, item, score)`` gives each row's text of them (from its leading comma)."""
    n_models = LONG_MODELS
    n_items = n_rows // n_models
    rng = np.random.default_rng(seed)
    bench = np.where(np.arange(n_items) < n_items // 2, "A", "B")
    with open(path, "w") as fh:
        fh.write(f"model,benchmark,item,score{extra}\n")
        for m in range(n_models):
            s = (rng.random(n_items) < 0.6).astype(int).astype(str)
            rows = enumerate(zip(bench, s, strict=True))
            if tail is None:
                fh.write("".join(f"m{m},{b},{i},{v}\n" for i, (b, v) in rows))
            else:
                fh.write("".join(f"m{m},{b},{i},{v}{tail(m, i, v)}\n" for i, (b, v) in rows))
    return n_models, n_items


def write_long_meta(path: Path, n_rows: int, seed: int) -> tuple[int, int]:
    """:func:`write_long`'s rows with ``question`` (per item), ``family`` and ``release_date`` (per model)."""

    def tail(m: int, i: int, v: str) -> str:
        return f",what does image {i} show?,family-{m % 25},2024-{1 + m % 12:02d}-{1 + m % 28:02d}"

    return write_long(path, n_rows, seed, ",question,family,release_date", tail)


def write_long_pred(path: Path, n_rows: int, seed: int) -> tuple[int, int]:
    """:func:`write_long`'s rows with a ``prediction``: a different answer text in every row."""
    return write_long(
        path, n_rows, seed, ",prediction", lambda m, i, v: f",the answer of model {m} to item {i} is {v}"
    )


LM_EVAL_FIXTURE = Path(__file__).resolve().parents[1] / "tests/fixtures/io/lm_eval/real/logs/tree/org__beta"
LM_EVAL_STAMP = "2026-12-01T12-09-01.322052"
LM_EVAL_DOCS = 5000


def write_lm_eval(folder: Path, n_models: int, seed: int) -> None:
    """``n_models`` lm-eval log folders of :data:`LM_EVAL_DOCS` samples each (see the module docstring)."""
    lines = (LM_EVAL_FIXTURE / f"samples_arith_gen_{LM_EVAL_STAMP}.jsonl").read_text().splitlines()
    base = [json.loads(line) for line in lines if line.strip()]
    results = json.loads((LM_EVAL_FIXTURE / f"results_{LM_EVAL_STAMP}.json").read_text())
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True)
    for m in range(n_models):
        name = f"org/model{m:04d}"
        d = folder / name.replace("/", "__")
        d.mkdir()
        config = {**results.get("config", {}), "model_args": f"pretrained={name}"}
        (d / f"results_{LM_EVAL_STAMP}.json").write_text(
            json.dumps({**results, "model_name": name, "config": config})
        )
        scores = (rng.random(LM_EVAL_DOCS) < 0.6).astype(float)
        with open(d / f"samples_arith_gen_{LM_EVAL_STAMP}.jsonl", "w") as fh:
            for i in range(LM_EVAL_DOCS):
                rec = json.loads(json.dumps(base[i % len(base)]))
                rec["doc_id"], rec["exact_match"] = i, scores[i]
                rec["doc"]["qid"] = f"q{i}"
                fh.write(json.dumps(rec) + "\n")


def kind_of(step: str) -> str:
    """Which input a step reads: ``wide``, ``wide-frac``, ``long``, ``long-meta``, ``long-pred``,
    ``lm-eval``, ``1-row`` or ``""``."""
    kinds = ("1-row", "1 row", "long-meta", "long-pred", "lm-eval", "long", "wide-frac", "wide")
    return next((k for k in kinds if k in step), "").replace(" ", "-")


def measure(code: str, src: Path | None = None) -> tuple[float, float, float]:
    """Peak RSS (GB), wall seconds and CPU seconds (user + system, all threads) of one step's process."""
    env = None if src is None else {**os.environ, "PYTHONPATH": str(src)}
    out = subprocess.run(
        [sys.executable, "-c", WRAP, code], capture_output=True, text=True, check=True, env=env
    ).stdout.split()
    rss, wall, cpu, rc = int(out[-4]), float(out[-3]), float(out[-2]), int(out[-1])
    if rc != 0:
        raise SystemExit(f"step failed (exit {rc}): {code}")
    return rss / 1e9, wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=int, default=2000)
    ap.add_argument("--items", type=int, default=50000)
    ap.add_argument("--long-rows", type=int, default=10_000_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--steps", default=",".join(STEPS), help="comma-separated subset of the steps")
    ap.add_argument(
        "--repeats", type=int, default=1, help="runs of the whole list of steps (min and median printed)"
    )
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument(
        "--before-src", type=Path, default=None, help="also run the benchsift steps from this source folder"
    )
    ap.add_argument(
        "--inputs",
        type=Path,
        default=None,
        help="folder for the input CSVs, kept between runs (written when missing; default a temporary one)",
    )
    args = ap.parse_args()
    print(machine_line())
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        inputs = args.inputs or folder
        inputs.mkdir(parents=True, exist_ok=True)
        tag = f"s{args.seed}"
        wide = inputs / f"wide-{args.models}x{args.items}-{tag}.csv"
        wide_frac = inputs / f"wide-frac-{args.models}x{args.items}-{tag}.csv"
        long = inputs / f"long-{args.long_rows}-{tag}.csv"
        long_meta = inputs / f"long-meta-{args.long_rows}-{tag}.csv"
        long_pred = inputs / f"long-pred-{args.long_rows}-{tag}.csv"
        n_lm = max(1, args.long_rows // 5000)
        lm_eval = inputs / f"lm-eval-{n_lm}x{LM_EVAL_DOCS}-{tag}"
        t = time.perf_counter()
        steps = args.steps.split(",")
        lm, li = LONG_MODELS, args.long_rows // LONG_MODELS
        writers: list[tuple[str, Path, Callable[[Path], object]]] = [
            ("wide", wide, lambda out: write_wide(out, args.models, args.items, args.seed)),
            ("wide-frac", wide_frac, lambda out: write_wide(out, args.models, args.items, args.seed, True)),
            ("long", long, lambda out: write_long(out, args.long_rows, args.seed)),
            ("long-meta", long_meta, lambda out: write_long_meta(out, args.long_rows, args.seed)),
            ("long-pred", long_pred, lambda out: write_long_pred(out, args.long_rows, args.seed)),
            ("lm-eval", lm_eval, lambda out: write_lm_eval(out, n_lm, args.seed)),
        ]
        for kind, target, write in writers:  # each input once, written under a temporary name
            if any(kind_of(name) == kind for name in steps) and not target.exists():
                write(target.with_suffix(".part"))
                target.with_suffix(".part").rename(target)
        mb = {
            k: f"{v.stat().st_size / 1e6:.0f} MB" if v.exists() else "-"
            for k, v in (("w", wide), ("l", long), ("m", long_meta), ("p", long_pred))
        }
        print(
            f"inputs ready in {time.perf_counter() - t:.0f} s: wide {mb['w']} ({args.models} x {args.items}),"
            f" long {mb['l']}, long-meta {mb['m']}, long-pred {mb['p']} ({lm * li:,} rows)"
        )
        tiny = folder / "tiny.csv"
        tiny.write_text("model,benchmark,item,score\nm0,A,0,1\n")

        def paths(tag: str) -> dict[str, str]:
            return {
                "wide": str(wide),
                "wide_frac": str(wide_frac),
                "wide_frac_out": str(folder / f"wide-frac{tag}.parquet"),
                "long": str(long),
                "long_meta": str(long_meta),
                "long_meta_out": str(folder / f"long-meta{tag}.parquet"),
                "long_pred": str(long_pred),
                "long_pred_out": str(folder / f"long-pred{tag}.parquet"),
                "answers_out": str(folder / f"answers{tag}.parquet"),
                "lm_eval": str(lm_eval),
                "lm_eval_out": str(folder / f"lm-eval{tag}.parquet"),
                "tiny": str(tiny),
                "wide_out": str(folder / f"wide{tag}.parquet"),
                "long_out": str(folder / f"long{tag}.parquet"),
                "tiny_out": str(folder / f"tiny{tag}.parquet"),
            }

        sizes = {
            "wide": args.models * args.items * 8 / 1e9,
            "wide-frac": args.models * args.items * 8 / 1e9,
            "long": lm * li * 8 / 1e9,
            "long-meta": lm * li * 8 / 1e9,
            "long-pred": lm * li * 8 / 1e9,
            "lm-eval": n_lm * LM_EVAL_DOCS / 2 * 8 / 1e9,  # strict-match: half the documents are items
            "1-row": 8e-9,
        }
        rows = []
        for name in [n for _ in range(args.repeats) for n in steps]:
            runs: list[tuple[str, Path | None, str]] = [(name, None, "")]
            if args.before_src is not None and name.startswith("benchsift"):
                runs.append((f"{name} [before]", args.before_src, "-before"))
            for label, src, tag in runs:
                rss, wall, cpu = measure(STEPS[name].format(**paths(tag)), src)
                kind = kind_of(name)
                panel = sizes.get(kind, float("nan"))
                rows.append(
                    {
                        "step": label,
                        "peak_rss_gb": rss,
                        "seconds": wall,
                        "cpu_seconds": cpu,
                        "panel_gb": panel,
                    }
                )
                ratio = f"{rss / panel:.2f}x panel" if kind not in ("", "1-row") else ""
                line = (
                    f"{label:41s} peak RSS {rss:5.2f} GB  {wall:6.1f} s  CPU {cpu:6.1f} s"
                    f"  panel {panel:.2g} GB  {ratio}"
                )
                print(line, flush=True)
        if args.repeats > 1:
            for label in dict.fromkeys(r["step"] for r in rows):
                cpu_s = [r["cpu_seconds"] for r in rows if r["step"] == label]
                rss_s = [r["peak_rss_gb"] for r in rows if r["step"] == label]
                print(
                    f"{label:41s} CPU min {min(cpu_s):6.1f} s  median {float(np.median(cpu_s)):6.1f} s"
                    f"  peak RSS min {min(rss_s):5.2f} GB"
                )
        print(machine_line())
        if args.json:
            args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
