"""The multi-axis verdict table: load, validate, and turn into dense model x item x axis arrays.

The long table (docs/CONTRACTS.md, "Multi-axis verdict table") has one row per (model, item, axis):
``model, item, benchmark, domain, axis, score, answered``, plus ``partial`` (mq: fraction of bundled
answers right) and, for axis ``sc``, ``sc_turn0_correct`` (bool), ``sc_flip_turn`` (1, 2, 3 or NA = no
flip) and ``sc_adopted`` (``yes`` | ``no`` | ``unknown`` | NA).

An item is keyed by (``benchmark``, ``item``): the paper's bootstrap treats an item that two source rows
share as two indices (PRISM-VLM App. E, "Bootstrap specification"). ``answered == False`` means the item
is excluded for that model (PRISM-VLM App. C): it is NaN in every array, never 0.

For the sc axis the retention indicator ("held all three turns") is read from ``sc_flip_turn`` (NA =
held), so an sc row of a turn-0-incorrect item may carry ``score`` NaN. For the other axes ``score`` is
the per-item score in [0, 1].
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from numbers import Real
from pathlib import Path

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from benchsift._inputs import choose
from benchsift._params import Interval
from benchsift._schema import Col, check_frame
from benchsift.errors import InputError
from benchsift.io._common import check_file, check_parquet
from benchsift.panel.clusters import CLUSTER_COLUMN, IMAGE_COLUMNS
from benchsift.panel.long import check_density

__all__ = [
    "AXES",
    "REQUIRED_COLUMNS",
    "VerdictArrays",
    "build_arrays",
    "load_axis_means",
    "load_verdicts",
    "read_table",
    "validate_verdicts",
]

AXES: tuple[str, ...] = ("q", "if", "h", "mq", "sc", "c", "vis")
REQUIRED_COLUMNS: tuple[str, ...] = ("model", "item", "benchmark", "domain", "axis", "score", "answered")
SC_COLUMNS: tuple[str, ...] = ("sc_turn0_correct", "sc_flip_turn", "sc_adopted")
_UNIT = Interval(Real, 0, 1)
#: the verdict table's columns (docs/CONTRACTS.md); ``partial`` is optional
_SCHEMA = {
    "model": Col("name"),
    "item": Col("name"),
    "benchmark": Col("name"),
    "domain": Col(empty=True, fill="unknown"),
    "axis": Col("name"),
    "score": Col("number", empty=True, within=_UNIT),
    "answered": Col("bool"),
    "partial": Col("number", required=False, empty=True, within=_UNIT),
}
#: the sc columns, required once an sc row is present (``sc_flip_turn`` empty = no flip)
_SC_SCHEMA = {
    "sc_turn0_correct": Col("bool", empty=True),
    "sc_flip_turn": Col("number", empty=True, values=(1, 2, 3)),
    "sc_adopted": Col("text", empty=True, values=("yes", "no", "unknown")),
}


def read_table(path: Path) -> pd.DataFrame:
    """Read a CSV or parquet table; :class:`InputError` naming the file when absent or unreadable."""
    check_file(path)
    suffix = path.suffix.lower()
    if suffix in {".parquet", ".pq"}:
        check_parquet(path)  # the footer's counts, before pandas reads a row
    try:
        if suffix in {".parquet", ".pq"}:
            return pd.read_parquet(path)
        if suffix in {".csv", ".txt"}:
            return pd.read_csv(path, keep_default_na=True, dtype={"model": str, "item": str, "axis": str})
    except (OSError, ValueError) as exc:
        raise InputError(f"{path}: could not be read ({exc})") from exc
    raise InputError(f"{path}: expected a .csv or .parquet file, got suffix {suffix!r}")


def validate_verdicts(df: pd.DataFrame, source: str = "<verdict table>") -> pd.DataFrame:
    """Check a long verdict table against the contract and return a normalised copy.

    Raises :class:`InputError` naming ``source``, the column and the first offending row when: a required
    column is missing; ``score`` / ``partial`` leave [0, 1]; ``answered`` is not a bool; an answered
    (non-sc) row has no score; a (model, benchmark, item, axis) key repeats; an item has two domains; or
    the sc fields are malformed. :class:`~benchsift.errors.FormatError` when the dense arrays of
    :func:`build_arrays` would be far larger than the rows can fill (:func:`_check_size`). Scores of
    unanswered rows are set to NaN (App. C: excluded, not 0).
    """
    hint = " (see docs/CONTRACTS.md, 'Multi-axis verdict table')"
    key = ["model", "benchmark", "item", "axis"]
    out = check_frame(df, _SCHEMA, where=source, nonempty=True, key=key, hint=hint)
    out.loc[~out["answered"], "score"] = np.nan
    if "partial" in out.columns:
        out.loc[~out["answered"], "partial"] = np.nan
    is_sc = (out["axis"] == "sc").to_numpy()
    need_score = out["answered"].to_numpy() & ~is_sc & out["score"].isna().to_numpy()
    if need_score.any():
        row = int(np.flatnonzero(need_score)[0])
        raise InputError(
            f"{source}: column 'score' row {row}: answered=True but no score "
            f"(model {out['model'].iloc[row]!r}, axis {out['axis'].iloc[row]!r}); expected a value in [0, 1]"
        )
    n_dom = out.groupby(["benchmark", "item"], sort=False)["domain"].nunique()
    if (n_dom > 1).any():
        b, i = n_dom.index[int(np.flatnonzero((n_dom > 1).to_numpy())[0])]
        raise InputError(f"{source}: item ({b!r}, {i!r}) has more than one domain; expected one per item")
    if is_sc.any():
        _validate_sc(out, is_sc, source)
    axes = set(out["axis"].unique())
    _check_size(
        source,
        models=int(out["model"].nunique()),
        items=len(n_dom),
        axes=len(axes),
        planes=_planes("partial" in out.columns and "mq" in axes, "sc" in axes),
        rows=len(out),
    )
    return out


def _planes(partial: bool, sc: bool) -> int:
    """How many (model x item) arrays :func:`build_arrays` makes besides the scores: ``partial`` (mq partial
    credit) and the three of the sc axis."""
    return int(partial) + 3 * int(sc)


def _check_size(source: str, *, models: int, items: int, axes: int, planes: int, rows: int) -> None:
    """Refuse a verdict table whose dense arrays its rows cannot nearly fill, before they are allocated
    (:func:`benchsift.panel.long.check_density`: over 2**28 float64 cells and over 100 cells per row). The
    cells are those of every array :func:`build_arrays` makes: the (model x item x axis) scores and the
    ``planes`` (model x item) arrays besides (mq partial credit, the three of the sc axis). A verdict table
    of 1,000 rows (27 KB), each a new model, item and axis, asked for 1e9 cells (7.45 GiB)."""
    per_item = f"{axes:,} {'axis' if axes == 1 else 'axes'}"
    if planes:
        per_item = f"({per_item} + {planes} per-item array{'s' if planes > 1 else ''})"
    shape = f"{models:,} models x {items:,} items x {per_item}"
    check_density(source, shape, models * items * (axes + planes), rows)


def _validate_sc(out: pd.DataFrame, is_sc: NDArray[np.bool_], source: str) -> None:
    checked = check_frame(out, _SC_SCHEMA, where=f"{source} (axis 'sc' present)")
    t0 = checked["sc_turn0_correct"]
    no_t0 = is_sc & out["answered"].to_numpy() & t0.isna().to_numpy()
    if no_t0.any():
        row = int(np.flatnonzero(no_t0)[0])
        raise InputError(f"{source}: column 'sc_turn0_correct' row {row}: answered sc row needs true/false")
    out["sc_turn0_correct"] = t0
    out["sc_flip_turn"] = checked["sc_flip_turn"].astype("Int64")
    out["sc_adopted"] = checked["sc_adopted"]


def load_verdicts(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a verdict table (CSV or parquet) and validate it (:func:`validate_verdicts`)."""
    p = Path(path)
    return validate_verdicts(read_table(p), source=str(p))


@dataclass(frozen=True)
class VerdictArrays:
    """Dense arrays built from a verdict table.

    Attributes
    ----------
    models, axes:
        Names, in order of first appearance (axes: known axes in the canonical order, then others).
    benchmarks, item_ids, domains:
        One entry per item (item key = (benchmark, item)).
    scores:
        (n_models, n_items, n_axes) per-item score; NaN where unanswered or absent. For ``sc`` this is the
        retention indicator (1 = held all three turns) on every answered item.
    partial:
        (n_models, n_items) mq partial credit, or None when the table has none.
    sc_turn0_correct, sc_flip_turn, sc_adopted:
        (n_models, n_items) float arrays for the sc axis, NaN where unanswered/absent: turn-0 correctness
        (1/0), flip turn (1, 2, 3; 0 = no flip) and Q3 adoption (1 yes, 0 no, NaN unknown / NA).
        None when the table has no sc axis.
    item_table:
        One row per item: ``benchmark``, ``item`` and the cluster columns the table has (``cluster``,
        ``image_path``, ``image``, ``image_id``; constant within an item), for
        :func:`benchsift.panel.item_clusters`. None when built without them.
    """

    models: list[str]
    axes: list[str]
    benchmarks: NDArray[np.str_]
    item_ids: NDArray[np.str_]
    domains: NDArray[np.str_]
    scores: NDArray[np.float64]
    partial: NDArray[np.float64] | None
    sc_turn0_correct: NDArray[np.float64] | None
    sc_flip_turn: NDArray[np.float64] | None
    sc_adopted: NDArray[np.float64] | None
    item_table: pd.DataFrame | None = None

    @property
    def n_models(self) -> int:
        return len(self.models)

    @property
    def n_items(self) -> int:
        return int(self.item_ids.shape[0])

    @property
    def n_axes(self) -> int:
        return len(self.axes)

    def axis_index(self, axis: str) -> int:
        return self.axes.index(choose(axis, self.axes, what="axis", param="axis", where="verdict table"))

    def subset_items(self, mask: NDArray[np.bool_]) -> VerdictArrays:
        """A copy restricted to the items where ``mask`` is True."""
        m = np.asarray(mask, dtype=bool)

        def cut(a: NDArray[np.float64] | None) -> NDArray[np.float64] | None:
            return None if a is None else a[:, m].copy()

        return VerdictArrays(
            models=list(self.models),
            axes=list(self.axes),
            benchmarks=self.benchmarks[m].copy(),
            item_ids=self.item_ids[m].copy(),
            domains=self.domains[m].copy(),
            scores=self.scores[:, m, :].copy(),
            partial=cut(self.partial),
            sc_turn0_correct=cut(self.sc_turn0_correct),
            sc_flip_turn=cut(self.sc_flip_turn),
            sc_adopted=cut(self.sc_adopted),
            item_table=None if self.item_table is None else self.item_table[m].reset_index(drop=True),
        )


def _ordered_axes(names: pd.Series) -> list[str]:
    present = list(pd.unique(names))
    return [a for a in AXES if a in present] + [a for a in present if a not in AXES]


def build_arrays(df: pd.DataFrame, validated: bool = False) -> VerdictArrays:
    """Build :class:`VerdictArrays` from a long verdict table (validated first unless ``validated``); a
    table whose arrays its rows cannot nearly fill is refused before they are allocated (:func:`_check_size`,
    also run by :func:`validate_verdicts`, which names the file)."""
    v = df if validated else validate_verdicts(df)
    m_idx, m_uniq = pd.factorize(v["model"], sort=False)
    models = [str(m) for m in m_uniq]
    a_codes, a_uniq = pd.factorize(v["axis"], sort=False)
    axes = _ordered_axes(pd.Series([str(a) for a in a_uniq]))
    a_idx = np.array([axes.index(str(a)) for a in a_uniq], dtype=np.intp)[a_codes]
    b_codes, _ = pd.factorize(v["benchmark"], sort=False)
    it_codes, it_uniq = pd.factorize(v["item"], sort=False)
    i_idx, uniq = pd.factorize(b_codes.astype(np.int64) * max(len(it_uniq), 1) + it_codes, sort=False)
    _, first = np.unique(i_idx, return_index=True)  # first row of each item, items in appearance order
    benchmarks = v["benchmark"].iloc[first].to_numpy(dtype=str)
    item_ids = v["item"].iloc[first].to_numpy(dtype=str)
    domains = v["domain"].iloc[first].to_numpy(dtype=str)
    n_m, n_i, n_a = len(models), len(uniq), len(axes)
    is_sc = (v["axis"] == "sc").to_numpy()
    planes = _planes("partial" in v.columns and "mq" in axes, bool(is_sc.any()))
    _check_size("verdict table", models=n_m, items=n_i, axes=n_a, planes=planes, rows=len(v))

    answered = v["answered"].to_numpy(bool)
    scores = np.full((n_m, n_i, n_a), np.nan)
    val = v["score"].to_numpy(float)
    if is_sc.any():
        held = v["sc_flip_turn"].isna().to_numpy()
        val = np.where(is_sc, held.astype(float), val)
    keep = answered
    scores[m_idx[keep], i_idx[keep], a_idx[keep]] = val[keep]

    partial = None
    if "partial" in v.columns and "mq" in axes:
        sel = keep & (v["axis"] == "mq").to_numpy()
        pv = v["partial"].to_numpy(float)
        partial = np.full((n_m, n_i), np.nan)
        partial[m_idx[sel], i_idx[sel]] = pv[sel]
        if np.isnan(partial[~np.isnan(scores[:, :, axes.index("mq")])]).all():
            partial = None

    t0 = flip = adopt = None
    if is_sc.any():
        sel = keep & is_sc
        t0 = np.full((n_m, n_i), np.nan)
        flip = np.full((n_m, n_i), np.nan)
        adopt = np.full((n_m, n_i), np.nan)
        t0v = v["sc_turn0_correct"].astype("boolean").fillna(False).to_numpy(bool).astype(float)
        fv = v["sc_flip_turn"].astype("Float64").fillna(0.0).to_numpy(float)
        ad = v["sc_adopted"]
        av = np.where(ad.eq("yes").fillna(False).to_numpy(bool), 1.0, np.nan)
        av = np.where(ad.eq("no").fillna(False).to_numpy(bool), 0.0, av)
        t0[m_idx[sel], i_idx[sel]] = t0v[sel]
        flip[m_idx[sel], i_idx[sel]] = fv[sel]
        adopt[m_idx[sel], i_idx[sel]] = av[sel]
    return VerdictArrays(
        item_table=_item_table(v, i_idx, first),
        models=models,
        axes=axes,
        benchmarks=benchmarks,
        item_ids=item_ids,
        domains=domains,
        scores=scores,
        partial=partial,
        sc_turn0_correct=t0,
        sc_flip_turn=flip,
        sc_adopted=adopt,
    )


def _item_table(v: pd.DataFrame, i_idx: NDArray[np.intp], first: NDArray[np.intp]) -> pd.DataFrame:
    """``benchmark, item`` and the cluster columns present, one row per item; a cluster column must be
    constant within an item (:class:`InputError` naming the item otherwise)."""
    out = v[["benchmark", "item"]].iloc[first].reset_index(drop=True)
    for col in (CLUSTER_COLUMN, *IMAGE_COLUMNS):
        if col not in v.columns:
            continue
        text = v[col].astype("string")
        n_val = text.groupby(i_idx).nunique()
        if (n_val > 1).any():
            j = int(n_val.index[int(np.flatnonzero((n_val > 1).to_numpy())[0])])
            raise InputError(
                f"verdict table: column {col!r} differs between the rows of item "
                f"({out['benchmark'].iloc[j]!r}, {out['item'].iloc[j]!r}); expected one value per item"
            )
        out[col] = v[col].iloc[first].to_numpy(dtype=object)
    return out


def load_axis_means(
    path: str | os.PathLike[str], axes: list[str] | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Read per-model axis means: a CSV/parquet with a ``model`` column and one column per axis.

    ``axes`` names the axis columns; by default the known axes (q, if, h, mq, sc, c, vis) present in the
    file, or, when none is, every numeric column. Returns ``(means, extra)``: ``means`` indexed by model
    with one float column per axis (values in [0, 1], NaN allowed), ``extra`` the remaining columns.
    """
    p = Path(path)
    return split_axis_means(read_table(p), axes, where=str(p))


def split_axis_means(
    df: pd.DataFrame, axes: list[str] | None = None, where: str = "axis means"
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`load_axis_means` on a table already in memory; ``where`` names it in error messages."""
    if axes is None:
        axes = [a for a in AXES if a in df.columns]
        if not axes:
            axes = [c for c in df.columns if c != "model" and pd.api.types.is_numeric_dtype(df[c])]
    if len(axes) == 0:
        raise InputError(f"{where}: no axis columns found; expected one numeric column per axis")
    schema = {"model": Col("name"), **{a: Col("number", empty=True, within=_UNIT) for a in axes}}
    checked = check_frame(df, schema, where=where, key=["model"])
    index = pd.Index(checked["model"], name="model")
    means = pd.DataFrame({a: checked[a].to_numpy(float) for a in axes}, index=index)
    extra = df.drop(columns=list(axes)).set_index(means.index)
    extra = extra.drop(columns=["model"]) if "model" in extra.columns else extra
    return means, extra
