"""Item embeddings for Stage 2: the vision-dependence score and the coverage-cell space (PRIMEBench 4.3, D.1).

:class:`ItemEmbeddings` holds up to two embedding matrices keyed by ``(benchmark, item)``:

* ``vision_text`` -- ``E^VL_i``, the embedding of the item with its image (the cell space, PRIMEBench D.1);
* ``text`` -- ``E^L_i``, the text-only embedding of the same item by the same encoder.

A missing embedding is a whole row of ``NaN``. The vision-dependence score (PRIMEBench Eq. 6) is

.. math:: \\delta^{VL}_i = 1 - \\cos(E^L_i, E^{VL}_i)

when both embeddings exist, and 0 otherwise (Appendix D.1: items without a vision-text embedding enter no cell
and have ``delta = 0``).

Files (:meth:`ItemEmbeddings.load`), one per embedding kind:

* ``.npy``: a 2-D float array, one row per item, with a *keys file* giving the rows' ``benchmark`` and
  ``item`` in the same order: a CSV/TSV or parquet file with those two columns. Pass it as ``keys=``; when
  omitted, ``<stem>.keys.csv``, ``<stem>.keys.tsv`` or ``<stem>.keys.parquet`` beside the ``.npy`` is used.
* ``.parquet``: columns ``benchmark``, ``item`` and either one list/array column holding the vector (named by
  ``column=`` or the only other column) or one numeric column per dimension (every other column, in file
  order, e.g. ``e0 ... e63``).

When no embeddings are given, :meth:`ItemEmbeddings.from_text` builds a deterministic offline text embedding
of the question text (TF-IDF + truncated SVD with a fixed ``random_state``), and
:meth:`ItemEmbeddings.from_sentence_transformers` encodes it with a *local* sentence-transformers model (an
optional extra: ``pip install 'benchsift[embeddings]'``; loaded lazily, never from the network).

Coverage cells are drawn after a fixed seeded Gaussian random projection to 64 dimensions
(:func:`random_projection`, PRIMEBench section 4.3).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from numbers import Integral
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchsift._fileio import PANEL_MAX_BYTES, PANEL_MAX_RATIO, check_parquet_footer
from benchsift._inputs import check_array, existing_file
from benchsift._params import Check, Interval, validate_params
from benchsift._threads import single_thread
from benchsift.errors import FormatError, InputError, listed

__all__ = [
    "EMBEDDINGS",
    "ItemEmbeddings",
    "check_embedding_matrix",
    "delta_vl",
    "load_embeddings",
    "random_projection",
]

KEY_COLUMNS: tuple[str, str] = ("benchmark", "item")


# ---------------------------------------------------------------------------------------------- functions
def delta_vl(text: np.ndarray | None, vision_text: np.ndarray | None) -> np.ndarray:
    """Vision-dependence score ``delta^VL_i = 1 - cos(E^L_i, E^VL_i)`` (PRIMEBench Eq. 6).

    ``text`` and ``vision_text`` are ``(n, d)`` arrays with whole-NaN rows for missing embeddings (either may
    be None). Items lacking either embedding, or with a zero vector, get 0 (PRIMEBench Appendix D.1).
    Returns float64 ``(n,)`` in [0, 2].
    """
    if text is None or vision_text is None:
        other = text if text is not None else vision_text
        return np.zeros(0 if other is None else other.shape[0], dtype=np.float64)
    b = np.asarray(vision_text, dtype=np.float64)
    a = check_array(
        "text-only embeddings",
        text,
        shape=b.shape,
        what=f"the same shape as the vision-text embeddings, {b.shape} (the same encoder), for delta^VL",
    )
    ok = ~(np.isnan(a).any(axis=1) | np.isnan(b).any(axis=1))
    out = np.zeros(a.shape[0], dtype=np.float64)
    if not ok.any():
        return out
    a_ok, b_ok = a[ok], b[ok]
    na = np.sqrt(np.einsum("ij,ij->i", a_ok, a_ok))
    nb = np.sqrt(np.einsum("ij,ij->i", b_ok, b_ok))
    dot = np.einsum("ij,ij->i", a_ok, b_ok)
    nonzero = (na > 0) & (nb > 0)
    cos = np.zeros_like(dot)
    cos[nonzero] = dot[nonzero] / (na[nonzero] * nb[nonzero])
    d = np.where(nonzero, 1.0 - np.clip(cos, -1.0, 1.0), 0.0)
    out[ok] = d
    return out


@validate_params({"dim": [Interval(Integral, 1, None)]})
def random_projection(x: np.ndarray, dim: int = 64, random_state: int = 0) -> np.ndarray:
    """Project ``(n, d)`` embeddings to ``dim`` dimensions by a fixed seeded Gaussian matrix (PRIMEBench 4.3).

    The matrix has i.i.d. ``N(0, 1/dim)`` entries drawn from ``np.random.default_rng(random_state)``, so the
    same ``(d, dim, random_state)`` always gives the same projection (cells stay fixed across panels and
    model subsamples, Appendix D.1). Embeddings with ``d <= dim`` are returned unchanged (as float64): a
    projection cannot reduce them. Whole-NaN rows (missing embeddings) stay NaN.
    """
    x = check_array("embeddings", x, ndim=2, what="a 2-D (n_items, d) array")
    n, d = x.shape
    if d <= dim:
        return x.copy()
    rng = np.random.default_rng(random_state)
    proj = rng.standard_normal((d, dim)) / np.sqrt(dim)
    out = np.full((n, dim), np.nan)
    ok = ~np.isnan(x).any(axis=1)
    out[ok] = x[ok] @ proj
    return out


# ---------------------------------------------------------------------------------------------- file reading
def _read_table(path: Path, what: str) -> pd.DataFrame:
    existing_file(path, what)
    suffix = path.suffix.lower()
    try:
        if suffix == ".parquet":
            import pyarrow.parquet as pq

            # the footer's counts, before pandas reads a row: embeddings are floats that barely compress,
            # and 50,000 items x 4,096 dimensions are 1.6 GB once read (a panel file's bounds)
            footer = pq.ParquetFile(path)
            check_parquet_footer(
                footer, path, max_ratio=PANEL_MAX_RATIO, max_bytes=PANEL_MAX_BYTES, what="an embedding file"
            )
            return pd.read_parquet(path)
        if suffix in (".csv", ".tsv", ".txt"):
            sep = "\t" if suffix == ".tsv" else ","
            return pd.read_csv(path, sep=sep, dtype=str, keep_default_na=False)
    except FormatError:
        raise  # the footer's bound, naming the file
    except (OSError, ValueError) as exc:
        raise FormatError(f"{what} {path}: could not be read: {exc}") from None
    raise FormatError(f"{what} {path}: expected a .csv, .tsv or .parquet file, got {suffix or 'no suffix'!r}")


def _keys_from_frame(df: pd.DataFrame, source: str) -> pd.DataFrame:
    for col in KEY_COLUMNS:
        if col not in df.columns:
            raise FormatError(f"{source}: missing column {col!r} (columns are {listed(df.columns)})")
        if df[col].isna().any():
            row = int(df[col].isna().to_numpy().argmax())
            raise FormatError(f"{source}, row {row}: empty {col!r}")
    keys = pd.DataFrame({c: df[c].astype(str).to_numpy() for c in KEY_COLUMNS})
    dup = keys.duplicated(list(KEY_COLUMNS))
    if dup.any():
        row = int(np.flatnonzero(dup.to_numpy())[0])
        raise FormatError(
            f"{source}, row {row}: duplicate key "
            f"({keys['benchmark'].iloc[row]!r}, {keys['item'].iloc[row]!r});"
            " (benchmark, item) must be unique"
        )
    return keys


def _sibling_keys(path: Path) -> Path:
    stem = path.with_suffix("")
    for ext in (".keys.csv", ".keys.tsv", ".keys.parquet"):
        cand = stem.with_name(stem.name + ext)
        if cand.exists():
            return cand
    raise InputError(
        f"embeddings {path}: a .npy file needs a keys file with columns benchmark,item "
        "(one row per array row);"
        f" pass keys=... or put {stem.name}.keys.csv beside it"
    )


def _read_embedding_file(
    path: Path, keys: Path | None, column: str | None
) -> tuple[pd.DataFrame, np.ndarray]:
    existing_file(path, "embeddings")
    suffix = path.suffix.lower()
    if suffix == ".npy":
        try:
            arr = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise FormatError(f"embeddings {path}: not a readable .npy array: {exc}") from None
        if arr.ndim != 2:
            raise FormatError(f"embeddings {path}: expected a 2-D (n_items, d) array, got shape {arr.shape}")
        keys_path = keys if keys is not None else _sibling_keys(path)
        key_df = _keys_from_frame(_read_table(Path(keys_path), "keys file"), f"keys file {keys_path}")
        if len(key_df) != arr.shape[0]:
            raise FormatError(
                f"keys file {keys_path} has {len(key_df)} rows but embeddings {path} has {arr.shape[0]} rows"
            )
        return key_df, _as_embedding_array(arr, f"embeddings {path}")
    if suffix == ".parquet":
        df = _read_table(path, "embeddings")
        key_df = _keys_from_frame(df, f"embeddings {path}")
        others = [c for c in df.columns if c not in KEY_COLUMNS]
        if column is not None:
            if column not in df.columns:
                raise FormatError(
                    f"embeddings {path}: no column {column!r} (columns are {listed(df.columns)})"
                )
            others = [column]
        if not others:
            raise FormatError(f"embeddings {path}: no embedding column besides benchmark, item")
        first = df[others[0]]
        if len(others) == 1 and first.dtype == object:
            arr = _stack_list_column(first, f"embeddings {path}, column {others[0]!r}")
        else:
            non_numeric = [c for c in others if not pd.api.types.is_numeric_dtype(df[c])]
            if non_numeric:
                raise FormatError(
                    f"embeddings {path}: column {non_numeric[0]!r} is not numeric; expected one list column "
                    "or one numeric column per dimension"
                )
            arr = df[others].to_numpy(dtype=np.float64)
        return key_df, _as_embedding_array(arr, f"embeddings {path}")
    raise FormatError(f"embeddings {path}: expected a .npy or .parquet file, got {suffix or 'no suffix'!r}")


def _stack_list_column(col: pd.Series, source: str) -> np.ndarray:
    lengths = col.map(lambda v: -1 if v is None or (isinstance(v, float) and np.isnan(v)) else len(v))
    lens = lengths.to_numpy()
    present = lens >= 0
    if not present.any():
        raise FormatError(f"{source}: every vector is missing")
    dim = int(lens[present][0])
    bad = present & (lens != dim)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise FormatError(f"{source}, row {row}: vector of length {lens[row]}, expected {dim} like row 0")
    out = np.full((len(col), dim), np.nan)
    if present.any():
        try:
            out[present] = np.stack([np.asarray(v, dtype=np.float64) for v in col[present]])
        except (TypeError, ValueError) as exc:
            raise FormatError(f"{source}: vectors are not numeric: {exc}") from None
    return out


#: The largest embedding coordinate accepted, in absolute value. The clustering sums squared distances in
#: float32 (largest 3.4e38): at 1e12 even a million dimensions stay below 4e30, where real embeddings are
#: a few units (normalised) to a few thousand. Larger ones overflowed to inf, and the split of a large
#: benchmark's cells among its groups never ended (forged embeddings of 1e20).
EMBEDDING_LIMIT = 1e12


def check_embedding_matrix(
    arr: Any,
    source: str,
    *,
    dtype: type[np.floating[Any]] = np.float32,
    n_rows: int | None = None,
    error: type[InputError] = InputError,
) -> np.ndarray:
    """Validate an ``(n_items, d)`` embedding matrix once; return it as ``dtype``.

    Missing embeddings are whole rows of NaN: a partly NaN row, an infinite value or one beyond
    :data:`EMBEDDING_LIMIT` is an :class:`~benchsift.errors.InputError` naming ``source`` and the row;
    ``n_rows`` (when given) is the
    expected number of rows (one per item). ``error`` is raised when ``arr`` is not numeric (a
    :class:`~benchsift.errors.FormatError` for file contents).
    """
    want = "(n_items, d)" if n_rows is None else f"({n_rows}, d) ({n_rows} rows, one per item)"
    return check_array(
        source,
        arr,
        dtype=dtype,
        shape=(n_rows, None),
        min_shape=(0, 1),
        what=f"embeddings of shape {want}, d >= 1",
        finite=True,
        low=-EMBEDDING_LIMIT,
        high=EMBEDDING_LIMIT,
        nan="rows",
        error=error,
    )


def _as_embedding_array(arr: Any, source: str, n_rows: int | None = None) -> np.ndarray:
    """An embedding matrix stored by :class:`ItemEmbeddings` (float32; non-numeric data is a FormatError)."""
    return check_embedding_matrix(arr, source, n_rows=n_rows, error=FormatError)


@contextmanager
def _offline_hub() -> Iterator[None]:
    """Force the Hugging Face libraries offline for the duration (no network call at run time)."""
    names = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE")
    saved = {k: os.environ.get(k) for k in names}
    try:
        for k in names:
            os.environ[k] = "1"
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _items_frame(items: Any) -> pd.DataFrame:
    """The items table of a Panel, or ``items`` itself when it is a DataFrame (declared: :data:`_ITEMS`)."""
    return items if isinstance(items, pd.DataFrame) else items.items


#: what the ``items`` argument of :meth:`ItemEmbeddings.align`, ``from_text`` and
#: ``from_sentence_transformers`` accepts: a Panel (anything with an ``items`` DataFrame) or that DataFrame
_ITEMS = {
    "items": [
        Check(
            lambda x: isinstance(x, pd.DataFrame) or isinstance(getattr(x, "items", None), pd.DataFrame),
            "a Panel or an items DataFrame",
        )
    ]
}


def _question_texts(items: pd.DataFrame) -> tuple[np.ndarray, list[str]]:
    """Positions with a non-empty ``question`` and their texts."""
    if "question" not in items.columns:
        return np.empty(0, dtype=np.int64), []
    q = items["question"]
    text = q.astype("string").fillna("").str.strip()
    ok = (text != "").to_numpy(dtype=bool)
    return np.flatnonzero(ok), text[ok].tolist()


# ---------------------------------------------------------------------------------------------- the class
class ItemEmbeddings:
    """Vision-text (``E^VL``) and text-only (``E^L``) item embeddings keyed by ``(benchmark, item)``.

    Parameters
    ----------
    keys
        DataFrame with columns ``benchmark`` and ``item`` (unique pairs), one row per embedding row.
    vision_text, text
        ``(len(keys), d)`` arrays or None; a whole row of ``NaN`` marks a missing embedding. Stored float32.
    source
        A short description of where the embeddings came from (reported in the suite's parameters).
    """

    def __init__(
        self,
        keys: pd.DataFrame,
        vision_text: np.ndarray | None = None,
        text: np.ndarray | None = None,
        *,
        source: str = "arrays",
    ) -> None:
        self._keys = _keys_from_frame(keys, "embedding keys")
        n = len(self._keys)
        self._vision_text = (
            None if vision_text is None else _as_embedding_array(vision_text, "vision-text", n)
        )
        self._text = None if text is None else _as_embedding_array(text, "text-only embeddings", n)
        self.source = source

    def __repr__(self) -> str:
        def dim(a: np.ndarray | None) -> str:
            return "none" if a is None else f"{int((~np.isnan(a[:, 0])).sum())}x{a.shape[1]}"

        return (
            f"ItemEmbeddings(n_keys={self.n_keys}, vision_text={dim(self._vision_text)}, "
            f"text={dim(self._text)}, source={self.source!r})"
        )

    # -------------------------------------------------------------------- properties
    @property
    def keys(self) -> pd.DataFrame:
        """The ``(benchmark, item)`` keys, one per row (a copy)."""
        return self._keys.copy()

    @property
    def n_keys(self) -> int:
        return len(self._keys)

    @property
    def vision_text(self) -> np.ndarray | None:
        """``E^VL``: ``(n_keys, d)`` float32 with NaN rows for missing, or None."""
        return self._vision_text

    @property
    def text(self) -> np.ndarray | None:
        """``E^L``: ``(n_keys, d)`` float32 with NaN rows for missing, or None."""
        return self._text

    @property
    def has_vision_text(self) -> np.ndarray:
        """``(n_keys,)`` bool: the item has a vision-text embedding."""
        if self._vision_text is None:
            return np.zeros(self.n_keys, dtype=bool)
        return ~np.isnan(self._vision_text[:, 0])

    @property
    def has_text(self) -> np.ndarray:
        """``(n_keys,)`` bool: the item has a text-only embedding."""
        if self._text is None:
            return np.zeros(self.n_keys, dtype=bool)
        return ~np.isnan(self._text[:, 0])

    def delta_vl(self) -> np.ndarray:
        """``delta^VL = 1 - cos(E^L, E^VL)`` per key, 0 where either is missing (PRIMEBench Eq. 6, D.1)."""
        if self._vision_text is None or self._text is None:
            return np.zeros(self.n_keys, dtype=np.float64)
        return delta_vl(self._text, self._vision_text)

    # -------------------------------------------------------------------- alignment
    @validate_params(_ITEMS)
    def align(self, items: Any) -> ItemEmbeddings:
        """Re-key to ``items`` (a panel or an items DataFrame): row ``j`` is the ``j``-th item.

        Items absent from the embeddings get a NaN row (no embedding). Vectorized through a pandas
        MultiIndex lookup.
        """
        frame = _items_frame(items)
        target = _keys_from_frame(frame, "items table")
        index = pd.MultiIndex.from_frame(self._keys)
        pos = index.get_indexer(pd.MultiIndex.from_frame(target))
        return ItemEmbeddings(
            target,
            vision_text=_gather(self._vision_text, pos),
            text=_gather(self._text, pos),
            source=self.source,
        )

    # -------------------------------------------------------------------- constructors
    @classmethod
    def load(
        cls,
        vision_text: str | os.PathLike[str] | None = None,
        text: str | os.PathLike[str] | None = None,
        *,
        keys: str | os.PathLike[str] | None = None,
        text_keys: str | os.PathLike[str] | None = None,
        column: str | None = None,
        text_column: str | None = None,
    ) -> ItemEmbeddings:
        """Load vision-text and/or text-only embeddings from ``.npy`` (+ keys file) or ``.parquet`` files.

        ``keys`` is the keys file of the vision-text ``.npy`` (also used for the text ``.npy`` unless
        ``text_keys`` is given); ``column`` / ``text_column`` name the list column of a parquet file when it
        has several. The two files may cover different items: the result is keyed by their union (vision-text
        keys first) with NaN rows where a kind is missing. See the module docstring for the layouts.
        """
        if vision_text is None and text is None:
            raise InputError("ItemEmbeddings.load: give a vision-text and/or a text-only embeddings file")
        parts: list[tuple[str, pd.DataFrame, np.ndarray]] = []
        if vision_text is not None:
            k, a = _read_embedding_file(Path(vision_text), None if keys is None else Path(keys), column)
            parts.append(("vision_text", k, a))
        if text is not None:
            tk = text_keys if text_keys is not None else keys
            k, a = _read_embedding_file(Path(text), None if tk is None else Path(tk), text_column)
            parts.append(("text", k, a))
        all_keys = pd.concat([p[1] for p in parts], ignore_index=True).drop_duplicates(ignore_index=True)
        arrays: dict[str, np.ndarray] = {}
        index_all = pd.MultiIndex.from_frame(all_keys)
        for name, k, a in parts:
            pos = pd.MultiIndex.from_frame(k).get_indexer(index_all)
            arrays[name] = _gather(a, pos)  # type: ignore[assignment]
        names = [str(p) for p in (vision_text, text) if p is not None]
        return cls(
            all_keys,
            vision_text=arrays.get("vision_text"),
            text=arrays.get("text"),
            source="files: " + ", ".join(names),
        )

    @classmethod
    @validate_params(_ITEMS)
    def from_text(
        cls, items: Any, dim: int = 64, random_state: int = 0, max_fit_docs: int = 50_000
    ) -> ItemEmbeddings:
        """Built-in deterministic offline text embedding of the items' ``question`` text.

        TF-IDF on word unigrams (sublinear tf, L2-normalised) followed by truncated SVD to ``dim`` components
        (latent semantic analysis) and L2-normalised rows. The SVD is fitted on at most ``max_fit_docs``
        questions drawn with ``random_state`` (all of them when there are fewer) and applied to every item,
        so ~386k questions take seconds, not a minute; the same ``random_state`` gives the same embedding.
        Stored as the *text-only* embedding (it sees no image, so ``delta^VL = 0``); Stage 2 draws its cells
        on it when no vision-text embeddings are given (text-only cells are within about 0.005 of
        vision-text cells in PRIMEBench D.4). Items with no question text have no embedding; a panel without
        a ``question`` column gives an all-missing embedding.
        """
        frame = _items_frame(items)
        # One BLAS thread: the randomized SVD factorises small dense blocks (QR / SVD of n x ~(dim + 10)),
        # where a threaded BLAS costs 0.2-1.7 s in start-up and contention on a loaded 2-core machine
        # against ~0.05 s single-threaded (measured on a 1,200-item panel).
        with single_thread():
            return cls._tfidf_svd(frame, dim, random_state, max_fit_docs)

    @classmethod
    def _tfidf_svd(
        cls, frame: pd.DataFrame, dim: int, random_state: int, max_fit_docs: int
    ) -> ItemEmbeddings:
        """The body of :meth:`from_text` (TF-IDF, truncated SVD fitted on a seeded sample, L2 rows)."""
        from sklearn.decomposition import TruncatedSVD
        from sklearn.feature_extraction.text import TfidfVectorizer

        keys = _keys_from_frame(frame, "items table")
        pos, texts = _question_texts(frame)
        out = np.full((len(keys), dim), np.nan, dtype=np.float32)
        source = f"built-in TF-IDF + truncated SVD ({dim} dims, random_state={random_state})"
        if len(texts) < 2:
            return cls(keys, vision_text=None, text=out, source=source)
        vec = TfidfVectorizer(sublinear_tf=True, dtype=np.float32)
        try:
            tfidf = vec.fit_transform(texts)
        except ValueError:  # empty vocabulary (only punctuation, or stop words)
            return cls(keys, vision_text=None, text=out, source=source)
        n_comp = min(dim, tfidf.shape[1] - 1, tfidf.shape[0] - 1)
        if n_comp >= 1:
            rng = np.random.default_rng(random_state)
            fit_rows = (
                np.sort(rng.choice(tfidf.shape[0], size=max_fit_docs, replace=False))
                if tfidf.shape[0] > max_fit_docs
                else np.arange(tfidf.shape[0])
            )
            svd = TruncatedSVD(n_components=n_comp, algorithm="randomized", random_state=random_state)
            svd.fit(tfidf[fit_rows])
            z = np.asarray(svd.transform(tfidf), dtype=np.float64)
        else:
            z = tfidf.toarray().astype(np.float64)
        norms = np.linalg.norm(z, axis=1, keepdims=True)
        z = np.divide(z, norms, out=np.zeros_like(z), where=norms > 0)
        out = np.full((len(keys), z.shape[1]), np.nan, dtype=np.float32)
        out[pos] = z
        return cls(keys, vision_text=None, text=out, source=source)

    @classmethod
    @validate_params(_ITEMS)
    def from_sentence_transformers(
        cls,
        items: Any,
        model: str | os.PathLike[str],
        *,
        batch_size: int = 64,
        device: str | None = None,
    ) -> ItemEmbeddings:
        """Text-only embeddings of the ``question`` text from a *local* sentence-transformers model.

        An optional extra (``pip install 'benchsift[embeddings]'``), imported only here. The model is loaded
        with ``local_files_only=True`` and ``HF_HUB_OFFLINE=1`` set for the call, so it must be a local
        directory or already in the Hugging Face cache: never a network call. Rows are L2-normalised.
        """
        try:
            import sentence_transformers
        except ImportError:
            raise InputError(
                "sentence-transformers is not installed; install the optional extra with "
                "`pip install 'benchsift[embeddings]'` (or `pip install sentence-transformers`)"
            ) from None
        frame = _items_frame(items)
        keys = _keys_from_frame(frame, "items table")
        pos, texts = _question_texts(frame)
        with _offline_hub():
            try:
                st = sentence_transformers.SentenceTransformer(
                    str(model), device=device, local_files_only=True
                )
            except (OSError, ValueError) as exc:
                raise InputError(
                    f"sentence-transformers model {str(model)!r} could not be loaded offline "
                    "(it must be a local "
                    f"directory or already cached; benchsift never downloads at run time): {exc}"
                ) from None
            vecs = st.encode(
                texts,
                batch_size=batch_size,
                convert_to_numpy=True,
                normalize_embeddings=True,
                show_progress_bar=False,
            )
        vecs = np.asarray(vecs, dtype=np.float32).reshape(len(texts), -1)
        out = np.full((len(keys), vecs.shape[1] if len(texts) else 1), np.nan, dtype=np.float32)
        if len(texts):
            out[pos] = vecs
        return cls(keys, vision_text=None, text=out, source=f"sentence-transformers {str(model)!r} (local)")


def _gather(arr: np.ndarray | None, pos: np.ndarray) -> np.ndarray | None:
    """Rows ``arr[pos]`` with NaN where ``pos == -1``."""
    if arr is None:
        return None
    out = np.full((pos.shape[0], arr.shape[1]), np.nan, dtype=np.float32)
    hit = pos >= 0
    out[hit] = arr[pos[hit]]
    return out


def load_embeddings(
    vision_text: str | os.PathLike[str] | None = None, text: str | os.PathLike[str] | None = None
) -> ItemEmbeddings | None:
    """:meth:`ItemEmbeddings.load` of the files given, or ``None`` when neither is."""
    if vision_text is None and text is None:
        return None
    return ItemEmbeddings.load(vision_text=vision_text, text=text)


#: An ``embeddings`` argument, declared once: an :class:`ItemEmbeddings` or None (the built-in fallback).
EMBEDDINGS: list[Any] = [Check(lambda e: isinstance(e, ItemEmbeddings), "an ItemEmbeddings"), None]
