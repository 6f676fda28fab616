"""How much the bootstrap intervals widen when items share images, and what their coverage is (issue 18).

A *population* of items is simulated once per setting (``simulate_panel`` with ``items_per_image`` items
per shared image, a shared difficulty offset ``image_difficulty_sd`` and a model x image logit effect
``image_response_sd``); a model's true score is its mean over the whole population. Each replicate draws a
benchmark of ``--images`` images from it (without replacement, a small fraction of the population) and
builds, for every model, the 95 % percentile interval of its mean score with the item bootstrap
(:func:`benchsift.stats.bootstrap_weights`) and with the cluster bootstrap over images
(:func:`benchsift.stats.cluster_bootstrap_weights`), and the same for every pairwise difference (the
paired intervals PRISM's separation test reads). Printed per setting: the mean width ratio cluster / item
and the coverage of the true values over replicates x models (x pairs).

Run: ``python benchmarks/bench_cluster_coverage.py`` (about a minute on 2 cores; ``--quick`` for fewer
replicates).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import numpy as np

from benchsift.simulate import SimulationConfig, simulate_panel
from benchsift.stats import bootstrap_weights, cluster_bootstrap_weights, percentile_ci


@dataclass(frozen=True)
class Setting:
    name: str
    items_per_image: int
    image_difficulty_sd: float
    image_response_sd: float


SETTINGS = (
    Setting("independent items (1 per image)", 1, 0.0, 0.0),
    Setting("4 per image, shared difficulty sd 0.8", 4, 0.8, 0.0),
    Setting("4 per image, difficulty 0.8 + model x image sd 1.0", 4, 0.8, 1.0),
    Setting("8 per image, difficulty 0.8 + model x image sd 1.0", 8, 0.8, 1.0),
)


def population(setting: Setting, n_models: int, n_items: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(scores (M, N) binary, image id per item) of one simulated population (one benchmark)."""
    cfg = SimulationConfig.small(
        n_models=n_models,
        n_benchmarks=1,
        n_categories=1,
        items_per_benchmark=n_items,
        min_items_per_benchmark=n_items,
        graded_fraction=0.0,
        all_correct_rate=0.0,
        blind_solvable_rate=0.0,
        n_text_only_models=0,
        missing_rate=0.0,
        items_per_image=setting.items_per_image,
        image_difficulty_sd=setting.image_difficulty_sd,
        image_response_sd=setting.image_response_sd,
    )
    sim = simulate_panel(cfg, seed)
    image = sim.truth.item_image if sim.truth.item_image is not None else np.arange(sim.panel.n_items)
    return np.asarray(sim.panel.scores), np.asarray(image)


def coverage(
    scores: np.ndarray, image: np.ndarray, n_images: int, n_reps: int, n_boot: int, seed: int
) -> dict[str, float]:
    """Width ratio and coverage of the item and cluster bootstrap intervals over ``n_reps`` benchmarks."""
    rng = np.random.default_rng(seed)
    truth = scores.mean(axis=1)
    M = scores.shape[0]
    j, k = np.triu_indices(M, 1)
    images = np.unique(image)
    hits = {"iid": 0, "cluster": 0, "iid_diff": 0, "cluster_diff": 0}
    widths = {"iid": 0.0, "cluster": 0.0}
    for _ in range(n_reps):
        picked = rng.choice(images, size=n_images, replace=False)
        cols = np.flatnonzero(np.isin(image, picked))
        X = scores[:, cols].T  # (n, M)
        for kind in ("iid", "cluster"):
            if kind == "iid":
                W = bootstrap_weights(cols.size, n_boot, rng)
            else:
                W = cluster_bootstrap_weights(image[cols], n_boot, rng)
            boot = (W @ X) / W.sum(axis=1, keepdims=True)  # (B, M) replicate means
            lo, hi = percentile_ci(boot, 0.95, axis=0)
            hits[kind] += int(((lo <= truth) & (truth <= hi)).sum())
            widths[kind] += float((hi - lo).mean())
            dlo, dhi = percentile_ci(boot[:, j] - boot[:, k], 0.95, axis=0)
            d = truth[j] - truth[k]
            hits[f"{kind}_diff"] += int(((dlo <= d) & (d <= dhi)).sum())
    return {
        "width_ratio": widths["cluster"] / widths["iid"],
        "coverage_iid": hits["iid"] / (n_reps * M),
        "coverage_cluster": hits["cluster"] / (n_reps * M),
        "coverage_diff_iid": hits["iid_diff"] / (n_reps * j.size),
        "coverage_diff_cluster": hits["cluster_diff"] / (n_reps * j.size),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=int, default=12)
    ap.add_argument("--population-images", type=int, default=4000)
    ap.add_argument("--images", type=int, default=100, help="images per simulated benchmark")
    ap.add_argument("--reps", type=int, default=400)
    ap.add_argument("--boot", type=int, default=500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="100 replicates, 300 resamples")
    args = ap.parse_args()
    reps, boot = (100, 300) if args.quick else (args.reps, args.boot)
    print(
        f"{args.models} models; population {args.population_images} images per setting; benchmarks of "
        f"{args.images} images; {reps} replicates x {boot} bootstrap resamples; seed {args.seed}; 95 % "
        "percentile intervals"
    )
    header = (
        f"{'setting':<52} {'items':>5} {'width':>6} {'cover':>6} {'cover':>7} {'diff':>6} {'diff':>7}\n"
        f"{'':<52} {'':>5} {'ratio':>6} {'iid':>6} {'cluster':>7} {'iid':>6} {'cluster':>7}"
    )
    print(header)
    for s in SETTINGS:
        n_items = args.population_images * s.items_per_image
        scores, image = population(s, args.models, n_items, args.seed)
        r = coverage(scores, image, args.images, reps, boot, args.seed + 1)
        print(
            f"{s.name:<52} {args.images * s.items_per_image:>5} {r['width_ratio']:>6.2f} "
            f"{r['coverage_iid']:>6.3f} {r['coverage_cluster']:>7.3f} "
            f"{r['coverage_diff_iid']:>6.3f} {r['coverage_diff_cluster']:>7.3f}"
        )


if __name__ == "__main__":
    main()
