"""Configuration of the score-panel simulator.

:class:`SimulationConfig` holds every knob of :func:`benchsift.simulate.simulate_panel`. Three presets
match the scales the papers work at:

* :meth:`SimulationConfig.small`: a fast demo / test panel (40 models, 8 benchmarks, 3 categories, about
  4,000 items).
* :meth:`SimulationConfig.primebench`: the PRIMEBench panel of section 5 (30 image-condition models from ten
  families, 43 benchmarks in 18 capability categories, about 386k items before Stage 0 cleaning, image-free
  runs for a subset of the models).
* :meth:`SimulationConfig.openvlm`: the OpenVLM leaderboard of PRIMEBench Appendix H (265 models, 14
  benchmarks, sparse benchmark coverage, undated models, no image-free runs).

:meth:`SimulationConfig.unidimensional` gives a plain 2PL panel (one trait, binary items, nothing missing),
the test bed for IRT fitters.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from numbers import Integral, Real
from operator import le, lt
from typing import Any, ClassVar

from benchsift._params import Check, ConstraintLike, Interval, Options, check_params, validate_params
from benchsift._schema import Rule, check_rules
from benchsift._suggest import did_you_mean
from benchsift.errors import InputError

#: the rules that tie two simulation parameters together, checked after each one's own declaration
_RULES = (
    Rule(
        ("n_categories", "n_benchmarks"),
        le,
        "n_categories <= n_benchmarks (every category needs a benchmark)",
    ),
    Rule(
        ("min_items_per_benchmark", "items_per_benchmark"),
        le,
        "min_items_per_benchmark <= items_per_benchmark",
    ),
    Rule(("n_text_only_models", "n_models"), le, "n_text_only_models <= n_models"),
    Rule(
        ("blind_solvable_rate", "n_text_only_models"),
        lambda rate, n_text: rate == 0 or n_text >= 1,
        "n_text_only_models >= 1 or blind_solvable_rate=0 (blind-solvable items need text-only runs)",
    ),
    Rule(("nonblind_beta_max", "blind_beta_min"), lt, "nonblind_beta_max < blind_beta_min"),
    Rule(
        ("n_dimensions", "n_dimension_groups"),
        lambda dims, groups: dims <= 0 or groups <= dims,
        "at most one group per dimension (n_dimension_groups <= n_dimensions)",
    ),
    Rule(("mislabel_rate", "contamination_rate"), lambda a, b: a + b <= 0.5, "a sum of at most 0.5"),
)


@dataclass(frozen=True)
class SimulationConfig:
    """Every parameter of the simulated panel (see :mod:`benchsift.simulate.panel` for the model).

    Sizes
        n_models: image-condition models (one panel row each).
        n_benchmarks, n_categories: benchmarks are spread over categories, each category gets at least one.
        items_per_benchmark: mean benchmark size; sizes are log-normal with sigma ``benchmark_size_spread``
            (0 = all equal) and at least ``min_items_per_benchmark``, summing to
            ``items_per_benchmark * n_benchmarks``.
    Models
        n_families: families share a random offset on every trait (sd ``family_sd``); family sizes are
            Zipf-like with exponent ``family_zipf``.
        release_start / release_end: release dates are uniform in this range (ISO dates); a share
            ``undated_rate`` of them is unknown (NaT).
        drift_per_year: the general trait rises by this much per year of release date.
        params_range: parameter counts (billions) are log-uniform in this range; ``params_effect`` is added
            to the general trait per doubling of the parameter count; ``unknown_params_rate`` share is NaN.
        ability_sd: sd of the individual (non-family) part of every trait.
    Items (2PL: ``P = sigmoid(a * (eta - b))``, ``eta`` a weighted sum of the model's traits)
        general_share: share of the category composite's variance that comes from the general trait
            (categories correlate through it).
        n_ability_factors, category_unique_share: the category traits are ``sqrt(1 - u)`` times a mix of
            ``n_ability_factors`` broad factors plus ``sqrt(u)`` times their own part (0 factors = independent
            category traits), so the model x category matrix is nearly low-rank (PRIMEBench Figure 2).
        specific_weight: loading of the benchmark-specific (dimension-group) trait in the non-central
            benchmarks; the central benchmark of each category has loading 0 on it (PRIMEBench Eq. 3 plant).
        discrimination_median / discrimination_sigma: log-normal discriminations ``a``;
            ``central_discrimination_boost`` multiplies ``a`` in the central benchmarks.
        central_margin, central_max_tries: in every category with at least three benchmarks the specific
            traits are redrawn (at most ``central_max_tries`` times) until, on the expected benchmark
            scores, the central benchmark's Eq. 3 correlation beats every other one by ``central_margin``.
        difficulty_sd, benchmark_difficulty_sd, cluster_difficulty_sd, mean_difficulty: ``b`` is the sum of
            a benchmark offset, a cluster offset and an item part.
        graded_fraction: share of benchmarks with continuous scores in [0, 1] (rounded to 3 decimals).
        graded_noise: sd of the logit noise of graded scores.
    Stage 0 plants (PRIMEBench section 4.1)
        all_correct_rate: share of items every image-condition model scores 1 on.
        blind_solvable_rate: share of items whose text-only runs have mean score >= ``blind_beta_min``; every
            other item has text-only mean <= ``nonblind_beta_max`` (so any tau between the two separates
            them exactly; the paper's tau = 2/3 does).
        n_text_only_models: image-condition models that also get a text-only row (the image-free runs).
    Audit plants (:mod:`benchsift.audit`; all 0 by default, and then the panel is the same as without them)
        mislabel_rate: share of items whose key is flipped: ``P = sigmoid(-a (eta - b))``, so stronger models
            answer them less often (binary items that are neither all-correct nor blind-solvable).
        contamination_rate: share of items that the contaminated models find easier than their ability says:
            ``contamination_boost`` is added to their logit (same pool of items, disjoint from the
            mislabelled ones).
        contamination_by: who is contaminated: ``"era"`` (the models released in the newest
            ``contaminated_model_share`` of the true release dates) or ``"family"`` (the largest family).
    Missing data
        missing_rate: share of image-condition cells set to NaN (cell-wise, never on planted all-correct
            items, never leaving an item with fewer than two scored models).
        missing_benchmark_rate: probability that a model has no scores at all on a benchmark (at least two
            models, or half of them if fewer, keep every benchmark).
    Item content
        clusters_per_benchmark: latent item clusters within each benchmark (they shift difficulty and
            vision dependence, and drive the embeddings and question words).
        embedding_dim, embedding_noise: item embeddings (vision-text and text-only), see
            :mod:`benchsift.simulate.embeddings`.
        n_dimensions, n_dimension_groups: item sub-dimensions within each benchmark (item column
            ``dimension``); dimensions of one group share one specific trait (0 = no dimension column).
        question_words: words per synthetic question.
    Shared images (item clusters that are not independent: PRISM / estimate / bootstrap tests)
        items_per_image: consecutive items of a benchmark share one image, ``items_per_image`` per image
            (the last image of a benchmark may hold fewer); 1 = every item its own image (no ``image``
            column, and nothing else drawn, so the panel is the one without this option).
        image_difficulty_sd: sd of a difficulty offset shared by the items of an image.
        image_response_sd: sd of a model x image effect on the logit ``a (eta - b)``, shared by the items
            of an image for one model (a model that misreads an image misses all its questions).
    """

    n_models: int = 40
    n_benchmarks: int = 8
    n_categories: int = 3
    items_per_benchmark: int = 500
    benchmark_size_spread: float = 0.5
    min_items_per_benchmark: int = 50
    # models
    n_families: int = 8
    family_zipf: float = 0.8
    family_sd: float = 0.5
    ability_sd: float = 0.8
    release_start: str = "2023-06-01"
    release_end: str = "2025-10-01"
    undated_rate: float = 0.0
    drift_per_year: float = 0.6
    params_range: tuple[float, float] = (0.5, 80.0)
    params_effect: float = 0.15
    unknown_params_rate: float = 0.0
    # items
    general_share: float = 0.5
    n_ability_factors: int = 4
    category_unique_share: float = 0.15
    specific_weight: float = 0.75
    discrimination_median: float = 1.2
    discrimination_sigma: float = 0.35
    central_discrimination_boost: float = 1.3
    central_margin: float = 0.03
    central_max_tries: int = 200
    mean_difficulty: float = -0.4
    benchmark_difficulty_sd: float = 0.5
    cluster_difficulty_sd: float = 0.5
    difficulty_sd: float = 1.0
    graded_fraction: float = 0.25
    graded_noise: float = 0.5
    # Stage 0 plants
    all_correct_rate: float = 0.08
    blind_solvable_rate: float = 0.1
    n_text_only_models: int = 6
    blind_beta_min: float = 0.75
    nonblind_beta_max: float = 0.5
    # audit plants
    mislabel_rate: float = 0.0
    contamination_rate: float = 0.0
    contamination_boost: float = 2.5
    contamination_by: str = "era"
    contaminated_model_share: float = 0.5
    # missing data
    missing_rate: float = 0.02
    missing_benchmark_rate: float = 0.0
    # item content
    clusters_per_benchmark: int = 6
    embedding_dim: int = 64
    embedding_noise: float = 0.35
    n_dimensions: int = 6
    n_dimension_groups: int = 2
    question_words: int = 8
    # shared images
    items_per_image: int = 1
    image_difficulty_sd: float = 0.0
    image_response_sd: float = 0.0

    # ------------------------------------------------------------------ presets
    @classmethod
    def small(cls, **overrides: Any) -> SimulationConfig:
        """Demo / test scale: 40 models, 8 benchmarks in 3 categories, about 4,000 items (well under 1 s)."""
        return dataclasses.replace(cls(), **overrides)

    @classmethod
    def primebench(cls, **overrides: Any) -> SimulationConfig:
        """PRIMEBench scale (section 5, Appendix A): 30 image models from 10 families, 43 benchmarks in 18
        categories, ~386k items (8,984 per benchmark on average), 64-dim embeddings, 6 image-free runs.

        Stage 0 of the paper keeps 270,408 of 386,324 items (30 % removed); the default plant rates
        (12 % all-correct, 20 % blind-solvable, overlapping) remove a similar share.
        """
        base = cls(
            n_models=30,
            n_benchmarks=43,
            n_categories=18,
            items_per_benchmark=8984,
            benchmark_size_spread=1.0,
            min_items_per_benchmark=200,
            n_families=10,
            family_zipf=0.5,
            all_correct_rate=0.12,
            blind_solvable_rate=0.2,
            n_text_only_models=6,
            missing_rate=0.005,
            clusters_per_benchmark=12,
            n_dimensions=0,
            n_dimension_groups=1,
        )
        return dataclasses.replace(base, **overrides)

    @classmethod
    def openvlm(cls, **overrides: Any) -> SimulationConfig:
        """OpenVLM leaderboard scale (PRIMEBench Appendix H): 265 models, 14 benchmarks, 95 families
        (Zipf sizes, many singletons), sparse benchmark coverage, 23 % undated models, some unknown parameter
        counts, and no image-free runs (so no blind-solvable plant)."""
        base = cls(
            n_models=265,
            n_benchmarks=14,
            n_categories=8,
            items_per_benchmark=3000,
            benchmark_size_spread=0.6,
            min_items_per_benchmark=200,
            n_families=95,
            family_zipf=1.1,
            release_start="2023-01-01",
            undated_rate=0.23,
            unknown_params_rate=0.1,
            all_correct_rate=0.05,
            blind_solvable_rate=0.0,
            n_text_only_models=0,
            missing_rate=0.01,
            missing_benchmark_rate=0.25,
            clusters_per_benchmark=8,
            n_dimensions=0,
            n_dimension_groups=1,
        )
        return dataclasses.replace(base, **overrides)

    @classmethod
    def unidimensional(cls, n_models: int = 100, n_items: int = 1000, **overrides: Any) -> SimulationConfig:
        """A plain 2PL panel: one benchmark, one category, every item loads on the general trait only
        (``P = sigmoid(a * (theta - b))`` with ``theta = abilities[:, 0]``), binary, nothing missing, no
        plants. The test bed for IRT fitters (parameter recovery)."""
        base = cls(
            n_models=n_models,
            n_benchmarks=1,
            n_categories=1,
            items_per_benchmark=n_items,
            benchmark_size_spread=0.0,
            min_items_per_benchmark=1,
            general_share=1.0,
            specific_weight=0.0,
            central_discrimination_boost=1.0,
            benchmark_difficulty_sd=0.0,
            cluster_difficulty_sd=0.0,
            graded_fraction=0.0,
            all_correct_rate=0.0,
            blind_solvable_rate=0.0,
            n_text_only_models=0,
            missing_rate=0.0,
            n_dimensions=0,
            n_dimension_groups=1,
        )
        return dataclasses.replace(base, **overrides)

    PRESETS: ClassVar[tuple[str, ...]] = ("small", "primebench", "openvlm")

    _parameter_constraints: ClassVar[dict[str, list[ConstraintLike]]] = {
        "n_models": [Interval(Integral, 2, None)],
        **{
            name: [Interval(Integral, 1, None)]
            for name in (
                "n_benchmarks",
                "n_categories",
                "items_per_benchmark",
                "min_items_per_benchmark",
                "n_families",
                "clusters_per_benchmark",
                "embedding_dim",
                "n_dimension_groups",
                "question_words",
                "central_max_tries",
                "items_per_image",
            )
        },
        **{
            name: [Interval(Integral, 0, None)]
            for name in ("n_ability_factors", "n_text_only_models", "n_dimensions")
        },
        **{
            name: [Interval(Real, 0, 1)]
            for name in (
                "undated_rate",
                "unknown_params_rate",
                "general_share",
                "category_unique_share",
                "specific_weight",
                "graded_fraction",
                "all_correct_rate",
                "blind_solvable_rate",
                "blind_beta_min",
                "nonblind_beta_max",
                "mislabel_rate",
                "contamination_rate",
                "contaminated_model_share",
            )
        },
        "missing_rate": [Interval(Real, 0, 0.5)],
        "missing_benchmark_rate": [Interval(Real, 0, 0.5)],
        **{
            name: [Interval(Real, 0, None)]
            for name in ("contamination_boost", "image_difficulty_sd", "image_response_sd")
        },
        **{
            name: [Interval(Real, 0, None, closed="neither")]
            for name in ("discrimination_median", "ability_sd")
        },
        "contamination_by": [Options(["era", "family"])],
        "params_range": [
            Check(lambda r: len(r) == 2 and 0 < r[0] <= r[1], "a (low, high) pair with 0 < low <= high")
        ],
    }

    @classmethod
    def preset(cls, name: str, **overrides: Any) -> SimulationConfig:
        """The preset called ``name`` (one of :attr:`PRESETS`) with ``overrides`` applied."""
        if name not in cls.PRESETS:
            hint = did_you_mean(name, cls.PRESETS)
            raise InputError(
                f"unknown simulation preset {name!r}{hint}; expected one of {', '.join(cls.PRESETS)}"
            )
        factory = getattr(cls, name)
        config: SimulationConfig = factory(**overrides)
        return config

    @classmethod
    @validate_params(
        {
            "models": [Interval(Integral, 1, None), None],
            "benchmarks": [Interval(Integral, 1, None), None],
            "categories": [Interval(Integral, 1, None), None],
            "items_per_benchmark": [Interval(Integral, 1, None), None],
        }
    )
    def sized(
        cls,
        name: str,
        *,
        models: int | None = None,
        benchmarks: int | None = None,
        categories: int | None = None,
        items_per_benchmark: int | None = None,
        **fields: Any,
    ) -> SimulationConfig:
        """The preset ``name`` resized, keeping the sizes that depend on the ones given within them.

        ``models`` also caps the text-only runs at ``models``; ``benchmarks`` (without ``categories``) caps
        the categories at ``benchmarks``; ``items_per_benchmark`` caps the smallest benchmark's size at it.
        ``fields`` set other parameters as given (e.g. the audit plants ``mislabel_rate``,
        ``contamination_rate``); an unknown name is an :class:`~benchsift.errors.InputError`. The options
        of ``benchsift simulate``.
        """
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(fields) - known)
        if unknown:
            raise InputError(f"simulation parameter {unknown[0]!r}: not a SimulationConfig field")
        config = cls.preset(name)
        overrides: dict[str, Any] = dict(fields)
        if models is not None:
            overrides["n_models"] = models
            overrides["n_text_only_models"] = min(config.n_text_only_models, max(models, 0))
        if benchmarks is not None:
            overrides["n_benchmarks"] = benchmarks
            if categories is None:
                overrides["n_categories"] = min(config.n_categories, max(benchmarks, 1))
        if categories is not None:
            overrides["n_categories"] = categories
        if items_per_benchmark is not None:
            overrides["items_per_benchmark"] = items_per_benchmark
            overrides["min_items_per_benchmark"] = min(
                config.min_items_per_benchmark, max(items_per_benchmark, 1)
            )
        return cls.preset(name, **overrides)

    # ------------------------------------------------------------------ derived
    @property
    def n_items(self) -> int:
        """Total number of items (sum of the benchmark sizes)."""
        return self.items_per_benchmark * self.n_benchmarks

    def to_dict(self) -> dict[str, Any]:
        """JSON-able dict of the parameters."""
        out = dataclasses.asdict(self)
        out["params_range"] = list(self.params_range)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SimulationConfig:
        """Inverse of :meth:`to_dict`."""
        data = dict(data)
        if "params_range" in data:
            data["params_range"] = tuple(data["params_range"])
        return cls(**data)

    def validate(self) -> None:
        """Raise :class:`InputError` naming the first parameter that is out of range: each one against
        its declaration (:attr:`_parameter_constraints`), then the rules that tie two of them. (The sizes
        :meth:`sized` takes are declared there, by the names the CLI's options have.)"""
        # a field is no option of ``benchsift simulate`` (``--models`` sets ``n_models``): named bare
        check_params(self._parameter_constraints, vars(self), owner="simulation parameter", quote=False)
        check_rules(_RULES, vars(self), owner="simulation parameters")
