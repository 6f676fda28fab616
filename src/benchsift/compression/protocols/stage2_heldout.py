"""Protocol (a): Stage 2 selection on build models, ranking fidelity on held-out models (PRIMEBench D.3).

The category pools are fixed before any split (the panel given here is the Stage 1 pool; Stages 0 and 1 use
the whole panel, D.3). In every split each selector picks, for every category pool ``C`` of ``n_C`` items and
every retention ``r``, the category budget

.. math:: K_C = \\max(\\lfloor r\\, n_C \\rfloor, \\min(n_C, 100))

items from the *build* models' responses only. On the held-out models ``H`` the protocol computes per
category

.. math:: \\rho_C = \\rho_S\\big((\\bar x_{m,C})_{m \\in H},\\ (\\bar x_{m,S_C})_{m \\in H}\\big)

between each model's NaN-aware mean on the full pool and on the kept items ``S_C`` (optionally weighted by the
selector's ``weights_``, e.g. AnchorPoints cluster sizes: ``scoring="weighted"``; or each selector's own
estimator of the pool mean, :meth:`ItemSelector.estimate`, e.g. tinyBenchmarks' p-IRT:
``scoring="selector"``). ``rho_C`` is undefined (NaN) with fewer than ``min_heldout`` (10) held-out models
having both means, or when every held-out model gets the same score on the kept items; such a category is left
out of that split's *macro* rho, the mean over the categories with a defined rho. Per (selector, retention)
the table reports the mean, sd (ddof 1), min and max of the macro rho over splits and the number of splits the
selector wins (highest macro rho among the listed selectors; every selector tied at the top is credited).
PRIMEBench Tables 9-11.

Cost: one selection per (split, selector, retention, category) (a pool the floor keeps whole needs none);
scoring all categories of all retentions of a (split, selector) task is one small matrix product per category.
Tasks run through ``joblib.Parallel(n_jobs=...)``; ``backend="dask"`` / ``"ray"`` (with ``address``, see
:func:`benchsift.parallel.sweep_backend`), or an enclosing ``joblib.parallel_config`` around a call with
the default ``n_jobs=None``, distributes them unchanged. Seeds are a function of the run seed, the split,
the selector's name, the retention's value and the category only, so results do not depend on
``n_jobs``, the backend, or which other selectors and retentions run beside them.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

import numpy as np
import pandas as pd
from joblib import delayed

from benchsift._params import Options, check_param, validate_params
from benchsift._threads import single_thread
from benchsift.compression.embeddings import ItemEmbeddings
from benchsift.compression.protocols.group_means import CategoryBlocks, weighted_group_means
from benchsift.compression.protocols.pools import CategoryPools, prepare_pools, selection_weights
from benchsift.compression.protocols.results import result_records, summary_frame
from benchsift.compression.protocols.seeds import base_seed, selector_key, task_seed
from benchsift.compression.protocols.specs import (
    DEFAULT_RETENTIONS,
    DEFAULT_SELECTORS,
    PROTOCOL_PARAMS,
    SPLIT_PROTOCOLS,
    SelectorSpec,
    check_retentions,
    check_selectors,
    disco_warnings,
    with_scoring,
)
from benchsift.compression.protocols.splits import Split, chronological_splits, random_splits
from benchsift.compression.selectors.budget import category_budget
from benchsift.errors import DegenerateError, InputError
from benchsift.panel import Panel
from benchsift.parallel import ordered_parallel, sweep_backend
from benchsift.progress import ProgressFn, Ticker
from benchsift.results import Result
from benchsift.stats.correlation import paired_columns
from benchsift.stats.means import nan_mean

__all__ = [
    "HeldoutResult",
    "macro_rho",
    "per_category_rho",
    "split_summary",
    "stage2_heldout",
]

Scoring = Literal["mean", "weighted", "selector"]
ROUND_DECIMALS = 12


def per_category_rho(full: np.ndarray, selected: np.ndarray, min_heldout: int = 10) -> np.ndarray:
    """Spearman rho per category (column) between full-pool and selected-items means of held-out models.

    ``full`` and ``selected`` are ``(n_heldout, n_categories)``; a column with fewer than ``min_heldout``
    models having both means finite, or a constant side, gives NaN (PRIMEBench D.3).
    """
    full = np.asarray(full, dtype=np.float64)
    selected = np.asarray(selected, dtype=np.float64)
    rho = paired_columns(full, selected, "srcc")
    n_valid = (np.isfinite(full) & np.isfinite(selected)).sum(axis=0)
    rho[n_valid < int(min_heldout)] = np.nan
    return rho


def macro_rho(rho: np.ndarray, axis: int = -1) -> np.ndarray:
    """Mean over the categories (``axis``) with a defined rho; NaN where none is defined (D.3)."""
    return nan_mean(rho, axis=axis)


def split_summary(macro: np.ndarray) -> dict[str, np.ndarray]:
    """Mean, sd (ddof 1), min, max over splits (axis 0) and wins per selector (axis 1).

    ``macro`` is ``(n_splits, n_selectors, ...)``. A selector wins a split when its macro rho equals the
    highest one of that split (compared after rounding to 12 decimals; every tied selector is credited,
    NaN never wins).
    """
    m = np.asarray(macro, dtype=np.float64)
    ok = np.isfinite(m)
    n = ok.sum(axis=0)
    filled = np.where(ok, m, 0.0)
    mean = np.full(n.shape, np.nan)
    np.divide(filled.sum(axis=0), n, out=mean, where=n > 0)
    dev = np.where(ok, m - mean, 0.0)
    sd = np.full(n.shape, np.nan)
    np.divide((dev * dev).sum(axis=0), n - 1, out=sd, where=n > 1)
    sd = np.sqrt(sd)
    lo = np.where(n > 0, np.where(ok, m, np.inf).min(axis=0), np.nan)
    hi = np.where(n > 0, np.where(ok, m, -np.inf).max(axis=0), np.nan)
    rounded = np.where(ok, np.round(m, ROUND_DECIMALS), -np.inf)
    best = rounded.max(axis=1, keepdims=True)
    wins = ((rounded == best) & ok & np.isfinite(best)).sum(axis=0)
    return {"mean": mean, "sd": sd, "min": lo, "max": hi, "wins": wins, "n_splits": n}


@dataclass(frozen=True, repr=False)
class HeldoutResult(Result):
    """Outcome of :func:`stage2_heldout`.

    ``rho`` is ``(n_splits, n_selectors, n_retentions, n_categories)`` (NaN = undefined),
    ``budgets`` ``(n_retentions, n_categories)`` the ``K_C``, ``pool_sizes`` the ``n_C``,
    ``n_heldout_valid`` ``(n_splits, n_categories)`` the held-out models with a full-pool mean, and
    ``seconds`` the selection + scoring time summed over tasks per selector, ``extra["picks"]`` the pick of
    each selector that picks a selector (``auto``) per split, retention and category (:meth:`pick_table`).
    """

    protocol: str
    selectors: list[str]
    retentions: list[float]
    splits: list[Split]
    categories: list[str]
    rho: np.ndarray
    budgets: np.ndarray
    pool_sizes: np.ndarray
    n_heldout_valid: np.ndarray
    seconds: dict[str, float]
    params: dict[str, Any]
    notes: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict, repr=False)
    warnings: tuple[str, ...] = ()

    @property
    def macro(self) -> np.ndarray:
        """``(n_splits, n_selectors, n_retentions)`` macro rho (mean over categories with a defined rho)."""
        return macro_rho(self.rho, axis=-1)

    def summary(self, splits: Sequence[int] | None = None) -> pd.DataFrame:
        """One row per (selector, retention): ``rho_mean, rho_sd, rho_min, rho_max, wins, n_splits`` and
        ``n_categories`` (mean number of categories with a defined rho). ``splits`` restricts to those
        split positions (default: all)."""
        idx = self._default_splits() if splits is None else list(splits)
        stats = split_summary(self.macro[idx])
        n_cat = np.isfinite(self.rho[idx]).sum(axis=-1).mean(axis=0)
        return summary_frame(
            self.selectors, self.retentions, stats, n_splits=stats["n_splits"], n_categories=n_cat
        )

    def split_table(self, retention: float) -> pd.DataFrame:
        """Macro rho per split (rows) and selector (columns) at ``retention``."""
        j = self._ret_index(retention)
        return pd.DataFrame(
            self.macro[:, :, j], index=[s.name for s in self.splits], columns=self.selectors
        ).rename_axis("split")

    def category_table(self, retention: float, splits: Sequence[int] | None = None) -> pd.DataFrame:
        """Per category (PRIMEBench Table 9): pool size ``n_C``, budget ``K_C`` and the mean rho over splits
        per selector (NaN when undefined in every split)."""
        j = self._ret_index(retention)
        idx = self._default_splits() if splits is None else list(splits)
        per = macro_rho(np.moveaxis(self.rho[idx][:, :, j, :], 0, -1), axis=-1)  # (n_sel, n_cat)
        frame = pd.DataFrame({"category": self.categories, "pool": self.pool_sizes, "K": self.budgets[j]})
        for s, name in enumerate(self.selectors):
            frame[name] = per[s]
        return frame

    def pick_table(self, splits: Sequence[int] | None = None) -> pd.DataFrame:
        """What the selectors that choose a selector (``auto``) picked: one row per (selector, retention,
        category, pick) with ``n_splits``, the number of splits it was picked in (``extra["picks"]`` holds
        the ``(n_splits, n_retentions, n_categories)`` grid; pools the floor kept whole have no pick)."""
        idx = self._default_splits() if splits is None else list(splits)
        rows = []
        for name, grid in self.extra.get("picks", {}).items():
            for j, r in enumerate(self.retentions):
                for c, cat in enumerate(self.categories):
                    got = [str(v) for v in grid[idx, j, c] if v]
                    for pick in sorted(set(got), key=lambda p: (-got.count(p), p)):
                        rows.append(
                            {
                                "selector": name,
                                "retention": r,
                                "category": cat,
                                "pick": pick,
                                "n_splits": got.count(pick),
                            }
                        )
        return pd.DataFrame(rows, columns=["selector", "retention", "category", "pick", "n_splits"])

    def _default_splits(self) -> list[int]:
        """All splits, except for the chronological protocol: its main split only (the others are the
        sensitivity splits, reported apart)."""
        if self.protocol == "chronological":
            return [0]
        return list(range(len(self.splits)))

    def _ret_index(self, retention: float) -> int:
        for j, r in enumerate(self.retentions):
            if abs(r - float(retention)) < 1e-12:
                return j
        raise InputError(f"retention {retention!r} was not run; available: {self.retentions}")

    def results(self, splits: Sequence[int] | None = None) -> list[dict[str, Any]]:
        """The JSON ``results`` list: ``selector, retention, rho_mean, rho_sd, rho_min, rho_max, wins``."""
        return result_records(self.summary(splits))

    def to_dict(self) -> dict[str, Any]:
        """JSON-able: protocol, results, splits, per-split macro rho, timings, parameters and notes.

        For the chronological protocol ``results`` is the main split and ``sensitivity`` lists the others.
        """
        sensitivity = []
        if self.protocol == "chronological":
            sensitivity = [
                {"split": self.splits[i].name, "results": self.results([i])}
                for i in range(1, len(self.splits))
            ]
        return {
            "protocol": self.protocol,
            "results": self.results(),
            "sensitivity": sensitivity,
            "splits": [{"name": s.name, "n_build": s.n_build, "n_heldout": s.n_heldout} for s in self.splits],
            "macro_rho": {
                name: {f"{r:g}": self.macro[:, i, j].tolist() for j, r in enumerate(self.retentions)}
                for i, name in enumerate(self.selectors)
            },
            "categories": self.categories,
            "picks": self.pick_table().to_dict(orient="records"),
            "seconds": self.seconds,
            "params": self.params,
            "notes": list(self.notes),
            "warnings": list(self.warnings),
        }

    def to_frame(self) -> pd.DataFrame:
        """One row per (selector, retention): the protocol's summary (:meth:`summary`)."""
        return self.summary()


def _heldout_task(
    pools: CategoryPools,
    spec: SelectorSpec,
    split: Split,
    retentions: list[float],
    floor: int,
    base: int,
    i_split: int,
    min_heldout: int,
    scoring: str,
    full: np.ndarray,
    blocks: CategoryBlocks,
) -> tuple[np.ndarray, float, dict[tuple[int, int], str]]:
    """One (split, selector): select every pool at every retention, then score them all at once.

    Returns the ``(n_retentions, n_categories)`` rho, the seconds taken and, for a selector that picks a
    selector (``choice_``, the automatic one), its pick per ``(retention, category)``.
    """
    t0 = time.perf_counter()
    fitted: dict[tuple[int, int], tuple[np.ndarray, Any]] = {}
    with single_thread():  # the package's one thread policy, around the whole task
        W, _ = selection_weights(
            pools,
            spec,
            split.build,
            retentions,
            floor,
            lambda r_key, c: task_seed(base, i_split, selector_key(spec), r_key, c),
            use_weights=scoring == "weighted",
            fitted=fitted,
            candidate_seeds=lambda label, r_key, c: task_seed(base, i_split, selector_key(label), r_key, c),
        )
        n_cat = pools.n_categories
        n_ret = len(retentions)
        sel = blocks.kept_means(W, split.heldout)  # (n_heldout, n_ret, n_cat)
        if scoring == "selector":  # each selector's estimate of the pool mean from the kept items
            Sh = pools.scores[split.heldout]
            for (j, c), (kept, selector) in fitted.items():
                sel[:, j, c] = selector.estimate(Sh[:, kept])
        # one rho call for all retentions: column j * n_cat + c is (retention j, category c)
        full_h = np.tile(full[split.heldout], n_ret)
        rho = per_category_rho(full_h, sel.reshape(-1, n_ret * n_cat), min_heldout).reshape(n_ret, n_cat)
    picks = {key: str(f.choice_) for key, (_, f) in fitted.items() if getattr(f, "choice_", None) is not None}
    return rho, time.perf_counter() - t0, picks


def floor_identical_warnings(retentions: Sequence[float], budgets: np.ndarray, floor: int) -> list[str]:
    """A warning for each group of retentions that the item floor gives the same budget in every category.

    ``budgets`` is ``(n_retentions, n_categories)`` (:func:`category_budget`). Equal rows select the same
    number of items per category, so their result columns differ only by the selection's randomness (seeds,
    tie-breaking): the floor, not the retention, decided them.
    """
    groups: dict[tuple[int, ...], list[float]] = {}
    for r, row in zip(retentions, np.asarray(budgets), strict=True):
        groups.setdefault(tuple(int(v) for v in row), []).append(float(r))
    out = []
    for row, rs in groups.items():
        if len(rs) > 1:
            shown = ", ".join(f"{100 * r:g} %" for r in rs)
            out.append(
                f"the item floor of {floor} (`floor`) gives retentions {shown} the same budget in every "
                f"category ({sum(row):,} items in all): their columns differ only by the selection's "
                f"randomness, not by retention (`floor` 0 keeps exactly r)"
            )
    return out


def floor_override_warnings(
    retentions: Sequence[float], budgets: np.ndarray, pool_sizes: np.ndarray | Sequence[int], floor: int
) -> list[str]:
    """One warning when the item floor keeps more than a retention asks in some category, else none.

    ``budgets`` is ``(n_retentions, n_categories)`` (:func:`category_budget`), ``pool_sizes`` the
    categories' pool sizes ``n_C``. A retention is overridden where a budget exceeds ``floor(r n_C)``; the
    line names each such retention with the categories it is overridden in and the items kept in all
    against what ``r`` alone keeps (:func:`~benchsift.compression.selectors.budget.floor_warning` says the
    same
    for one suite).
    """
    sizes = np.asarray(pool_sizes, dtype=np.int64)
    parts = []
    for r, row in zip(retentions, np.asarray(budgets), strict=True):
        asked = np.array([category_budget(int(n), float(r), 0) for n in sizes])  # r alone
        bound = np.asarray(row) > asked
        if bound.any():
            kept = int(np.sum(row))
            parts.append(
                f"{100 * float(r):g} % in {int(bound.sum())} of {sizes.size} "
                f"categor{'y' if sizes.size == 1 else 'ies'} ({kept:,} of {int(sizes.sum()):,} items, "
                f"{100 * kept / max(int(sizes.sum()), 1):.1f} %; r alone: {int(asked.sum()):,})"
            )
    if not parts:
        return []
    return [
        f"the item floor of {floor} (`floor`) overrides retention {'; '.join(parts)}: those columns "
        "measure more items than the retention asked (`floor` 0 keeps exactly r)"
    ]


def partial_dates_warnings(release_dates: pd.Series) -> list[str]:
    """A warning when only some models have a release date (chronological protocol, PRIMEBench D.3).

    Undated models sort last: they are never in a build set and always held out. On a panel where few are
    dated, "chronological" then means "the dated models build, the undated ones are scored", which the user
    must be told.
    """
    dated = int(pd.Series(release_dates).notna().sum())
    n = int(len(release_dates))
    if 0 < dated < n:
        return [
            f"chronological protocol: only {dated} of {n} image-condition models have a release date; the "
            f"build sets take the oldest dated models and the {n - dated} undated models are always held "
            f"out (PRIMEBench D.3: undated models count as the newest)"
        ]
    return []


def _heldout_splits(
    pools: CategoryPools, protocol: str, splits: Sequence[Split] | None, n_splits: int, base: int
) -> tuple[list[Split], str]:
    """The splits of the image-condition models and the protocol's name: ``splits`` as given (checked to
    index the models), else ``n_splits`` random ones or the chronological ones."""
    if splits is not None:
        split_list = list(splits)
        proto_name = protocol if protocol in ("random", "chronological") else "custom"
    elif protocol == "random":
        split_list = random_splits(pools.n_models, n_splits, random_state=base)
        proto_name = "random"
    elif protocol == "chronological":
        split_list = chronological_splits(pools.models["release_date"])
        proto_name = "chronological"
    else:
        check_param("protocol", protocol, [SPLIT_PROTOCOLS])
    for sp in split_list:
        if (
            sp.build.size == 0
            or sp.heldout.size == 0
            or max(sp.build.max(), sp.heldout.max()) >= pools.n_models
        ):
            raise InputError(
                f"split {sp.name!r}: positions must index the {pools.n_models} image-condition models"
            )
    return split_list, proto_name


def small_split_notes(split_list: list[Split], min_heldout: int) -> list[str]:
    """The note on splits holding out fewer than ``min_heldout`` models (their rho is undefined), for this
    protocol and the end-to-end one; a :class:`~benchsift.errors.DegenerateError` when every split does (a
    3-model panel wrote its files and page of NaN, exit 0, with only the note; audit s32)."""
    small = [sp.name for sp in split_list if sp.n_heldout < min_heldout]
    if split_list and len(small) == len(split_list):
        most = max(sp.n_heldout for sp in split_list)
        raise DegenerateError(
            f"every split holds out fewer than min_heldout={min_heldout} models (at most {most}): every rho "
            "(D.3) would be undefined; lower min_heldout or use a panel with more models"
        )
    return (
        [f"{len(small)} split(s) hold out fewer than {min_heldout} models: every rho is undefined"]
        if small
        else []
    )


def _split_and_pool_notes(
    pools: CategoryPools, split_list: list[Split], min_heldout: int, full: np.ndarray
) -> list[str]:
    """Notes on splits holding out fewer than ``min_heldout`` models and on categories whose pool mean
    (``full``: models x categories) is the same for every model (their rho is undefined everywhere)."""
    notes = small_split_notes(split_list, min_heldout)
    flat = [
        name
        for name, col in zip(pools.categories, full.T, strict=True)
        if np.unique(col[np.isfinite(col)]).size < 2
    ]
    if flat:  # a pool mean that does not vary ranks no model: its rho is NaN in every split
        notes.append(
            f"{len(flat)} of {pools.n_categories} categories give every model the same pool mean ("
            + ", ".join(repr(c) for c in flat[:6])
            + (f", ... {len(flat) - 6} more" if len(flat) > 6 else "")
            + "): their rho is undefined in every split and left out of the macro average"
        )
    return notes


def _run_heldout(
    pools: CategoryPools,
    specs: list[Any],
    sel_labels: list[str],
    split_list: list[Split],
    rets: list[float],
    settings: tuple[int, int, int, Scoring],
    full: np.ndarray,
    *,
    workers: tuple[str | None, str | None, int | None],
    progress: ProgressFn | None,
) -> tuple[np.ndarray, dict[str, float], dict[str, np.ndarray]]:
    """One task per (split, selector) (:func:`_heldout_task`; ``settings`` = floor, base seed,
    min_heldout, scoring) on the sweep backend ``workers`` = (backend, address, n_jobs), gathered in
    order: rho (splits x selectors x retentions x categories), selection seconds per selector, and the
    item each selector picked per (split, retention, category) when the selectors name them."""
    floor, base, min_heldout, scoring = settings
    blocks = CategoryBlocks.from_pools(pools)
    jobs = [(i, s, spec) for i in range(len(split_list)) for s, spec in enumerate(specs)]
    picks: dict[str, np.ndarray] = {}
    rho = np.full((len(split_list), len(sel_labels), len(rets), pools.n_categories), np.nan)
    seconds = dict.fromkeys(sel_labels, 0.0)
    tick = Ticker(progress, len(jobs))
    with sweep_backend(*workers) as n_workers:
        outputs = ordered_parallel(n_workers)(
            delayed(_heldout_task)(
                pools, spec, split_list[i], rets, floor, base, i, min_heldout, scoring, full, blocks
            )
            for i, s, spec in jobs
        )
        for (i, s, _), (r, sec, chosen) in zip(jobs, outputs, strict=True):
            rho[i, s] = r
            seconds[sel_labels[s]] += sec
            for (j, c), name in chosen.items():
                grid = picks.setdefault(
                    sel_labels[s], np.full((len(split_list), len(rets), r.shape[1]), "", dtype=object)
                )
                grid[i, j, c] = name
            tick()
    return rho, seconds, picks


@validate_params({**PROTOCOL_PARAMS, "scoring": [Options(get_args(Scoring))]})
def stage2_heldout(
    panel: Panel,
    *,
    selectors: Sequence[SelectorSpec] = DEFAULT_SELECTORS,
    retentions: Sequence[float] = DEFAULT_RETENTIONS,
    protocol: Literal["random", "chronological"] = "random",
    n_splits: int = 20,
    splits: Sequence[Split] | None = None,
    floor: int = 100,
    min_heldout: int = 10,
    scoring: Scoring = "mean",
    embeddings: ItemEmbeddings | None = None,
    predictions: Any = None,
    random_state: int | np.random.Generator | None = 0,
    n_jobs: int | None = None,
    progress: ProgressFn | None = None,
    backend: str | None = None,
    address: str | None = None,
) -> HeldoutResult:
    """Run the Stage 2 held-out protocol (PRIMEBench D.3, Tables 9-11) on a panel of category pools.

    Parameters
    ----------
    panel
        The category pools (e.g. the Stage 1 panel); image-condition rows are the models. A panel without
        categories has one pool per benchmark (one benchmark, no category: one pool).
    selectors
        Registered selector names (:mod:`benchsift.compression.selectors.registry`) or configured
        :class:`~benchsift.compression.selectors.base.ItemSelector` instances (cloned per selection).
    retentions
        Fractions ``r`` in (0, 1].
    protocol
        ``"random"``: ``n_splits`` random balanced splits; ``"chronological"``: the release-date split and
        its two sensitivity splits (see :mod:`~benchsift.compression.protocols.splits`). Ignored when
        ``splits`` is given.
    floor, min_heldout
        The 100-item floor of ``K_C`` and the minimum number of held-out models for a defined rho.
    scoring
        ``"mean"`` (D.3: the mean on the kept items), ``"weighted"`` (the selector's ``weights_``) or
        ``"selector"`` (the selector's :meth:`~ItemSelector.estimate`, e.g. p-IRT).
    embeddings
        Item embeddings for VAW's cells and ``delta^VL``; default: the question-text embedding if any.
    predictions
        Optional logged answers ``(n_models, n_items)`` aligned with ``panel.scores`` (labels, ``None``/NaN
        missing): DISCO then counts disagreement on the build models' answers (PRIMEBench section 5) instead
        of on their scores.
    random_state
        Seed of the splits and every selection.
    n_jobs
        joblib workers (``-1``: all cores); ``None`` (default) takes the active ``joblib.parallel_backend``'s
        setting (one worker outside any).
    backend, address
        Where the tasks run (:func:`benchsift.parallel.sweep_backend`): ``None`` (default: joblib's
        setting), ``"loky"``, ``"threading"``, ``"dask"`` or ``"ray"``, with the address of a running dask
        scheduler or Ray cluster (``None``: a local one for the call). Results do not depend on it.
    progress
        ``progress(done, total)`` after each (split, selector) task (:mod:`benchsift.progress`); None:
        silent.
    """
    sel_labels = check_selectors(selectors)
    rets = check_retentions(retentions)
    specs = [with_scoring(spec, scoring) for spec in selectors]
    pools = prepare_pools(panel, embeddings, predictions, selectors=specs)
    base = base_seed(random_state)
    split_list, proto_name = _heldout_splits(pools, protocol, splits, n_splits, base)
    full = weighted_group_means(pools.scores, pools.onehot())
    notes = [*pools.notes, *_split_and_pool_notes(pools, split_list, int(min_heldout), full)]
    rho, seconds, picks = _run_heldout(
        pools,
        specs,
        sel_labels,
        split_list,
        rets,
        (int(floor), base, int(min_heldout), scoring),
        full,
        workers=(backend, address, n_jobs),
        progress=progress,
    )
    pool_sizes = np.array([c.shape[0] for c in pools.columns], dtype=np.int64)
    budgets = np.array([[category_budget(int(n), r, int(floor)) for n in pool_sizes] for r in rets])
    warnings = disco_warnings(sel_labels, predictions)
    warnings += floor_override_warnings(rets, budgets, pool_sizes, int(floor))
    warnings += floor_identical_warnings(rets, budgets, int(floor))
    if proto_name == "chronological" and splits is None:
        warnings += partial_dates_warnings(pools.models["release_date"])
    n_valid = np.stack([np.isfinite(full[sp.heldout]).sum(axis=0) for sp in split_list])
    params = {
        "n_models": pools.n_models,
        "n_items": pools.n_items,
        "floor": int(floor),
        "min_heldout": int(min_heldout),
        "scoring": scoring,
        "random_state": random_state if isinstance(random_state, int | None) else "generator",
    }
    return HeldoutResult(
        protocol=proto_name,
        selectors=sel_labels,
        retentions=rets,
        splits=split_list,
        categories=pools.categories,
        rho=rho,
        budgets=budgets,
        pool_sizes=pool_sizes,
        n_heldout_valid=n_valid,
        seconds={k: round(v, 4) for k, v in seconds.items()},
        params=params,
        notes=tuple(notes),
        extra={"picks": picks} if picks else {},
        warnings=tuple(warnings),
    )
