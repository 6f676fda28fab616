"""Item clusters: which items share an image, a passage or a source question (so are not independent).

:func:`item_clusters` reads them off an item table (a :attr:`Panel.items` or any table with ``benchmark``
and ``item``):

1. an explicit ``cluster`` column (:data:`CLUSTER_COLUMN`): equal values are one cluster, across
   benchmarks too (the user's own labels);
2. otherwise the first image reference column present (:data:`IMAGE_COLUMNS`): ``image_path`` (what
   VLMEvalKit keeps in its result files, e.g. MME's two questions per image; ``vlmeval/inference.py``
   drops the base64 ``image`` column but keeps ``image_path``), ``image`` (the long / wide importers keep
   it as item metadata), ``image_id``. Items of one benchmark with the same value are one cluster; the
   benchmark is part of the key because image paths are relative to a benchmark's own image folder.
   Such an inferred grouping is named in :attr:`ItemClusters.warnings` (and so in ``--json``
   ``"warnings"``), with the column it came from.

An item without a value (None, NaN, empty text) is its own singleton cluster. A column in which no two items
share a value gives no clusters (``used`` is False) and the bootstraps stay the plain item bootstrap.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

import numpy as np
import pandas as pd

from benchsift._inputs import check_choice, check_shape
from benchsift._schema import Col, check_frame

__all__ = ["CLUSTER_COLUMN", "IMAGE_COLUMNS", "ClusterSpec", "ItemClusters", "item_clusters"]

CLUSTER_COLUMN = "cluster"
IMAGE_COLUMNS: tuple[str, ...] = ("image_path", "image", "image_id")

#: what a ``clusters=`` parameter accepts: ``"auto"`` (detect), ``None`` / ``False`` (no clusters), a
#: column name of the item table, or one label per item
ClusterSpec: TypeAlias = str | bool | None | Sequence[Any] | np.ndarray | pd.Series


@dataclass(frozen=True)
class ItemClusters:
    """Cluster labels of the items of a table (see the module docstring).

    ``codes`` (n_items,) holds integer labels, equal for items of one cluster, numbered ``0 .. G-1`` in
    order of first appearance (so with no shared cluster ``codes == arange(n_items)``); ``column`` the
    column they came from (None when given as labels or absent); ``inferred`` whether they were guessed
    from an image reference column.
    """

    codes: np.ndarray
    n_clusters: int
    column: str | None
    inferred: bool
    warnings: list[str] = field(default_factory=list)

    @property
    def n_items(self) -> int:
        return int(self.codes.size)

    @property
    def used(self) -> bool:
        """True when at least two items share a cluster (the bootstraps then resample clusters)."""
        return self.n_clusters < self.n_items

    @property
    def largest(self) -> int:
        return int(np.bincount(self.codes).max()) if self.codes.size else 0

    def to_dict(self) -> dict[str, Any]:
        """``{"used", "n_clusters", "n_items", "largest", "column", "inferred"}`` for a result's JSON."""
        return {
            "used": self.used,
            "n_clusters": self.n_clusters,
            "n_items": self.n_items,
            "largest": self.largest,
            "column": self.column,
            "inferred": self.inferred,
        }

    def subset(self, mask: np.ndarray) -> ItemClusters:
        """The clusters of the items where ``mask`` is True, renumbered."""
        codes = _first_appearance(self.codes[np.asarray(mask, dtype=bool)])
        return ItemClusters(codes, int(codes.max()) + 1 if codes.size else 0, self.column, self.inferred)


def _first_appearance(keys: np.ndarray) -> np.ndarray:
    codes, _ = pd.factorize(pd.Series(keys, dtype=object), sort=False)
    return codes.astype(np.intp)


def _labels(values: Any, n: int, where: str) -> np.ndarray:
    """Object array of one key per item; missing values become unique singleton keys."""
    arr = pd.Series(list(values) if not isinstance(values, pd.Series) else values.to_numpy(), dtype=object)
    check_shape(where, (len(arr),), (n,), what="one cluster label per item, shape")
    missing = arr.isna().to_numpy() | (arr.astype(str).str.strip() == "").to_numpy()
    keys = arr.astype(str).to_numpy(dtype=object)
    keys[missing] = [f"\x00singleton{i}" for i in np.flatnonzero(missing)]
    return keys


def _none(n: int) -> ItemClusters:
    return ItemClusters(np.arange(n, dtype=np.intp), n, None, False)


def _from_keys(keys: np.ndarray, column: str | None, inferred: bool) -> ItemClusters:
    codes = _first_appearance(keys)
    return ItemClusters(codes, int(codes.max()) + 1 if codes.size else 0, column, inferred)


def item_clusters(items: pd.DataFrame, clusters: ClusterSpec = "auto") -> ItemClusters:
    """Cluster labels of the items in ``items`` (one row per item).

    Parameters
    ----------
    items:
        An item table with ``benchmark`` (needed when clusters are inferred from an image column).
    clusters:
        ``"auto"``: the ``cluster`` column if present, else inferred from the first of
        :data:`IMAGE_COLUMNS` present (with a warning naming it); ``None`` or ``False``: no clusters;
        another string: that column (an :class:`InputError` if absent); a sequence: one label per item.

    Returns
    -------
    ItemClusters
        ``used`` is False when no two items share a cluster.
    """
    n = len(items)
    if clusters is None or clusters is False:
        return _none(n)
    if clusters is True:
        clusters = "auto"
    if isinstance(clusters, str) and clusters != "auto":
        check_choice("`clusters`", clusters, list(items.columns), what="item column")
        return _from_keys(_labels(items[clusters], n, f"column {clusters!r}"), clusters, False)
    if not isinstance(clusters, str):
        return _from_keys(_labels(clusters, n, "clusters"), None, False)
    if CLUSTER_COLUMN in items.columns:
        return _from_keys(_labels(items[CLUSTER_COLUMN], n, "column 'cluster'"), CLUSTER_COLUMN, False)
    column = next((c for c in IMAGE_COLUMNS if c in items.columns), None)
    if column is None:
        return _none(n)
    check_frame(
        items,
        {"benchmark": Col(empty=True)},
        where="item table",
        hint=" (needed to infer clusters from images)",
    )
    values = _labels(items[column], n, f"column {column!r}")
    bench = items["benchmark"].astype(str).to_numpy(dtype=object)
    keys = np.array([f"{b}\x00{v}" for b, v in zip(bench, values, strict=True)], dtype=object)
    found = _from_keys(keys, column, True)
    if not found.used:
        return _none(n)
    shared = int((np.bincount(found.codes)[found.codes] > 1).sum())
    message = (
        f"items grouped into {found.n_clusters} clusters by shared values of column {column!r} within each "
        f"benchmark ({shared} of {n} items share one, at most {found.largest} per cluster): the bootstrap "
        "resamples whole clusters; give a 'cluster' column, or clusters=None to resample single items"
    )
    return ItemClusters(found.codes, found.n_clusters, column, True, [message])
