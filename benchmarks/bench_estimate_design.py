"""The estimate suite's two designs side by side, and what their cross-validation says (issue 31).

Run (from the repository root; ``nice`` on a shared machine; 1-4 min per seed on a VLM panel)::

    .venv/bin/python benchmarks/bench_estimate_design.py --panel mmt.parquet \\
        --reference ../shared/reference --seeds 3 --retentions 0.02,0.05,0.1 [--jsonl out.jsonl]

For each random 60 / 40 split of ``bench_estimate_peers`` (``default_rng(seed)``) and item count ``n =
int(retention * n_items)``: the suite of :func:`~benchsift.compression.selectors.estimation.estimation_items`
with half its budget in strata (information strata, half of them difficulty strata where the build models
show a guessing floor: ``compress --selector estimate``'s Stage 2 design) and with
correctness anchors only (``info_share=0``), each with the full-score estimators fitted on the build models
and re-chosen in every fold (``fit_full_score(..., reselect=...)``, as ``compress`` does). Printed per design:
the held-out models' MAE of the average and of the stack, their cross-validated error
(:meth:`~benchsift.compression.full_score.FullScoreModel.selection_error`), and tinyBenchmarks' gp-IRT and a
random subset of ``n`` items on the same split. A diagnostic of the choice ``compress`` makes between the two
(``pipeline.ESTIMATE_DESIGNS``), without Stages 0-3 (so ``n`` counts the raw pool); the acceptance numbers
come from ``bench_estimate_peers.py``.
"""

from __future__ import annotations

import argparse
import json
import warnings
from typing import Any

import numpy as np
from _data import load_reference
from bench_estimate_peers import full_score, split_models

from benchsift.compression.full_score import fit_full_score
from benchsift.compression.selectors.estimation import estimation_items
from benchsift.panel import Panel

DESIGNS = {"half": 0.5, "anchors": 0.0}


def one_cell(panel: Panel, ref: Any, seed: int, retention: float) -> dict[str, Any]:
    """Both designs and the peers on one split and item count."""
    b, h = split_models(panel, "random", seed)
    build, held = panel.subset(models=b), panel.subset(models=h)
    truth = full_score(held)
    n = int(retention * panel.n_items)

    def mae(est: np.ndarray) -> float:
        return float(np.nanmean(np.abs(est - truth)))

    tb = ref.TinyBench(build.scores, seed)
    anchors, w, lam, _ = tb.fit_retention(n)
    items = np.sort(
        np.random.default_rng(np.random.SeedSequence([seed, 7])).choice(panel.n_items, n, replace=False)
    )
    rec: dict[str, Any] = {"seed": seed, "retention": retention, "n": n}
    rec["gpirt"] = mae(tb.predict(held.scores[:, anchors], anchors, w, lam)["gpirt"])
    rec["random"] = mae(np.nanmean(held.scores[:, items], axis=1))
    for name, share in DESIGNS.items():

        def reselect(x: np.ndarray, share: float = share) -> np.ndarray:
            return estimation_items(x, n, random_state=seed, info_share=share)[0]

        pos = reselect(build.scores)
        fs = fit_full_score(build, pos, random_state=seed, reselect=reselect)
        est = fs.predict(held.scores[:, pos])
        for m in ("average", "stack"):
            rec[f"{name}_{m}"] = mae(np.asarray(est.score[m])[:, -1])
            rec[f"{name}_{m}_cv"] = fs.selection_error(m)
    return rec


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--panel", required=True, help="a real one-benchmark panel")
    ap.add_argument("--reference", required=True, help="folder of tinybench_ref.py")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--retentions", default="0.02,0.05,0.1")
    ap.add_argument("--jsonl", help="also append each cell's numbers to this file")
    args = ap.parse_args()
    panel, ref = Panel.load(args.panel), load_reference(args.reference)
    warnings.simplefilter("ignore")
    for seed in range(args.seeds):
        for r in (float(x) for x in args.retentions.split(",")):
            rec = one_cell(panel, ref, seed, r)
            cells = " | ".join(
                f"{d}: avg {rec[f'{d}_average']:.4f} (cv {rec[f'{d}_average_cv']:.4f}) "
                f"stack {rec[f'{d}_stack']:.4f} (cv {rec[f'{d}_stack_cv']:.4f})"
                for d in DESIGNS
            )
            peers = f"gp-IRT {rec['gpirt']:.4f} random {rec['random']:.4f}"
            print(f"seed {seed} {r:>4.0%} n={rec['n']:<4} {peers} | {cells}", flush=True)
            if args.jsonl:
                with open(args.jsonl, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps(rec) + "\n")


if __name__ == "__main__":
    main()
