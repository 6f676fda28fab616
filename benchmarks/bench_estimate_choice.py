"""Which full-score estimator the cross-validation chooses, against the best one in hindsight (issue 31).

Run (from the repository root; ``nice`` on a shared machine)::

    .venv/bin/python benchmarks/bench_estimate_choice.py --panel zeroeval_gsm.parquet --seeds 3 \\
        --retentions 0.02,0.05,0.1 --selector estimate

The splits are those of ``bench_estimate_peers.py`` (random 60 / 40, ``default_rng(seed)``; the same
``compress`` then ``estimate`` library calls, :func:`bench_estimate_peers.benchsift_estimate`'s). Printed per
seed and retention: the estimator chosen (``method``), the *oracle* (the candidate of every estimator
benchsift computes with the least MAE on the held-out models, known only with their truth), every
estimator's MAE against the truth (the headline's row is the chosen method's, after the edge models' own
estimates), the plain mean over ``n`` random items (``RANDOM``, the seeded draw of ``bench_estimate_peers``),
and the headline's signed error (estimate minus truth) split into the held-out models at the edge of the build
models' abilities and the others. A diagnostic: it reports where the choice goes wrong, it judges nothing.
"""

from __future__ import annotations

import argparse
import tempfile
import warnings
from pathlib import Path

import numpy as np
from bench_estimate_peers import full_score, split_models, suite_and_estimate

from benchsift.panel import Panel


def _nanmean(x: np.ndarray) -> float:
    return float(np.mean(x[np.isfinite(x)])) if np.isfinite(x).any() else float("nan")


def one_cell(panel: Panel, seed: int, retention: float, selector: str, workdir: Path) -> str:
    """One line: chosen vs oracle estimator, every estimator's MAE, the headline's bias at / off the edge."""
    b_idx, h_idx = split_models(panel, "random", seed)
    build, held = panel.subset(models=b_idx), panel.subset(models=h_idx)
    truth = full_score(held)
    result, est = suite_and_estimate(
        build, held, retention, seed, workdir / f"suite-{retention:g}-{seed}", selector
    )
    full = est.full
    assert full is not None
    rows = [est.models.index(m) for m in held.model_ids]
    n = int(result.suite_items.size)
    rng = np.random.default_rng(np.random.SeedSequence([seed, 7]))
    items = np.sort(rng.choice(panel.n_items, size=n, replace=False))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        rand = np.nanmean(held.scores[:, items], axis=1)
    mae = {m: _nanmean(np.abs(np.asarray(v)[rows, -1] - truth)) for m, v in full.score.items()}
    oracle = min(mae, key=lambda m: mae[m])
    mae["RANDOM"] = _nanmean(np.abs(rand - truth))
    err = np.asarray(full.score[full.method])[rows, -1] - truth
    edge = np.zeros(len(rows), dtype=bool) if full.at_edge is None else np.asarray(full.at_edge)[rows]
    ranked = " ".join(f"{m}={v:.4f}" for m, v in sorted(mae.items(), key=lambda kv: kv[1]))
    return (
        f"seed {seed} {retention:>4.0%} n={n:<4} chosen {full.method:<8} oracle {oracle:<10} | {ranked}\n"
        f"    headline bias: edge ({int(edge.sum())}/{edge.size}) {_nanmean(err[edge]):+.4f}, "
        f"others {_nanmean(err[~edge]):+.4f}; MAE edge {_nanmean(np.abs(err[edge])):.4f}, "
        f"others {_nanmean(np.abs(err[~edge])):.4f}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--panel", required=True, help="a real one-benchmark panel")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--retentions", default="0.02,0.05,0.1")
    ap.add_argument("--selector", default="estimate")
    args = ap.parse_args()
    panel = Panel.load(args.panel)
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(args.seeds):
            for r in (float(x) for x in args.retentions.split(",")):
                print(one_cell(panel, seed, r, args.selector, Path(tmp)), flush=True)


if __name__ == "__main__":
    main()
