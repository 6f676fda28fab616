"""The stratified mean of edge models, off and on, on the same suites (issue 31, strongest-40 % split).

Run (from the repository root; the panels are real ones written by ``benchsift import wide``)::

    nice .venv/bin/python benchmarks/bench_edge_stratified.py --panel mmt.parquet --seed 0 \\
        --retentions 0.02,0.05,0.1 --work /tmp/edge_suites

Per retention: ``compress --retention R --floor 0 --seed S --selector estimate`` on the weakest 60 % of the
models by mean score (the split and the compress call of ``bench_estimate_peers.py --splits strongest``,
which this imports), then ``estimate`` of the strongest 40 % twice in one process, with
``full_score.EDGE_STRATIFIED_UPPER`` and ``EDGE_STRATIFIED_BLEND`` off (the estimate as before them) and on.
Printed: the headline's MAE and bias, the 95 % coverage and mean width of each, and the MAE of a random item
subset of the suite's size (drawn as ``bench_estimate_peers.py`` draws it: ``SeedSequence([seed, 7])``, one
draw per retention in order). The suites are kept under ``--work`` (``NAME-R-S``) and reused when there, so a
slow panel is compressed once. It does not run gp-IRT or the CAT: take those from ``bench_estimate_peers.py``
(the "off" numbers reproduce its benchsift column to the digit).
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import numpy as np
from bench_estimate_peers import full_score, split_models

import benchsift.compression.full_score as fs_mod
from benchsift.compression import CompressionConfig, estimate_new_models
from benchsift.compression.suite import load_suite
from benchsift.panel import Panel
from benchsift.workflows.compress import compress_to_suite


def one(held: Panel, suite_dir: Path, on: bool) -> tuple[float, float, float, float, float]:
    """``(MAE, bias, coverage, mean width, share at the edge)`` of the headline with the settings ``on``."""
    truth = full_score(held)
    fs_mod.EDGE_STRATIFIED_UPPER = fs_mod.EDGE_STRATIFIED_BLEND = on
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = estimate_new_models(suite_dir, held, n_boot=20)
    f = est.full
    assert f is not None and f.at_edge is not None
    rows = [est.models.index(m) for m in held.model_ids]
    s, lo, hi = (v[f.method][rows, -1] for v in (f.score, f.low, f.high))
    return (
        float(np.mean(np.abs(s - truth))),
        float(np.mean(s - truth)),
        float(np.mean((lo <= truth) & (truth <= hi))),
        float(np.mean(hi - lo)),
        float(np.mean(f.at_edge[rows])),
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--panel", required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--retentions", default="0.02,0.05,0.1")
    ap.add_argument("--work", required=True, help="folder for the suites (kept and reused)")
    args = ap.parse_args()
    panel = Panel.load(args.panel).image_panel()
    name = Path(args.panel).stem
    b_idx, h_idx = split_models(panel, "strongest", args.seed)
    build, held = panel.subset(models=b_idx), panel.subset(models=h_idx)
    truth = full_score(held)
    rng = np.random.default_rng(np.random.SeedSequence([args.seed, 7]))
    for r in [float(x) for x in args.retentions.split(",")]:
        out = Path(args.work) / f"{name}-{r:g}-{args.seed}"
        if not (out / "full_score.json").exists():
            cfg = CompressionConfig(retention=r, floor=0, random_state=args.seed, selector="estimate")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                compress_to_suite(build, out, cfg)
        n = load_suite(out).n_items
        items = rng.choice(panel.n_items, size=n, replace=False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            rand = float(np.nanmean(np.abs(np.nanmean(held.scores[:, items], axis=1) - truth)))
        off, on = one(held, out, False), one(held, out, True)
        print(
            f"{name} seed {args.seed} {r:g} ({n} items): MAE {off[0]:.4f} -> {on[0]:.4f} (random subset "
            f"{rand:.4f}), bias {off[1]:+.4f} -> {on[1]:+.4f}, coverage {off[2]:.2f} -> {on[2]:.2f}, width "
            f"{off[3]:.3f} -> {on[3]:.3f}, at the edge {on[4]:.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
