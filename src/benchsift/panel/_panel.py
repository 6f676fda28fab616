"""The score panel: the one object every benchsift method reads.

A panel is a models x items matrix of scores in [0, 1] (``NaN`` = missing, never zero) with two metadata
tables:

* ``models``: one row per model *run*: ``model``, ``condition`` (``"image"`` or ``"text-only"``, the
  image-free runs used by blind-solvability filtering, PRIMEBench Section 4 Stage 0), ``family``,
  ``release_date``, ``params`` (billions). ``(model, condition)`` is unique.
* ``items``: one row per item: ``benchmark``, ``item``, ``category`` and optional ``question``, ``answer``,
  ``image``. ``(benchmark, item)`` is unique.

Importers (:mod:`benchsift.io`) and the simulator (:mod:`benchsift.simulate`) make panels; the methods only
read them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchsift._inputs import check_array, check_choice, check_shape
from benchsift._params import Options, check_param
from benchsift._schema import Col, check_frame
from benchsift._suggest import did_you_mean
from benchsift.errors import InputError
from benchsift.panel.dates import parse_release_dates

CONDITIONS: tuple[str, ...] = ("image", "text-only")
MODEL_COLUMNS: tuple[str, ...] = ("model", "condition", "family", "release_date", "params")
ITEM_COLUMNS: tuple[str, ...] = ("benchmark", "item", "category")

Selector = Sequence[bool] | Sequence[int] | Sequence[str] | np.ndarray | None


@dataclass(frozen=True)
class GroupScores:
    """Per-model mean scores over groups of items (benchmarks, categories, ...).

    Attributes
    ----------
    groups:
        Group names, in order of first appearance in the panel.
    means:
        ``(n_models, n_groups)``: mean over the model's *scored* items of the group,
        :math:`\\bar s_{m,g} = \\sum_{i \\in g, s_{mi} \\ne NaN} s_{mi} / |\\{i \\in g: s_{mi} \\ne NaN\\}|`;
        NaN when the model has no score in the group.
    coverage:
        ``(n_models, n_groups)``: fraction of the group's items the model has a score for.
    n_items:
        ``(n_groups,)``: number of items in each group.
    model_ids:
        Row labels (the panel's model ids; text-only runs are suffixed ``" [text-only]"``).
    """

    groups: list[str]
    means: np.ndarray
    coverage: np.ndarray
    n_items: np.ndarray
    model_ids: list[str]

    def to_frame(self, what: str = "both") -> pd.DataFrame:
        """A DataFrame indexed by model.

        ``what="both"`` (default): two columns per group, ``(group, "mean")`` and ``(group, "coverage")``
        (a column MultiIndex; ``frame.xs("coverage", axis=1, level=1)`` is the coverage matrix).
        ``"means"`` or ``"coverage"``: that matrix alone, one column per group.
        """
        check_param("what", what, [Options(("both", "means", "coverage"))], owner="GroupScores.to_frame")
        index = pd.Index(self.model_ids, name="model")
        if what != "both":
            data = self.means if what == "means" else self.coverage
            return pd.DataFrame(data, index=index, columns=list(self.groups))
        n_groups = len(self.groups)
        both = np.empty((len(self.model_ids), 2 * n_groups))
        both[:, 0::2] = self.means
        both[:, 1::2] = self.coverage
        columns = pd.MultiIndex.from_product([list(self.groups), ["mean", "coverage"]], names=["group", None])
        return pd.DataFrame(both, index=index, columns=columns)


def _as_str_series(values: pd.Series) -> pd.Series:
    """Optional text metadata as an object column of ``str`` with ``None`` for missing."""
    if isinstance(values.dtype, pd.StringDtype):  # a parquet file's strings: already ``str``
        # each distinct text made a Python str once, then taken by its code (a missing one's code, -1, takes
        # the None at the end): 8 ms where converting every cell took 33 for 386,312 cells of 30 categories
        codes, uniques = pd.factorize(values)
        table = np.empty(len(uniques) + 1, dtype=object)
        table[:-1] = uniques.to_numpy(dtype=object)
        table[-1] = None
        return pd.Series(table[codes], index=values.index, dtype=object)
    present = values.notna().to_numpy()
    text = np.array(values.astype(object).to_numpy(), dtype=object, copy=True)
    if present.any():
        text[present] = values[present].astype(str).to_numpy(dtype=object)
    text[~present] = None
    return pd.Series(text, index=values.index, dtype=object)


#: the panel's models table: an id per row, the condition (empty = image), the size in parameters
_MODELS_SCHEMA = {
    "model": Col("name"),
    "condition": Col(required=False, empty=True, fill="image", add=True, values=CONDITIONS),
    "params": Col("number", required=False, empty=True, add=True),
}
#: the panel's items table: (benchmark, item) names each item column once
_ITEMS_SCHEMA = {"benchmark": Col("name"), "item": Col("name")}


def _normalise_models(models: pd.DataFrame | Sequence[str], n_rows: int) -> pd.DataFrame:
    if not isinstance(models, pd.DataFrame):
        models = pd.DataFrame({"model": [str(m) for m in models]})
    df = check_frame(
        models,
        _MODELS_SCHEMA,
        where="panel models table",
        rows=(n_rows, f"the score matrix has {n_rows} model rows"),
        key=("model", "condition"),
    )
    if "family" not in df.columns:
        df["family"] = pd.NA
    df["family"] = _as_str_series(df["family"])
    if "release_date" not in df.columns:
        df["release_date"] = pd.NaT
    # the readings' warnings are the importers' to give (a side file's are; see benchsift.panel.dates)
    df["release_date"] = parse_release_dates(df["release_date"], "panel models table")[0]
    ordered = list(MODEL_COLUMNS) + [c for c in df.columns if c not in MODEL_COLUMNS]
    return df[ordered]


def _normalise_items(items: pd.DataFrame, n_cols: int) -> pd.DataFrame:
    df = check_frame(
        items,
        _ITEMS_SCHEMA,
        where="panel items table",
        rows=(n_cols, f"the score matrix has {n_cols} item columns"),
        key=("benchmark", "item"),
    )
    if "category" not in df.columns:
        df["category"] = pd.NA
    df["category"] = _as_str_series(df["category"])
    ordered = list(ITEM_COLUMNS) + [c for c in df.columns if c not in ITEM_COLUMNS]
    return df[ordered]


def _validate_scores(scores: Any) -> tuple[np.ndarray, bool]:
    """The checked score matrix (never the caller's memory) and whether every score is NaN or in [0, 1]
    (when not, an infinite score has been refused here; :func:`_check_range` names the first bad one)."""
    arr = check_array(
        "panel scores", scores, ndim=2, what="a 2-D models x items matrix, shape (n_models, n_items)"
    )
    ok = _in_unit_interval(arr)
    if not ok:
        _reject_inf(arr, 0)
    return (arr.copy() if arr is scores or arr.base is not None else arr), ok


def _in_unit_interval(block: np.ndarray) -> bool:
    """Whether every score of ``block`` is NaN or in [0, 1]: two NaN-ignoring reductions and no temporary
    (an infinite score is outside too); a block of NaN only answers False, and the exact checks decide."""
    if block.size == 0:
        return True
    return bool(np.fmin.reduce(block, axis=None) >= 0.0) and bool(np.fmax.reduce(block, axis=None) <= 1.0)


def _reject_inf(block: np.ndarray, start: int) -> None:
    """Refuse an infinite score in rows ``start:start + len(block)`` (a score is finite or NaN = missing)."""
    if np.isinf(block).any():
        m, i = np.argwhere(np.isinf(block))[0]
        raise InputError(f"panel scores: infinite value at model row {start + m}, item column {i}")


def _check_range(block: np.ndarray, start: int, models: pd.DataFrame, items: pd.DataFrame) -> None:
    """Refuse a score outside [0, 1] in rows ``start:start + len(block)``, naming its model and item."""
    with np.errstate(invalid="ignore"):
        bad = (block < 0) | (block > 1)
    if bad.any():
        m, i = np.argwhere(bad)[0]
        model, item = models.iloc[start + m], items.iloc[i]
        raise InputError(
            f"panel scores must lie in [0, 1] (NaN = missing); model {model['model']!r} "
            f"({model['condition']}), benchmark {item['benchmark']!r}, item {item['item']!r} has "
            f"{float(block[m, i]):g}"
        )


class Panel:
    """A models x items score matrix with model and item metadata.

    Parameters
    ----------
    scores:
        ``(n_models, n_items)`` array-like of floats in ``[0, 1]``; ``NaN`` marks a missing score.
    models:
        DataFrame with at least a ``model`` column (optional ``condition``, ``family``, ``release_date``,
        ``params`` and extra columns), or a plain sequence of model ids.
    items:
        DataFrame with at least ``benchmark`` and ``item`` columns (optional ``category``, ``question``,
        ``answer``, ``image`` and extra columns).

    The constructor validates everything once (shape, range, unique keys, known conditions) and raises
    :class:`~benchsift.errors.InputError` naming the offending row or column. The score matrix is stored
    read-only; every transformation returns a new panel.
    """

    __slots__ = ("_scores", "_models", "_items")

    def __init__(self, scores: Any, models: pd.DataFrame | Sequence[str], items: pd.DataFrame) -> None:
        arr, in_range = _validate_scores(scores)
        self._models = _normalise_models(models, arr.shape[0])
        self._items = _normalise_items(items, arr.shape[1])
        if not in_range:
            _check_range(arr, 0, self._models, self._items)
        arr.flags.writeable = False
        self._scores = arr

    @classmethod
    def _from_owned(
        cls, scores: np.ndarray, models: pd.DataFrame | Sequence[str], items: pd.DataFrame
    ) -> Panel:
        """Build from a float64 matrix the caller made and hands over (an importer's), without copying it.

        The same checks and messages as the constructor, run over blocks of rows so that no full-size
        temporary is made; the matrix becomes read-only (a transposed view is made contiguous first).
        """
        if not isinstance(scores, np.ndarray) or scores.dtype != np.float64 or scores.ndim != 2:
            return cls(scores, models, items)
        arr = np.ascontiguousarray(scores)
        model_table = _normalise_models(models, arr.shape[0])
        item_table = _normalise_items(items, arr.shape[1])
        step = max(1, (1 << 22) // max(1, arr.shape[1]))
        for start in range(0, arr.shape[0], step):
            block = arr[start : start + step]
            if not _in_unit_interval(block):
                _reject_inf(block, start)
                _check_range(block, start, model_table, item_table)
        obj = cls.__new__(cls)
        obj._models = model_table
        obj._items = item_table
        arr.flags.writeable = False
        obj._scores = arr
        return obj

    @classmethod
    def _trusted(cls, scores: np.ndarray, models: pd.DataFrame, items: pd.DataFrame) -> Panel:
        """Build from parts that are already valid (subsets of a valid panel)."""
        obj = cls.__new__(cls)
        scores = np.ascontiguousarray(scores, dtype=np.float64)
        scores.flags.writeable = False
        obj._scores = scores
        obj._models = models.reset_index(drop=True)
        obj._items = items.reset_index(drop=True)
        return obj

    # ------------------------------------------------------------------ construction helpers
    @classmethod
    def from_matrix(
        cls,
        scores: Any,
        model_ids: Sequence[str],
        item_ids: Sequence[str],
        benchmark: str = "default",
        categories: Sequence[str | None] | None = None,
    ) -> Panel:
        """A one-benchmark panel from a bare matrix, model ids and item ids."""
        items = pd.DataFrame({"benchmark": benchmark, "item": [str(i) for i in item_ids]})
        if categories is not None:
            items["category"] = list(categories)
        return cls(scores, list(model_ids), items)

    @classmethod
    def from_long(
        cls,
        df: pd.DataFrame,
        models: pd.DataFrame | None = None,
        items: pd.DataFrame | None = None,
        *,
        source: str = "long table",
        rows: Sequence[str] | None = None,
    ) -> Panel:
        """Build a panel from a long table with columns ``model, benchmark, item, score``.

        Optional columns: ``condition`` (default ``image``), ``category`` and any item metadata
        (``question``, ``answer``, ``image``, ...). Optional side tables ``models`` (``model``, ``family``,
        ``release_date``, ``params``; ``condition`` optional) and ``items`` (``benchmark``, ``item``,
        ``category``, ...) add metadata. Identical duplicate rows are collapsed; conflicting duplicates of one
        ``(model, condition, benchmark, item)`` are an error naming ``source`` and the row: ``rows[i]`` names
        ``df``'s i-th row (e.g. ``"line 7"`` of a CSV file; default ``"row i"``).

        The table takes the one builder of ``benchsift import long`` and the sample importers
        (:mod:`benchsift.panel.long`), so it is read as they read a file: ids, conditions and categories are
        text, stripped (``" m1 "`` is ``"m1"``; a number is its text, an integral float ``3.0`` is ``"3"``),
        an empty id is an error; a score is a number or a text of one (blank, ``NA``, ``None`` missing;
        ``true``/``false`` 1/0), an infinite score is an error; a conflicting duplicate is
        ``"<source>, <row>: conflicting duplicate scores for model ..., benchmark ..., item ...: <score> here
        and <score> at <source>, <first row>"``. Unlike the importer it does not rescale: a score outside
        [0, 1] is an error naming its row (percentages: ``benchsift import long`` rescales them). Among the
        metadata columns, ``family``, ``release_date`` and ``params`` are model metadata; ``category``,
        ``question``, ``answer``, ``answers`` and ``image`` item metadata; any other column is item metadata
        when constant within every item, else model metadata when constant within every run, else left out;
        each keeps its dtype.
        """
        from benchsift.panel.long import panel_from_frame

        return panel_from_frame(df, models=models, items=items, source=source, rows=rows)

    # ------------------------------------------------------------------ basic properties
    @property
    def scores(self) -> np.ndarray:
        """The read-only ``(n_models, n_items)`` float64 score matrix (NaN = missing)."""
        return self._scores

    @property
    def models(self) -> pd.DataFrame:
        """Model metadata, one row per score-matrix row (a copy)."""
        return self._models.copy()

    @property
    def items(self) -> pd.DataFrame:
        """Item metadata, one row per score-matrix column (a copy)."""
        return self._items.copy()

    @property
    def n_models(self) -> int:
        return int(self._scores.shape[0])

    @property
    def n_items(self) -> int:
        return int(self._scores.shape[1])

    @property
    def shape(self) -> tuple[int, int]:
        return (self.n_models, self.n_items)

    @property
    def model_ids(self) -> list[str]:
        """Model ids in row order (text-only runs keep the model's id; see :attr:`model_labels`)."""
        return self._models["model"].tolist()

    @property
    def model_labels(self) -> list[str]:
        """Unique row labels: the model id, suffixed ``" [text-only]"`` for text-only runs."""
        cond = self._models["condition"].to_numpy()
        return [m if c == "image" else f"{m} [{c}]" for m, c in zip(self._models["model"], cond, strict=True)]

    @property
    def conditions(self) -> np.ndarray:
        return self._models["condition"].to_numpy(dtype=object)

    @property
    def image_rows(self) -> np.ndarray:
        """Boolean mask over the model rows: ``True`` for the image-condition runs (the rows of
        :meth:`image_panel`)."""
        return (self._models["condition"] == "image").to_numpy(dtype=bool)

    @property
    def text_only_rows(self) -> np.ndarray:
        """Boolean mask over the model rows: ``True`` for the text-only runs (the rows of
        :meth:`text_only_panel`)."""
        return (self._models["condition"] == "text-only").to_numpy(dtype=bool)

    @property
    def benchmarks(self) -> list[str]:
        """Benchmark names in order of first appearance."""
        return list(pd.unique(self._items["benchmark"]))

    def benchmark_positions(self) -> list[np.ndarray]:
        """Item positions (score columns) of each benchmark, in :attr:`benchmarks` order (the order of
        :meth:`benchmark_means`' columns)."""
        bench = self._items["benchmark"].astype(str).to_numpy()
        return [np.flatnonzero(bench == str(b)) for b in self.benchmarks]

    @property
    def categories(self) -> list[str]:
        """Category names in order of first appearance (missing categories skipped).

        An item's category is the one the items table gives, missing where none is given; the
        compression's grouping, which puts such an item in a group named after its benchmark, is
        :attr:`category_or_benchmark` (:mod:`benchsift.panel.categories`)."""
        return [c for c in pd.unique(self._items["category"]) if isinstance(c, str)]

    @property
    def category_or_benchmark(self) -> np.ndarray:
        """Each item's category, or its benchmark's name where the category is missing (object array of
        str, one per item column): the grouping of the compression (PRIMEBench Stages 1-3), not the item's
        category (:attr:`categories` skips missing ones). See :mod:`benchsift.panel.categories`."""
        from benchsift.panel.categories import category_or_benchmark

        return category_or_benchmark(self._items)

    @property
    def item_keys(self) -> list[tuple[str, str]]:
        """``(benchmark, item)`` pairs in column order."""
        return list(zip(self._items["benchmark"], self._items["item"], strict=True))

    @property
    def observed(self) -> np.ndarray:
        """Boolean ``(n_models, n_items)`` mask of non-missing cells."""
        return ~np.isnan(self._scores)

    @property
    def coverage(self) -> float:
        """Fraction of non-missing cells."""
        return float(self.observed.mean()) if self._scores.size else float("nan")

    @property
    def mean_score(self) -> float:
        """Mean over all non-missing cells (NaN for an all-missing panel)."""
        obs = self.observed
        return float(self._scores[obs].mean()) if obs.any() else float("nan")

    def __repr__(self) -> str:
        return (
            f"Panel({self.n_models} models x {self.n_items} items, {len(self.benchmarks)} benchmarks, "
            f"coverage {self.coverage:.3f})"
        )

    def _repr_html_(self) -> str:
        """Jupyter's view: sizes, benchmarks, coverage, score range and the first rows of both tables."""
        from benchsift.panel._html import panel_html

        return panel_html(self)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Panel):
            return NotImplemented
        return (
            self.shape == other.shape
            and np.array_equal(self._scores, other._scores, equal_nan=True)
            and self._models.equals(other._models)
            and self._items.equals(other._items)
        )

    __hash__ = None  # type: ignore[assignment]

    # ------------------------------------------------------------------ subsetting
    def _model_positions(self, models: Selector) -> np.ndarray:
        if models is None:
            return np.arange(self.n_models)
        return _positions(models, self.n_models, self._models["model"], "model")

    def _item_positions(self, items: Selector) -> np.ndarray:
        if items is None:
            return np.arange(self.n_items)
        return _positions(items, self.n_items, self._items["item"], "item")

    def subset(self, models: Selector = None, items: Selector = None) -> Panel:
        """A new panel restricted to some models and/or items.

        Each selector is a boolean mask, integer positions, or (ids) a list of model ids / item ids. A model
        id selects every run (condition) of that model.
        """
        mi = self._model_positions(models)
        ii = self._item_positions(items)
        return Panel._trusted(self._scores[np.ix_(mi, ii)], self._models.iloc[mi], self._items.iloc[ii])

    def select_benchmarks(self, names: str | Iterable[str]) -> Panel:
        """Items of the named benchmark(s); unknown names are an error."""
        wanted = [names] if isinstance(names, str) else list(names)
        _check_known(wanted, self.benchmarks, "benchmark")
        return self.subset(items=self._items["benchmark"].isin(wanted).to_numpy())

    def select_categories(self, names: str | Iterable[str]) -> Panel:
        """Items of the named categories; unknown names are an error."""
        wanted = [names] if isinstance(names, str) else list(names)
        _check_known(wanted, self.categories, "category")
        return self.subset(items=self._items["category"].isin(wanted).to_numpy())

    @staticmethod
    def check(obj: object, where: str = "", *, image: bool = False) -> Panel:
        """``obj`` when it is a :class:`Panel` (and, with ``image=True``, has image-condition model rows);
        else :class:`~benchsift.errors.InputError` ``"<where>: expected a benchsift Panel, got <type>"`` or
        ``"<where>: the panel has no image-condition model rows (models.condition)"``: the one check of a
        method's panel argument."""
        lead = f"{where}: " if where else ""
        if not isinstance(obj, Panel):
            raise InputError(f"{lead}expected a benchsift Panel, got {type(obj).__name__}")
        if image and not obj.image_rows.any():
            raise InputError(f"{lead}the panel has no image-condition model rows (models.condition)")
        return obj

    def select_condition(self, condition: str) -> Panel:
        """Model rows with the given condition (``"image"`` or ``"text-only"``)."""
        check_param("condition", condition, [Options(CONDITIONS)])
        return self.subset(models=(self._models["condition"] == condition).to_numpy())

    def image_panel(self) -> Panel:
        """The image-condition model rows (the ordinary runs)."""
        return self.select_condition("image")

    def text_only_panel(self) -> Panel:
        """The text-only (image-free) model rows."""
        return self.select_condition("text-only")

    # ------------------------------------------------------------------ aggregation
    def group_means(self, by: str = "benchmark") -> GroupScores:
        """NaN-aware per-model mean score over each group of items (see :class:`GroupScores`).

        ``by`` is ``"benchmark"``, ``"category"`` or any item metadata column; items whose group value is
        missing are left out. Computed as two matrix products with the 0/1 group-membership matrix, so the
        cost is O(n_models x n_items).
        """
        check_choice("group_means", by, list(self._items.columns), what="item column")
        labels = self._items[by]
        present = labels.notna().to_numpy()
        codes, groups = pd.factorize(labels[present], sort=False)
        n_groups = len(groups)
        member = np.zeros((int(present.sum()), n_groups))
        member[np.arange(len(codes)), codes] = 1.0
        sub = self._scores[:, present]
        obs = ~np.isnan(sub)
        sums = np.where(obs, sub, 0.0) @ member
        counts = obs.astype(np.float64) @ member
        n_items = member.sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            means = np.where(counts > 0, sums / np.where(counts > 0, counts, 1.0), np.nan)
            coverage = counts / n_items
        return GroupScores(
            groups=[str(g) for g in groups],
            means=means,
            coverage=coverage,
            n_items=n_items.astype(np.int64),
            model_ids=self.model_labels,
        )

    def benchmark_means(self) -> GroupScores:
        """Per-model mean over each benchmark's scored items."""
        return self.group_means("benchmark")

    def category_means(self) -> GroupScores:
        """Per-model mean over each category's scored items (items without a category left out)."""
        return self.group_means("category")

    def model_means(self) -> np.ndarray:
        """Per-model mean over all scored items (NaN for a model with none). One pass of row sums: a row
        whose sum is finite has no missing cell (NaN would propagate, and a panel holds no infinity), so its
        mean is the sum over the items; only the other rows are summed again over their observed cells
        (the same bits as that NaN-aware sum for every row)."""
        n_models, n_items = self._scores.shape
        if not n_items:
            return np.full(n_models, np.nan)
        sums = self._scores.sum(axis=1)
        out = sums / n_items
        gaps = np.flatnonzero(~np.isfinite(sums))
        if gaps.size:
            part = self._scores[gaps]
            obs = ~np.isnan(part)
            counts = obs.sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                out[gaps] = np.where(
                    counts > 0, np.where(obs, part, 0.0).sum(axis=1) / np.maximum(counts, 1), np.nan
                )
        return out

    # ------------------------------------------------------------------ conversion and storage
    def to_long(self, dropna: bool = True) -> pd.DataFrame:
        """The panel as a long table: one row per (model run, item) with model and item metadata."""
        from benchsift.panel.long import panel_to_long

        return panel_to_long(self, dropna=dropna)

    def save(self, path: str | Path) -> Path:
        """Write the panel to one parquet file (atomically). See :mod:`benchsift.panel._storage`."""
        from benchsift.panel._storage import save_panel

        return save_panel(self, path)

    @classmethod
    def load(cls, path: str | Path) -> Panel:
        """Read a panel written by :meth:`save`."""
        from benchsift.panel._storage import load_panel

        return load_panel(cls, path)


def _positions(sel: Any, n: int, ids: pd.Series, what: str) -> np.ndarray:
    arr = np.asarray(sel)
    if arr.dtype == bool:
        check_shape(f"{what} mask", arr.shape, (n,), what="one entry per row, shape")
        return np.flatnonzero(arr)
    if arr.size == 0:
        return np.arange(0)
    if np.issubdtype(arr.dtype, np.integer):
        check_array(f"{what} positions", arr, dtype=None, low=-n, high=n - 1)  # negative: from the end
        return arr.astype(np.int64) % n
    wanted = [str(x) for x in arr.ravel()]
    idx = ids.to_numpy(dtype=object)
    known = set(idx)
    missing = [w for w in wanted if w not in known]
    if missing:
        raise InputError(f"unknown {what} id(s): {missing[:5]}{did_you_mean(missing[0], known)}")
    order = {w: k for k, w in enumerate(wanted)}
    pos = np.flatnonzero(np.isin(idx, wanted))
    return pos[np.argsort([order[idx[p]] for p in pos], kind="stable")]


def _check_known(wanted: list[str], known: list[str], what: str) -> None:
    missing = [w for w in wanted if w not in known]
    if missing:
        raise InputError(
            f"unknown {what}(s) {missing}{did_you_mean(missing[0], known)}; the panel has {known[:20]}"
        )
