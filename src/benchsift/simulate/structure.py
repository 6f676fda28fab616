"""Latent structure of a simulated panel: benchmarks and categories, models, item parameters.

Everything here is drawn from one generator in a fixed order, so a seed fixes the whole structure. The
scores themselves are drawn in :mod:`benchsift.simulate.panel`.

Traits (columns of the ability matrix): ``0`` = general; ``1 .. C`` = one per category;
``1 + C + b * G + g`` = the specific trait of dimension group ``g`` of benchmark ``b`` (``G`` groups per
benchmark; ``G = 1`` when there are no dimensions, so each benchmark then has one specific trait).

Models: every trait is a family offset plus an individual part; the general trait also drifts with the
release date and grows with the parameter count; the category traits mix a few broad factors (low rank, as
PRIMEBench Figure 2 observes) with their own part; the specific traits are orthogonalised within each
category in the drawn sample and redrawn until Eq. 3 picks the planted central benchmark
(:func:`_plant_central`).

Item loadings: an item of a non-central benchmark loads ``sqrt(1 - w^2) * sqrt(s)`` on the general trait,
``sqrt(1 - w^2) * sqrt(1 - s)`` on its category trait and ``w`` on its specific trait (``w`` =
``specific_weight``, ``s`` = ``general_share``); items of the planted central benchmark of each category load
only on the category composite (``w = 0``) and are ``central_discrimination_boost`` times more
discriminating, so their benchmark mean tracks the category mean of PRIMEBench Eq. 3 most closely.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from benchsift.simulate.config import SimulationConfig
from benchsift.stats import zscore
from benchsift.stats.correlation import corr_with_vector

PLANT_SUBSAMPLE = 256  # items per benchmark used to compute expected benchmark means when planting
PLANT_REPLICATES = 64  # simulated item-sampling replicates of the benchmark means when planting
PLANT_WIN_RATE = 0.98  # share of those replicates in which Eq. 3 must pick the central benchmark
BLIND_EASE = 1.5  # blind-solvable items are this much easier (difficulty shift) for image-condition models
_FAMILY_NAMES = (
    "Aurora Basalt Cobalt Dune Ember Fjord Glacier Harbor Iris Juniper Kestrel Lumen Meridian Nimbus Onyx "
    "Pampas Quartz Rowan Sierra Tundra Umber Vesper Willow Zephyr"
).split()


@dataclass(frozen=True)
class BenchmarkStructure:
    """Benchmarks and categories."""

    names: list[str]
    category_names: list[str]
    category: np.ndarray  # (B,) category index of each benchmark
    sizes: np.ndarray  # (B,) items per benchmark
    central: np.ndarray  # (B,) bool, planted most central benchmark of its category
    graded: np.ndarray  # (B,) bool, continuous scores
    difficulty_offset: np.ndarray  # (B,)
    n_groups: int  # dimension groups per benchmark (specific traits per benchmark)
    specific_weight: np.ndarray  # (B,) loading of the specific trait (0 for central benchmarks)


@dataclass(frozen=True)
class ModelStructure:
    """Image-condition models and their latent abilities."""

    names: list[str]
    family: list[str]
    release_date: np.ndarray  # (M,) datetime64[ns], true dates
    params: np.ndarray  # (M,) true parameter counts (billions)
    undated: np.ndarray  # (M,) bool, date hidden in the panel
    unknown_params: np.ndarray  # (M,) bool, parameter count hidden in the panel
    abilities: np.ndarray  # (M, n_traits)
    trait_names: list[str]
    central_margin: dict[str, float]  # Eq. 3 margin of the central benchmark on expected scores
    factor_abilities: np.ndarray  # (M, K) broad ability factors behind the category traits
    category_factor_loading: np.ndarray  # (C, K) unit rows


@dataclass(frozen=True)
class ItemStructure:
    """Per-item latent parameters (arrays of length n_items, panel item order)."""

    benchmark: np.ndarray  # benchmark index
    local_index: np.ndarray  # position within the benchmark
    cluster: np.ndarray  # global cluster id (benchmark * K + k)
    dimension: np.ndarray  # dimension index within the benchmark (-1 when no dimensions)
    dimension_group: np.ndarray  # (B, n_dimensions) group of each dimension (empty when none)
    trait_index: np.ndarray  # (n, 3) int: general, category, specific
    trait_loading: np.ndarray  # (n, 3)
    discrimination: np.ndarray
    difficulty: np.ndarray
    vision_dependence: np.ndarray
    all_correct: np.ndarray  # bool
    blind_solvable: np.ndarray  # bool
    image: np.ndarray | None = None  # global shared-image id (None: every item its own image)


def _largest_remainder(total: int, weights: np.ndarray) -> np.ndarray:
    raw = total * weights / weights.sum()
    base = np.floor(raw).astype(np.int64)
    order = np.argsort(-(raw - base), kind="stable")
    base[order[: total - int(base.sum())]] += 1
    return base


def _pick(rng: np.random.Generator, n: int, rate: float) -> np.ndarray:
    """Boolean mask with exactly ``round(rate * n)`` True entries at random positions."""
    mask = np.zeros(n, dtype=bool)
    k = int(round(rate * n))
    if k:
        mask[rng.choice(n, size=k, replace=False)] = True
    return mask


def _assign_categories(n_b: int, n_c: int, rng: np.random.Generator) -> np.ndarray:
    """Category index of each benchmark (sorted, so benchmarks are grouped by category).

    Eq. 3 cannot single out a central benchmark in a two-benchmark category: both benchmarks have the same
    Pearson correlation with the mean of their two z-scores. So categories get either one benchmark or at
    least three: the fewest singletons ``ceil((3C - B) / 2)`` that make this possible, three benchmarks for
    every other category, and the remainder spread at random (two-benchmark categories only when B < 3 and
    C = 1 leaves no other choice).
    """
    n_single = min(n_c, max(0, -(-(3 * n_c - n_b) // 2)))
    counts = np.ones(n_c, dtype=np.int64)
    multi = rng.permutation(n_c)[n_single:]
    counts[multi] = 3
    left = n_b - int(counts.sum())
    if left > 0:
        targets = multi if multi.size else np.arange(n_c)
        counts += np.bincount(targets[rng.integers(0, targets.size, size=left)], minlength=n_c)
    return np.repeat(np.arange(n_c), counts)


def make_benchmarks(cfg: SimulationConfig, rng: np.random.Generator) -> BenchmarkStructure:
    """Benchmark sizes (log-normal, largest-remainder rounding), categories, central / graded plants."""
    n_b, n_c = cfg.n_benchmarks, cfg.n_categories
    weights = np.exp(cfg.benchmark_size_spread * rng.standard_normal(n_b))
    extra = cfg.n_items - cfg.min_items_per_benchmark * n_b
    sizes = cfg.min_items_per_benchmark + _largest_remainder(extra, weights)
    category = _assign_categories(n_b, n_c, rng)
    central = np.zeros(n_b, dtype=bool)
    for c in range(n_c):  # one pick per category (at most 18 in the presets)
        central[rng.choice(np.flatnonzero(category == c))] = True
    graded = _pick(rng, n_b, cfg.graded_fraction)
    offset = cfg.benchmark_difficulty_sd * rng.standard_normal(n_b)
    offset[central] = 0.0  # a central benchmark of middling difficulty: no ceiling or floor to blur its ranks
    n_groups = cfg.n_dimension_groups if cfg.n_dimensions > 0 else 1
    width = max(2, len(str(n_b - 1)))
    return BenchmarkStructure(
        names=[f"bench{b:0{width}d}" for b in range(n_b)],
        category_names=[f"cat{c:02d}" for c in range(n_c)],
        category=category,
        sizes=sizes,
        central=central,
        graded=graded,
        difficulty_offset=offset,
        n_groups=n_groups,
        specific_weight=np.where(central, 0.0, cfg.specific_weight),
    )


def _family_name(k: int) -> str:
    base = _FAMILY_NAMES[k % len(_FAMILY_NAMES)]
    return base if k < len(_FAMILY_NAMES) else f"{base}{k // len(_FAMILY_NAMES) + 1}"


def make_models(
    cfg: SimulationConfig, bench: BenchmarkStructure, items: ItemStructure, rng: np.random.Generator
) -> ModelStructure:
    """Families (Zipf sizes), release dates, parameter counts and latent abilities.

    ``abilities = family_sd * F[family] + ability_sd * Z`` with ``F``, ``Z`` i.i.d. standard normal (families
    share offsets on every trait); the general trait adds ``drift_per_year * (years - mean)`` and
    ``params_effect * (log2(params) - mean)``. The specific traits are then orthogonalised within each
    category (:func:`_orthogonalise_specific`) and redrawn until the central benchmark wins Eq. 3 on the
    expected scores (:func:`_plant_central`).
    """
    m = cfg.n_models
    n_c = len(bench.category_names)
    n_b = len(bench.names)
    fam_w = 1.0 / np.arange(1, cfg.n_families + 1) ** cfg.family_zipf
    family = rng.choice(cfg.n_families, size=m, p=fam_w / fam_w.sum())
    start = np.datetime64(cfg.release_start, "D")
    span = int((np.datetime64(cfg.release_end, "D") - start).astype(np.int64))
    days = rng.integers(0, max(span, 0) + 1, size=m)
    release = (start + days.astype("timedelta64[D]")).astype("datetime64[ns]")
    lo, hi = cfg.params_range
    params = np.round(np.exp(rng.uniform(np.log(lo), np.log(hi), size=m)), 1)
    params = np.maximum(params, 0.1)
    undated = _pick(rng, m, cfg.undated_rate)
    unknown = _pick(rng, m, cfg.unknown_params_rate)

    n_traits = 1 + n_c + n_b * bench.n_groups
    fam_offset = rng.standard_normal((cfg.n_families, n_traits))
    abilities = cfg.family_sd * fam_offset[family] + cfg.ability_sd * rng.standard_normal((m, n_traits))
    years = days / 365.25
    log_params = np.log2(params)
    abilities[:, 0] += cfg.drift_per_year * (years - years.mean()) + cfg.params_effect * (
        log_params - log_params.mean()
    )
    sd = float(np.hypot(cfg.family_sd, cfg.ability_sd))
    factors, factor_loading = _category_factors(cfg, n_c, family, abilities, rng)
    _orthogonalise_specific(abilities, bench, sd)
    margins = _plant_central(cfg, bench, items, abilities, family, sd, rng)
    trait_names = ["general"] + [f"category:{c}" for c in bench.category_names]
    trait_names += [f"specific:{b}:{g}" for b in bench.names for g in range(bench.n_groups)]
    width = max(3, len(str(m - 1)))
    fam_names = [_family_name(int(f)) for f in family]
    return ModelStructure(
        names=[f"{fam_names[i]}-m{i:0{width}d}" for i in range(m)],
        family=fam_names,
        release_date=release,
        params=params,
        undated=undated,
        unknown_params=unknown,
        abilities=abilities,
        trait_names=trait_names,
        central_margin=margins,
        factor_abilities=factors,
        category_factor_loading=factor_loading,
    )


def _category_factors(
    cfg: SimulationConfig, n_c: int, family: np.ndarray, abilities: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Make the category traits low-rank (in place): ``K = n_ability_factors`` broad factors ``F`` (family
    offsets + individual part, like every trait) and unit loading rows ``L_c`` (a primary factor with weight
    0.9, a random secondary one with 0.3, normalised); category trait
    ``c = sqrt(1 - u) F L_c + sqrt(u) own_c`` with ``u = category_unique_share``. This gives the model x
    category matrix the few dominant components that PRIMEBench Stage 3 relies on (section 4.4, Figure 2).
    Returns ``(F, L)``; with ``K = 0`` the category traits stay independent and both are empty.
    """
    m, k = abilities.shape[0], cfg.n_ability_factors
    if k == 0:
        return np.zeros((m, 0)), np.zeros((n_c, 0))
    fam = rng.standard_normal((cfg.n_families, k))
    factors = cfg.family_sd * fam[family] + cfg.ability_sd * rng.standard_normal((m, k))
    primary = rng.permutation(np.arange(n_c) % k)
    secondary = (primary + rng.integers(1, k, size=n_c)) % k if k > 1 else primary
    loading = np.zeros((n_c, k))
    loading[np.arange(n_c), primary] = 0.9
    loading[np.arange(n_c), secondary] += 0.3
    loading /= np.linalg.norm(loading, axis=1, keepdims=True)
    u = cfg.category_unique_share
    abilities[:, 1 : 1 + n_c] = (
        np.sqrt(1.0 - u) * factors @ loading.T + np.sqrt(u) * abilities[:, 1 : 1 + n_c]
    )
    return factors, loading


def _specific_columns(bench: BenchmarkStructure, c: int) -> np.ndarray:
    n_c, g = len(bench.category_names), bench.n_groups
    return (1 + n_c + np.flatnonzero(bench.category == c)[:, None] * g + np.arange(g)).ravel()


def _orthogonalise_specific(
    abilities: np.ndarray, bench: BenchmarkStructure, sd: float, categories: list[int] | None = None
) -> None:
    """Plant the factor structure exactly in the drawn sample (in place).

    Per category, the specific traits of its benchmarks are Gram-Schmidt orthogonalised, across the models,
    against the intercept, the general trait, the category trait and each other, then rescaled to sd ``sd``.
    With 30 models a chance correlation of about 0.18 between a specific and a shared trait would otherwise
    blur the planted structure (e.g. which benchmark is most central, PRIMEBench Eq. 3). Skipped for a
    category with at least as many traits as models.
    """
    m = abilities.shape[0]
    for c in range(len(bench.category_names)) if categories is None else categories:  # a few dozen at most
        spec = _specific_columns(bench, c)
        cols = np.concatenate([[0, 1 + c], spec])
        if m <= cols.size + 1:
            continue
        basis = np.column_stack([np.ones(m), abilities[:, cols]])
        q, r = np.linalg.qr(basis)
        signs = np.sign(np.diag(r))[3:]
        abilities[:, spec] = q[:, 3:] * np.where(signs == 0, 1.0, signs) * sd * np.sqrt(m)


def _eq3_margin(expected: np.ndarray, central: int) -> float:
    """PRIMEBench Eq. 3 on a (models x benchmarks) score matrix of one category: Spearman correlation of each
    benchmark with the mean of the z-normalised benchmarks; returns rho(central) - max rho(others)."""
    cat_mean = zscore(expected, axis=0).mean(axis=1)
    rho = corr_with_vector(expected, cat_mean, "srcc")
    others = np.delete(rho, central)
    if np.isnan(rho[central]) or np.isnan(others).all():
        return float("-inf")
    return float(rho[central] - np.nanmax(others))


def _eq3_win_rate(replicates: np.ndarray, central: int) -> float:
    """Share of (R, models, benchmarks) replicates in which Eq. 3 picks ``central`` (vectorised over R;
    replicates are continuous, so ranks have no ties)."""
    with np.errstate(invalid="ignore", divide="ignore"):  # a constant replicate column: NaN, ranked last
        z = (replicates - replicates.mean(axis=1, keepdims=True)) / replicates.std(axis=1, keepdims=True)
    cat_mean = z.mean(axis=2, keepdims=True)
    both = np.concatenate([replicates, cat_mean], axis=2)
    ranks = np.argsort(np.argsort(both, axis=1), axis=1).astype(np.float64)
    ranks -= ranks.mean(axis=1, keepdims=True)
    # every column holds a permutation of the same ranks, so the covariance orders like the correlation
    rho = (ranks[:, :, :-1] * ranks[:, :, -1:]).sum(axis=1)
    return float(np.mean(np.argmax(rho, axis=1) == central))


def _plant_central(
    cfg: SimulationConfig,
    bench: BenchmarkStructure,
    items: ItemStructure,
    abilities: np.ndarray,
    family: np.ndarray,
    sd: float,
    rng: np.random.Generator,
) -> dict[str, float]:
    """Make the planted central benchmark win Eq. 3 in the drawn sample (abilities changed in place).

    For every category with at least three benchmarks, the expected benchmark means
    ``E[s_mb] = mean_i sigmoid(a_i (eta_mi - b_i))`` over up to ``PLANT_SUBSAMPLE`` of each benchmark's
    ordinary items (neither all-correct nor blind-solvable: the Stage 0 clean pool) are computed, and the
    category's specific traits are redrawn (family offsets + individual part, then orthogonalised) until
    the central benchmark's Eq. 3 correlation beats every other by at least ``central_margin`` and Eq. 3
    picks it in ``PLANT_WIN_RATE`` of ``PLANT_REPLICATES`` replicates with the item-sampling noise of the
    benchmark means added (normal, sd ``sqrt(mean_i p(1 - p) / n_b)``), at most ``central_max_tries``
    times; the best draw (by win rate, then margin) is kept. Returns {category: achieved margin} (NaN for
    categories with fewer than three benchmarks, where Eq. 3 cannot separate a central benchmark).
    """
    margins: dict[str, float] = {}
    ordinary = ~items.all_correct & ~items.blind_solvable
    for c, cat_name in enumerate(bench.category_names):  # a loop over categories
        members = np.flatnonzero(bench.category == c)
        pools = [np.flatnonzero(ordinary & (items.benchmark == b)) for b in members]
        if members.size < 3 or abilities.shape[0] < 5 or min(pool.size for pool in pools) == 0:
            margins[cat_name] = float("nan")  # nothing Eq. 3 could tell apart
            continue
        subs = [rng.choice(pool, size=min(PLANT_SUBSAMPLE, pool.size), replace=False) for pool in pools]
        cols = np.concatenate(subs)
        owner = np.repeat(np.arange(members.size), [s.size for s in subs])
        counts = np.bincount(owner, minlength=members.size)
        central = int(np.flatnonzero(bench.central[members])[0])
        spec = _specific_columns(bench, c)
        idx, load = items.trait_index[cols], items.trait_loading[cols]
        a, b_ = items.discrimination[cols], items.difficulty[cols]
        n_pool = np.array([pool.size for pool in pools], dtype=np.float64)
        best, best_draw = (-1.0, float("-inf")), abilities[:, spec].copy()
        for attempt in range(cfg.central_max_tries):
            if attempt:
                fam = rng.standard_normal((cfg.n_families, spec.size))
                abilities[:, spec] = cfg.family_sd * fam[family] + cfg.ability_sd * rng.standard_normal(
                    (abilities.shape[0], spec.size)
                )
                _orthogonalise_specific(abilities, bench, sd, [c])
            eta = np.einsum("mik,ik->mi", abilities[:, idx], load)
            p = 1.0 / (1.0 + np.exp(-a * (eta - b_)))
            expected = (
                np.stack([np.bincount(owner, weights=row, minlength=members.size) for row in p]) / counts
            )
            # item-sampling noise of a benchmark mean over its n_pool items: sqrt(mean p(1 - p) / n_pool)
            var = np.stack([np.bincount(owner, weights=row, minlength=members.size) for row in p * (1 - p)])
            noise_sd = np.sqrt(var / counts / n_pool)
            noisy = expected + noise_sd * rng.standard_normal((PLANT_REPLICATES, *expected.shape))
            score = (_eq3_win_rate(noisy, central), _eq3_margin(expected, central))
            if score > best:
                best, best_draw = score, abilities[:, spec].copy()
            if score[0] >= PLANT_WIN_RATE and score[1] >= cfg.central_margin:
                break
        abilities[:, spec] = best_draw
        margins[cat_name] = best[1]
    return margins


def make_items(cfg: SimulationConfig, bench: BenchmarkStructure, rng: np.random.Generator) -> ItemStructure:
    """Item clusters, dimensions, trait loadings, 2PL parameters, vision dependence and the Stage 0 plants."""
    n_b = len(bench.names)
    n_c = len(bench.category_names)
    n = int(bench.sizes.sum())
    item_bench = np.repeat(np.arange(n_b), bench.sizes)
    starts = np.concatenate([[0], np.cumsum(bench.sizes)[:-1]])
    local = np.arange(n) - np.repeat(starts, bench.sizes)
    k = cfg.clusters_per_benchmark
    cluster = item_bench * k + rng.integers(0, k, size=n)

    g = bench.n_groups
    if cfg.n_dimensions > 0:
        dimension = rng.integers(0, cfg.n_dimensions, size=n)
        # a random permutation of the dimensions, taken modulo G: every group gets at least one dimension
        dim_group = np.argsort(rng.random((n_b, cfg.n_dimensions)), axis=1) % g
        group = dim_group[item_bench, dimension]
    else:
        dimension = np.full(n, -1)
        dim_group = np.zeros((n_b, 0), dtype=np.int64)
        group = np.zeros(n, dtype=np.int64)

    trait_index = np.stack(
        [np.zeros(n, dtype=np.int64), 1 + bench.category[item_bench], 1 + n_c + item_bench * g + group],
        axis=1,
    )
    w = bench.specific_weight[item_bench]
    rest = np.sqrt(1.0 - w**2)
    loading = np.stack(
        [rest * np.sqrt(cfg.general_share), rest * np.sqrt(1.0 - cfg.general_share), w], axis=1
    )

    boost = np.where(bench.central[item_bench], cfg.central_discrimination_boost, 1.0)
    discrimination = np.exp(
        np.log(cfg.discrimination_median) + cfg.discrimination_sigma * rng.standard_normal(n)
    )
    discrimination *= boost
    cluster_offset = cfg.cluster_difficulty_sd * rng.standard_normal(n_b * k)
    difficulty = (
        cfg.mean_difficulty
        + bench.difficulty_offset[item_bench]
        + cluster_offset[cluster]
        + cfg.difficulty_sd * rng.standard_normal(n)
    )

    all_correct = _pick(rng, n, cfg.all_correct_rate)
    blind = _pick(rng, n, cfg.blind_solvable_rate)
    difficulty[blind] -= BLIND_EASE

    cluster_vision = rng.beta(2.0, 2.0, size=n_b * k)
    vision = np.clip(cluster_vision[cluster] + 0.15 * rng.standard_normal(n), 0.0, 1.0)
    vision[blind] *= 0.25  # answerable from the text: the image matters little
    image = None
    if cfg.items_per_image > 1:  # drawn only then: without shared images the stream is unchanged
        per_bench = -(-bench.sizes // cfg.items_per_image)  # images per benchmark (ceil)
        first_image = np.concatenate([[0], np.cumsum(per_bench)[:-1]])
        image = first_image[item_bench] + local // cfg.items_per_image
        difficulty += cfg.image_difficulty_sd * rng.standard_normal(int(per_bench.sum()))[image]
    return ItemStructure(
        benchmark=item_bench,
        local_index=local,
        cluster=cluster,
        dimension=dimension,
        dimension_group=dim_group,
        trait_index=trait_index,
        trait_loading=loading,
        discrimination=discrimination,
        difficulty=difficulty,
        vision_dependence=vision,
        all_correct=all_correct,
        blind_solvable=blind,
        image=image,
    )
